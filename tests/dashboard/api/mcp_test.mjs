// `infermark mcp` driven by the official MCP client (@modelcontextprotocol/sdk) over stdio, on the
// detail store (detail_fixture.mjs): it initializes, lists its tools, answers each tool with figures
// the store holds, refuses bad arguments with a JSON-RPC error naming the argument, reports a write
// or an endless SQL statement as the tool's error, and stops that statement at its time limit.
//
//   node tests/dashboard/api/mcp_test.mjs path/to/infermark
// Exits 77 (skipped) when tools/api-tests/node_modules is missing, 1 under CI=true.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AT, buildDetailStore, CONCS, MODEL, RUN_KEY } from './detail_fixture.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const modules = path.join(root, 'tools/api-tests/node_modules');
if (!fs.existsSync(modules)) {
  // Skipped on a developer's machine; under CI (CI=true) a missing package is a failure.
  console.log(`skipped: ${modules} is missing (scripts/setup.sh installs it)`);
  process.exit(process.env.CI === 'true' ? 1 : 77);
}
const sdk = (p) => import(pathToFileURL(path.join(modules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { McpError } = await sdk('types.js');

const binary = path.resolve(process.argv[2] || path.join(root, 'build/src/cli/infermark'));
let failures = 0;
function check(ok, what) {
  if (ok) {
    console.log(`ok: ${what}`);
  } else {
    failures += 1;
    console.error(`FAIL ${what}`);
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'infermark-mcp-'));
const db = path.join(tmp, 'store.db');
buildDetailStore(binary, tmp, db);
const transport = new StdioClientTransport({
  command: binary, args: ['mcp', '--db', db, '--rows', '5', '--max-rows', '50', '--timeout', '1'], stderr: 'pipe',
});
const client = new Client({ name: 'infermark-test', version: '1.0.0' });

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  check(!r.isError, `${name} answers (${r.isError ? r.content[0].text : 'no error'})`);
  check(JSON.stringify(JSON.parse(r.content[0].text)) === JSON.stringify(r.structuredContent),
    `${name}'s text content is its structured content`);
  return r.structuredContent;
}

async function refused(name, args, words) {
  try {
    await client.callTool({ name, arguments: args });
    check(false, `${name} ${JSON.stringify(args)} is refused`);
  } catch (e) {
    check(e instanceof McpError && e.code === -32602 && e.message.includes(words),
      `${name} ${JSON.stringify(args)} is refused with invalid params naming "${words}" (${e.code}: ${e.message})`);
  }
}

try {
  await client.connect(transport);
  check(client.getServerVersion().name === 'infermark', 'the server names itself');
  check(Boolean(client.getServerCapabilities().tools), 'the server offers tools');
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(['compare_runs', 'eval_samples', 'evaluations',
    'frontier_at_interactivity', 'list_frameworks', 'list_hardware', 'list_models', 'list_runs', 'points',
    'query_sql', 'reliability']), `tools/list names every tool (${names.join(', ')})`);
  check(tools.every((t) => t.annotations.readOnlyHint === true && t.inputSchema.type === 'object'),
    'every tool is read-only with an object schema');

  const hardware = await call('list_hardware', {});
  check(hardware.items.map((h) => h.name).join(',') === 'b200,h100', 'list_hardware: b200 and h100');
  check(hardware.items[1].points === CONCS.length, `h100 has ${CONCS.length} points`);
  const models = await call('list_models', { hardware: 'h100' });
  check(models.items.length === 1 && models.items[0].name === MODEL, `list_models: ${MODEL}`);
  const frameworks = await call('list_frameworks', {});
  check(frameworks.items[0].name === 'transformers', 'list_frameworks: transformers');
  const runs = await call('list_runs', {});
  check(runs.runs[0].key === RUN_KEY && runs.runs[0].points === CONCS.length + 1, 'list_runs: the sweep');

  const points = await call('points', { hardware: 'h100' });
  check(points.total === CONCS.length && points.returned === 5 && points.truncated, 'points: cut to the 5-row default');
  check(points.points.every((p) => typeof p.tput_per_gpu === 'number' && p.hardware === 'h100'), 'points carry figures');
  const more = await call('points', { hardware: ['h100'], limit: 50, fields: ['id', 'conc', 'p99_ttft_ms'] });
  check(more.returned === CONCS.length && Object.keys(more.points[0]).join(',') === 'id,conc,p99_ttft_ms',
    'points: a larger limit and chosen fields');
  const iso = await call('frontier_at_interactivity', { interactivity: [10, 11], hardware: 'h100' });
  check(iso.rows.length === 1 && iso.rows[0].values.length === 2, 'frontier_at_interactivity: one series, two values');
  const compare = await call('compare_runs', { base: RUN_KEY, head: RUN_KEY });
  check(Array.isArray(compare.rows) && compare.point_regressions === 0, 'compare_runs: a run against itself regresses nowhere');
  const evaluations = await call('evaluations', { task: 'gsm8k' });
  check(evaluations.total === 1 && evaluations.evaluations[0].verdict === 'FAIL', 'evaluations: the failing GSM8K');
  const samples = await call('eval_samples', { evaluation: evaluations.evaluations[0].id, wrong_only: true, limit: 50 });
  check(samples.wrong === 10 && samples.samples.length === 10 && samples.samples.every((s) => s.correct === false),
    'eval_samples: the 10 wrong answers');
  const reliability = await call('reliability', { at: AT });
  const h100 = reliability.by_gpu.find((g) => g.hardware === 'h100');
  check(h100.windows.all.attempts === CONCS.length + 4 && h100.windows.all.succeeded === CONCS.length,
    `reliability: h100 succeeded ${CONCS.length} of ${CONCS.length + 4} attempts`);
  const sql = await call('query_sql', { sql: 'SELECT hw, COUNT(*) AS n FROM points GROUP BY hw ORDER BY hw' });
  check(JSON.stringify(sql.rows) === JSON.stringify([['b200', 1], ['h100', CONCS.length]]), 'query_sql: points per GPU');

  await refused('points', { limit: 'ten' }, "argument 'limit'");
  await refused('points', { limit: 51 }, 'at most 50');
  await refused('points', { gpu: 'h100' }, "argument 'gpu'");
  await refused('points', { run: 'no-such-run' }, "argument 'run'");
  await refused('frontier_at_interactivity', {}, "argument 'interactivity'");
  await refused('eval_samples', { evaluation: -1 }, "argument 'evaluation'");
  await refused('nope', {}, "no tool named 'nope'");
  const write = await client.callTool({ name: 'query_sql', arguments: { sql: 'DROP TABLE points' } });
  check(write.isError && write.content[0].text.includes('read-only'), 'query_sql: a write is the tool\'s error');
  const endless = await client.callTool({ name: 'query_sql',
    arguments: { sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n' } });
  check(endless.isError && endless.content[0].text.includes('time limit of 1000 ms'),
    'query_sql: an endless statement stops at the call\'s time limit');
} finally {
  await client.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (failures) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('mcp: the official client initializes, lists and calls every tool');
