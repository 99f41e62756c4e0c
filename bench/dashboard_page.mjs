// Page benchmark: headless Chromium opens the dashboard on a store of N points that all match the
// page's default filters (one model, one sequence), and reports the time to the first chart render
// (the page's `infermark-first-chart` performance mark, from navigation start) and to every view
// drawn (head-to-head and history included), over several cold loads. Target: first chart <= 1 s
// with 5,000 points.
// With --db, an existing store instead (bench/dashboard_store writes one of 100,000 points): the main
// view as it opens (the first model and sequence), and with --point the page of the heaviest point
// with details (its timeline's requests and its telemetry's samples): the time to its
// `infermark-point-ready` mark (every reply received and read, every table written, and each chart
// in or within 200 px of the 1400x1000 window drawn), the wall time until the page said it was idle,
// and then what drawing the charts still below the window costs (the page draws each as it is
// scrolled near). Targets at 100,000 points: main view <= 1 s, point page <= 300 ms.
//
// Each load is cold by default: a fresh browser context with its cache off, as on a first visit.
// With --warm the pages' files are in the browser's cache (as when a point's page is opened from the
// main view; the server has the browser revalidate them, 304): one load primes the cache, then every
// measured load opens a new tab of that context. The data is fetched anew either way.
//
// With --against OTHER (another build of infermark, e.g. one of an earlier commit), a second server
// of that build serves the same store and the loads alternate between the two (A B, B A, ...), so
// both see the same machine; a table is printed for each. A build whose page draws every chart at
// once reports no "below the window" column.
//
// Usage: node bench/dashboard_page.mjs [--binary build/src/cli/infermark] [--points 5000] [--runs 7]
//        [--db STORE] [--point] [--warm] [--against BINARY] [--screenshot PATH] (the last load's page)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ingestRun } from '../tests/dashboard/browser/fixture.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({ options: {
  binary: { type: 'string', default: path.join(root, 'build/src/cli/infermark') },
  points: { type: 'string', default: '5000' },
  runs: { type: 'string', default: '7' },
  screenshot: { type: 'string' },
  db: { type: 'string' },
  point: { type: 'boolean', default: false },
  warm: { type: 'boolean', default: false },
  against: { type: 'string' },
} });
const total = Number(opt.points);
const { default: puppeteer } = await import(
  path.join(root, 'tools/dashboard/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js'));

// 5 GPUs x 2 frameworks x 2 precisions = 20 series; tensor parallelism and concurrency fill each.
function synthesize(count) {
  const series = [];
  for (const hw of ['h100', 'h200', 'b200', 'mi300x', 'mi355x']) {
    for (const framework of ['vllm', 'sglang']) for (const precision of ['fp8', 'fp4']) series.push({ hw, framework, precision });
  }
  const runs = [];
  for (let i = 0; i < count; i += 1000) {
    const points = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) {
      const s = series[j % series.length];
      const k = Math.floor(j / series.length);
      const tp = [1, 2, 4, 8][k % 4];
      const conc = 1 + Math.floor(k / 4);
      const intvty = 200 / Math.sqrt(conc) * (1 + (j % 7) / 10);
      points.push({ ...s, tp, conc, intvty, tput: 40 * conc ** 0.7 * (1 + (j % 5) / 8) });
    }
    const day = String(1 + runs.length).padStart(2, '0');
    runs.push({ key: `bench-${runs.length}`, label: `bench ${runs.length}`, date: `2026-10-${day}`, points });
  }
  return runs;
}

function start(binary, db) {
  return new Promise((resolve, reject) => {
    const server = spawn(binary, ['dashboard', '--db', `sqlite:${db}`, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      const m = out.match(/http:\/\/[\w.:[\]-]+\//);
      if (m) resolve({ server, url: m[0] });
    });
    server.on('exit', (code) => reject(new Error(`dashboard exited (${code}): ${out}`)));
  });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'infermark-page-bench-'));
const db = opt.db || path.join(work, 'store.db');
let t = performance.now();
if (!opt.db) for (const run of synthesize(total)) ingestRun(opt.binary, path.join(work, 'records'), db, run);
const ingestS = (performance.now() - t) / 1000;
t = performance.now();
const { server, url } = await start(opt.binary, db);
const startS = (performance.now() - t) / 1000;
const other = opt.against ? await start(opt.against, db) : null;
// The point page: the point with details whose timeline and telemetry are the largest (the
// last run's points, highest concurrency first).
async function heaviestPoint() {
  const meta = await (await fetch(`${url}api/v1/meta`)).json();
  const q = new URLSearchParams({ run: meta.filters.run.at(-1).key });
  const candidates = (await (await fetch(`${url}api/v1/points?${q}`)).json()).points.sort((a, b) => b.conc - a.conc);
  for (const p of candidates) {
    const page = await (await fetch(`${url}api/v1/points/${p.id}`)).json();
    if (!page.timeline_url || !page.telemetry_url) continue;
    const tl = await (await fetch(`${url}api/v1/points/${p.id}/timeline`)).json();
    return { path: `point/${p.id}`, size: `point ${p.id} (${p.series}, conc ${p.conc}): ${tl.requests} requests, ${page.telemetry_gpus} GPUs` };
  }
  throw new Error('no point with a timeline and telemetry in the store');
}

