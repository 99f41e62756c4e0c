// The dashboard's OpenAPI document against the server it describes: the document is valid OpenAPI
// 3.1 (@apidevtools/swagger-parser), it names every /api/v1 route the server dispatches and only
// those, and every route's real reply on a store with every kind of data (detail_fixture.mjs) is
// valid against the schema it declares (ajv, JSON Schema 2020-12), errors included.
//
//   node tests/dashboard/api/openapi_test.mjs path/to/infermark
// Exits 77 (skipped) when tools/api-tests/node_modules is missing, 1 under CI=true.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { AT, buildDetailStore, RUN_KEY } from './detail_fixture.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const modules = path.join(root, 'tools/api-tests/node_modules');
if (!fs.existsSync(modules)) {
  // Skipped on a developer's machine; under CI (CI=true) a missing package is a failure.
  console.log(`skipped: ${modules} is missing (scripts/setup.sh installs it)`);
  process.exit(process.env.CI === 'true' ? 1 : 77);
}
const require = createRequire(path.join(modules, 'x.js'));
const SwaggerParser = require('@apidevtools/swagger-parser');
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats');

const binary = path.resolve(process.argv[2] || path.join(root, 'build/src/cli/infermark'));
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures += 1;
    console.error(`FAIL ${what}`);
  }
}

// The document itself.
const docPath = path.join(root, 'src/dashboard/assets/openapi.json');
await SwaggerParser.validate(structuredClone(JSON.parse(fs.readFileSync(docPath, 'utf8'))));
const api = await SwaggerParser.dereference(structuredClone(JSON.parse(fs.readFileSync(docPath, 'utf8'))));
console.log(`ok: ${docPath} is valid OpenAPI ${api.openapi} with ${Object.keys(api.paths).length} paths`);

// Every route the server dispatches is described, and nothing else: the routes are the /api/v1/…
// literals of the dispatching sources, an id route being its prefix.
const dispatched = new Set();
for (const file of ['api.cpp', 'api_detail.cpp']) {
  const text = fs.readFileSync(path.join(root, 'src/dashboard', file), 'utf8');
  for (const m of text.matchAll(/(?:path ==|IdBetween\(path,) "(\/api\/v1\/[^"]*)"(?:, "([^"]*)")?/g)) {
    dispatched.add(m[1].endsWith('/') ? `${m[1]}{id}${m[2] || ''}` : m[1]);
  }
}
const described = new Set(Object.keys(api.paths));
for (const r of dispatched) check(described.has(r), `the server's route ${r} is in the document`);
for (const r of described) check(dispatched.has(r), `the document's route ${r} is dispatched by the server`);

// A store with every kind of data, and the dashboard on it.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'infermark-openapi-'));
const db = path.join(tmp, 'store.db');
buildDetailStore(binary, tmp, db);
const server = spawn(binary, ['dashboard', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
server.stderr.on('data', (d) => { stderr += d; });
const base = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /serving (http:\/\/\S+\/)/.exec(out);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`dashboard exited ${code}: ${stderr}`)));
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

async function get(route) {
  const r = await fetch(new URL(route.replace(/^\//, ''), base));
  const type = r.headers.get('content-type') || '';
  return { status: r.status, type, body: type.startsWith('application/json') ? await r.json() : await r.text() };
}

try {
  const points = (await get('/api/v1/points')).body.points;
  const detail = points.find((p) => p.conc === 16 && p.hardware === 'h100');
  const evaluation = (await get(`/api/v1/evaluations?point=${detail.id}`)).body.evaluations[0];
  const attempt = (await get('/api/v1/attempts?outcome=failed')).body.attempts[0];
  const runs = (await get('/api/v1/runs')).body.runs;
  // Every route with parameters that give it something to say; each template's {id} filled in.
  const requests = [
    ['/api/v1/meta', ''],
    ['/api/v1/points', '?hardware=h100&sequence=1k%2F1k&valid=true'],
    ['/api/v1/runs', ''],
    ['/api/v1/frontier', '?x=p99_ttft_ms&y=output_tput_per_gpu'],
    ['/api/v1/iso', '?interactivity=5,10,40'],
    ['/api/v1/history', '?interactivity=10'],
    ['/api/v1/compare', `?base=${runs[0].id}&head=${encodeURIComponent(RUN_KEY)}`],
    ['/api/v1/evaluations', ''],
    ['/api/v1/evaluations/{id}/samples', '?filter=wrong&limit=5', evaluation.id],
    ['/api/v1/prices', ''],
    ['/api/v1/export.csv', '?hardware=h100'],
    ['/api/v1/reliability', `?at=${AT}`],
    ['/api/v1/attempts', '?limit=50'],
    ['/api/v1/attempts/{id}', '', attempt.id],
    ['/api/v1/points/{id}', '', detail.id],
    ['/api/v1/points/{id}/timeline', '', detail.id],
    ['/api/v1/points/{id}/telemetry', '?points=100', detail.id],
  ];
  const exercised = new Set();
  for (const [template, query, id] of requests) {
    exercised.add(template);
    const url = template.replace('{id}', id) + query;
    const reply = await get(url);
    check(reply.status === 200, `${url} answers 200 (got ${reply.status}: ${JSON.stringify(reply.body).slice(0, 200)})`);
    const content = api.paths[template].get.responses['200'].content;
    const [type, media] = Object.entries(content)[0];
    check(reply.type.startsWith(type), `${url} is ${type} (got ${reply.type})`);
    const validate = ajv.compile(media.schema);
    if (!validate(reply.body)) check(false, `${url} matches its schema: ${ajv.errorsText(validate.errors, { dataVar: 'reply' })}`);
    else console.log(`ok: ${url} matches its schema`);
  }
  for (const r of described) check(exercised.has(r), `the test asks ${r}`);
  // Errors have the declared shape.
  const error = ajv.compile(api.components.schemas.Error);
  for (const [url, status] of [['/api/v1/points?conc=4', 400], ['/api/v1/points/999999', 404],
    ['/api/v1/reliability?at=yesterday', 400], ['/api/v1/evaluations/1/samples?limit=0', 400]]) {
    const reply = await get(url);
    check(reply.status === status, `${url} answers ${status} (got ${reply.status})`);
    check(error(reply.body), `${url}'s error matches the Error schema: ${ajv.errorsText(error.errors)}`);
  }
  // The document itself is served without a token, as the page is.
  const served = await get('/api/openapi.json');
  check(served.status === 200 && served.body.openapi === api.openapi, '/api/openapi.json serves the document');
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('openapi: every route matches its schema');