const browser = await puppeteer.launch({ executablePath: process.env.INFERMARK_CHROMIUM || '/usr/bin/chromium',
  headless: true, args: ['--no-sandbox', '--disable-gpu', `--user-data-dir=${path.join(work, 'profile')}`] });
const targets = [{ name: opt.binary, url, rows: [] }];
if (other) targets.push({ name: opt.against, url: other.url, rows: [] });
let pagePath = '';
let pointSize = '';

// One load of `target`'s page in `context` (a fresh one unless warm): what it measured.
async function load(target, context, warm, screenshot) {
  const page = await context.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  await page.setCacheEnabled(warm);
  t = performance.now();
  await page.goto(`${target.url}${pagePath}`);
  await page.waitForFunction(() => window.infermark && window.infermark.idle, { timeout: 60000, polling: 10 });
  const wall = performance.now() - t;
  const row = await page.evaluate((w, isPoint) => (isPoint ? {
    points: window.infermark.drawn.timelineRows,
    firstChart: window.infermark.readyMs,
    idle: w,
    // The charts still below the window, drawn at once (what scrolling down costs, in all).
    rest: window.infermark.drawAll ? (() => {
      const t0 = performance.now();
      window.infermark.drawAll();
      return performance.now() - t0;
    })() : null,
  } : {
    points: window.infermark.chart('intvty').data.datasets.filter((d) => d.type !== 'line')
      .reduce((n, d) => n + d.data.length, 0),
    firstData: window.infermark.firstDataMs,
    firstChart: window.infermark.firstChartMs,
    idle: w,
  }), wall, opt.point);
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  await page.close();
  return row;
}

try {
  if (opt.point) ({ path: pagePath, size: pointSize } = await heaviestPoint());
  for (const target of targets) {
    if (!opt.warm) continue;
    target.context = await browser.createBrowserContext();
    await load(target, target.context, true, null);  // primes the cache
  }
  for (let i = 0; i < Number(opt.runs); i++) {
    for (const target of i % 2 ? [...targets].reverse() : targets) {
      const context = target.context || await browser.createBrowserContext();
      const last = i + 1 === Number(opt.runs) && target === targets[0];
      target.rows.push(await load(target, context, opt.warm, last ? opt.screenshot : null));
      if (!target.context) await context.close();
    }
  }
} finally {
  await browser.close();
  server.kill();
  if (other) other.server.kill();
  fs.rmSync(work, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.9) - 1];
const cell = (v, w) => (typeof v === 'number' ? v.toFixed(0) : '–').padStart(w);
const cache = opt.warm ? 'files in the browser cache (revalidated)' : 'cold loads (browser cache off)';
console.log(opt.db ? `dashboard page on ${opt.db} (snapshot loaded in ${startS.toFixed(1)} s), Chromium headless, ${cache}`
  : `dashboard page, ${total} points in the store (ingested in ${ingestS.toFixed(1)} s), Chromium headless, ${cache}`);
if (opt.point) console.log(pointSize);
for (const { name, rows } of targets) {
  if (targets.length > 1) console.log(`\n${name}${name === opt.against ? ' (--against)' : ''}:`);
  if (opt.point) {
    console.log('load | requests drawn | point ready (ms) | page idle, wall (ms) | charts below the window drawn (ms)');
    console.log('-----|----------------|------------------|----------------------|-----------------------------------');
  } else {
    console.log('load | points drawn | data received (ms) | first chart render (ms) | all views drawn (ms)');
    console.log('-----|--------------|--------------------|-------------------------|---------------------');
  }
  rows.forEach((r, i) => console.log(opt.point
    ? `${String(i + 1).padStart(4)} | ${String(r.points).padStart(14)} | ${cell(r.firstChart, 16)} | ${cell(r.idle, 20)} | ${cell(r.rest, 34)}`
    : `${String(i + 1).padStart(4)} | ${String(r.points).padStart(12)} | ${cell(r.firstData, 18)} | ${cell(r.firstChart, 23)} | ${cell(r.idle, 20)}`));
  const rest = rows.map((r) => r.rest).filter((v) => v !== null);
  console.log(opt.point
    ? `point page ready: median ${median(rows.map((r) => r.firstChart)).toFixed(0)} ms, p90 ${p90(rows.map((r) => r.firstChart)).toFixed(0)} ms (target <= 300 ms)`
      + `${rest.length ? `; charts below the window: median ${median(rest).toFixed(0)} ms more` : ''}`
    : `median first chart render: ${median(rows.map((r) => r.firstChart)).toFixed(0)} ms (target <= 1000 ms)`);
}
