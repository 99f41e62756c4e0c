// The dashboard's deeper views in headless Chromium, on a real H100 sweep with its attempts, logs,
// telemetry and an evaluation's samples (../api/detail_fixture.mjs): the reliability view (rates per
// GPU and runner label per window, failures listed and opened), a point's page (verdict and host
// error per figure, request timeline and histograms, GPU telemetry per chip with its statistics),
// the evaluation's samples with the wrong-only filter, and the main view's percentile, TTFT axis,
// user-set costs and hollow points, all kept in the address. Every figure asserted is the
// fixture's. Screenshots go to SCREENS_DIR (docs/dashboard.md shows some).
//
// Usage: node detail_test.mjs INFERMARK_BINARY SCREENS_DIR
// Skips (exit 77) when Chromium or tools/dashboard/node_modules is missing.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startDashboard } from './dashboard_server.mjs';
import { AT, buildDetailStore, CONCS, HOST_ERROR, stem } from '../api/detail_fixture.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const binary = process.argv[2] || process.env.INFERMARK_BINARY || path.join(root, 'build/src/cli/infermark');
const screens = process.argv[3] || path.join(root, 'build/tests/dashboard/screens');
const chromium = process.env.INFERMARK_CHROMIUM
  || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p));
const puppeteerPath = path.join(root, 'tools/dashboard/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js');
if (!chromium) {
  console.log('SKIP: chromium is not installed (apt-get install chromium, as scripts/setup.sh does; or set INFERMARK_CHROMIUM)');
  process.exit(77);
}
if (!fs.existsSync(puppeteerPath)) {
  console.log('SKIP: tools/dashboard/node_modules is missing (run scripts/setup.sh, or npm ci --prefix tools/dashboard)');
  process.exit(77);
}
const { default: puppeteer } = await import(puppeteerPath);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'infermark-detail-'));
const H100 = path.join(root, 'tests/fixtures/real-gpu/h100');
let server;
let baseUrl;
let browser;
let page;
let points;

async function idle() {
  await page.waitForFunction(() => window.infermark && window.infermark.idle, { timeout: 20000 });
}

// The whole page as a PNG (a point's page draws its charts still waiting below the window first).
async function shot(name) {
  await page.evaluate(() => window.infermark && window.infermark.drawAll && window.infermark.drawAll());
  await page.screenshot({ path: path.join(screens, name), fullPage: true });
}

async function text(selector) {
  return page.$eval(selector, (e) => e.innerText);
}

async function rows(selector) {
  return page.$$eval(`${selector} tbody tr`, (trs) => trs.map((r) => [...r.children].map((c) => c.innerText.trim())));
}

// The real run's samples of `field` from its nvidia-smi CSV (column index in the file).
function csvColumn(conc, column) {
  return fs.readFileSync(path.join(H100, `${conc}_vm_gpu_metrics.csv`), 'utf8').trim().split('\n').slice(1)
    .map((line) => Number.parseFloat(line.split(',')[column]));
}

before(async () => {
  fs.mkdirSync(screens, { recursive: true });
  const db = path.join(work, 'store.db');
  buildDetailStore(binary, work, db);
  ({ proc: server, url: baseUrl } = await startDashboard(binary, db));
  points = (await (await fetch(`${baseUrl}api/v1/points`)).json()).points;
  browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', `--user-data-dir=${path.join(work, 'profile')}`] });
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
  fs.rmSync(work, { recursive: true, force: true });
});

test('reliability: rates per GPU and runner label per window, failures listed and opened', async () => {
  await page.goto(`${baseUrl}reliability?at=${AT}`);
  await idle();
  const gpu = await rows('#rel-gpu');
  const h100 = gpu.find((r) => r[0] === 'h100');
  const b200 = gpu.find((r) => r[0] === 'b200');
  // h100: 7 points; conc 8 spoiled once (12-05), conc 128 never ready (12-06), conc 256 failed to
  // start (11-20) and its client failed (10-01). 3 days: 7 of 9; 30 days: 7 of 10; all: 7 of 11.
  assert.match(h100[1], /^77\.8 % \(9\)$/);
  assert.match(h100[3], /^70\.0 % \(10\)$/);
  assert.match(h100[5], /^63\.6 % \(11\)$/);
  assert.match(b200[1], /^50\.0 % \(2\)$/);
  // The class counts are the 30-day window's by default: one readiness and one start-up failure.
  const header = await page.$$eval('#rel-gpu thead th', (ths) => ths.map((t) => t.innerText.trim()));
  assert.equal(h100[header.indexOf('readiness')], '1');
  assert.equal(h100[header.indexOf('start-up')], '1');
  assert.equal(h100[header.indexOf('client error')], '0');
  assert.ok((await rows('#rel-runner-table')).some((r) => r[0] === 'h100'));
  const failures = await rows('#rel-failures');
  assert.equal(failures.length, 5);
  assert.match(await text('#rel-failures-count'), /^5 /);
  // Newest first: conc 128 (12-06), conc 8's spoiled attempt (12-05 19:08), b200's killed server
  // (12-05 12:00), conc 256's start-up (11-20) and client (10-01) failures.
  assert.deepEqual(failures.map((r) => r[6]), ['readiness', '–', 'killed', 'start-up', 'client error']);
  await shot('reliability.png');
  // A failure opens its attempt: reason, class, logs.
  const link = await page.$('#rel-failures tbody tr:first-child a.attempt-link');
  await link.click();
  await page.waitForFunction(() => window.infermark.attempt && !document.getElementById('attempt').hidden);
  const panel = await text('#attempt');
  assert.match(panel, /failed \(readiness\)/);
  assert.match(panel, /server not ready after 900 s/);
  assert.match(await text('#attempt-server-log'), /OOM while loading/);
  assert.match(page.url(), /[?&]attempt=\d+/);
  await shot('reliability-attempt.png');
  // The window and class filters, kept in the address.
  await page.select('#rel-class', 'killed');
  await idle();
  assert.equal((await rows('#rel-failures')).length, 1);
  await page.select('#rel-window', 'all');
  await idle();
  assert.equal((await rows('#rel-gpu')).find((r) => r[0] === 'h100')[header.indexOf('client error')], '1');
  assert.match(page.url(), /class=killed/);
  assert.match(page.url(), /window=all/);
  await page.goto(page.url());
  await idle();
  assert.equal(await page.$eval('#rel-class', (e) => e.value), 'killed');
  assert.equal((await rows('#rel-failures')).length, 1);
});

test('point page: verdict, host error per figure, timeline, histograms and telemetry per chip', async () => {
  const p = points.find((x) => x.hardware === 'h100' && x.conc === 16);
  const result = JSON.parse(fs.readFileSync(path.join(H100, `${stem(16)}.json`), 'utf8'));
  await page.goto(`${baseUrl}point/${p.id}`);
  await idle();
  assert.deepEqual(await page.evaluate(() => window.infermark.errors), []);
  assert.match(await text('#point-title'), /h100 · transformers · bf16 · 1k\/1k · conc 16/);
  assert.equal(await text('#verdict-badge'), 'VALID');
  // Each figure with the host error the result states; the p99 ITL is over its tolerance.
  const figures = await page.$$eval('#figures-table tbody tr', (trs) => Object.fromEntries(trs.map((r) => [
    r.dataset.key, { cells: [...r.children].map((c) => c.innerText.trim()), cls: r.className }])));
  assert.equal(figures.median_ttft_ms.cells[1], result.median_ttft_ms.toFixed(1));
  assert.equal(Number(figures.median_ttft_ms.cells[3]), HOST_ERROR.host_error.median_ttft_ms.abs);
  assert.equal(figures.median_ttft_ms.cells[4], '0.05 %');
  assert.equal(figures.p99_itl_ms.cls, 'mark-tail');
  assert.equal(figures.p99_itl_ms.cells[4], '7.20 %');
  assert.match(figures.p99_itl_ms.cells[5], /tail/);
  assert.match(await text('#host-error-note'), /client's own share/);
  // The first screen's charts are drawn; those further down wait until they come near the window.
  const near = await page.evaluate(() => ['timeline', 'over-time', 'ttft-hist', 'telemetry'].map((n) => [n,
    document.getElementById(`chart-${n}`).getBoundingClientRect().top < window.innerHeight + 200]));
  assert.deepEqual(await page.evaluate(() => window.infermark.pending()), near.filter(([, n]) => !n).map(([n]) => n));
  assert.ok(!near.find(([n]) => n === 'telemetry')[1]);
  assert.equal(await page.evaluate(() => window.infermark.drawn.telemetryPoints), 0);
  for (const name of ['timeline', 'over-time', 'ttft-hist', 'telemetry']) {
    await page.evaluate((n) => document.getElementById(`chart-${n}`).scrollIntoView(), name);
    await page.waitForFunction((n) => !window.infermark.pending().includes(n), { timeout: 5000 }, name);
  }
  // Timeline: each of the run's requests; histograms of every TTFT and ITL.
  const drawn = await page.evaluate(() => window.infermark.drawn);
  assert.equal(drawn.timelineRows, result.completed);
  assert.equal(drawn.inFlight, true);
  assert.deepEqual(drawn.histograms, { ttft: result.completed, itl: 200 });
  assert.match(await text('#timeline-count'), new RegExp(`^${result.completed} of ${result.completed} requests`));
  const bars = await page.evaluate(() => Object.values(window.infermark.charts().timeline.$timeline).map((b) => b.length));
  assert.deepEqual(bars, [result.completed, result.completed, 0]);
  // Drawn, not only given: the time axis reaches the last token, each streaming bar is wider than
  // ten pixels, and the canvas at its middle holds its colour (#1f5fbf).
  const drawnBars = await page.evaluate(() => {
    const c = window.infermark.charts().timeline;
    const { x, y } = c.scales;
    const ratio = c.currentDevicePixelRatio;
    return {
      max: x.max,
      widths: c.$timeline.streaming.map((b) => x.getPixelForValue(b.x[1]) - x.getPixelForValue(b.x[0])),
      colours: c.$timeline.streaming.map((b) => [...c.ctx.getImageData(
        Math.round(((x.getPixelForValue(b.x[0]) + x.getPixelForValue(b.x[1])) / 2) * ratio),
        Math.round(y.getPixelForValue(b.y + 0.5) * ratio), 1, 1).data]),
    };
  });
  assert.ok(drawnBars.max >= result.median_e2el_ms / 1000, JSON.stringify(drawnBars.max));
  assert.ok(drawnBars.widths.every((w) => w > 10), JSON.stringify(drawnBars.widths));
  assert.ok(drawnBars.colours.every(([r, g, b, a]) => a === 255 && b > r + 80 && b > g + 40), JSON.stringify(drawnBars.colours));
  // Telemetry: the H100's every sample, with statistics per field.
  const power = csvColumn(16, 2);
  assert.equal(drawn.telemetryPoints, power.length);
  assert.match(await text('#telemetry-count'), new RegExp(`^1 GPU · ${power.length} samples`));
  const stats = await page.$$eval('#telemetry-stats tbody tr', (trs) => trs.map((r) => [r.dataset.field,
    ...[...r.children].slice(2).map((c) => c.innerText.trim())]));
  const powerRow = stats.find((r) => r[0] === 'power_w');
  assert.equal(Number(powerRow[2]), Math.round(Math.max(...power) * 10) / 10);
  assert.equal(Number(powerRow[1]), Math.round(Math.min(...power) * 100) / 100);
  assert.equal(powerRow[8], String(power.length));
  assert.deepEqual(stats.map((r) => r[0]),
    ['power_w', 'temperature_c', 'sm_clock_mhz', 'memory_clock_mhz', 'gpu_util_pct', 'memory_util_pct']);
  await shot('point-page.png');
  // Another field, kept in the address.
  // The page held the power series only: the temperature's comes when chosen.
  assert.deepEqual(await page.evaluate(() => Object.keys(window.infermark.telemetry.gpus[0].values)), ['power_w']);
  await page.select('#telemetry-field', 'temperature_c');
  await idle();
  const temperature = await page.evaluate(() => window.infermark.charts().telemetry.data.datasets[0].data.map((d) => d.y));
  assert.deepEqual(temperature, csvColumn(16, 3));
  assert.match(page.url(), /field=temperature_c/);
  // A field the telemetry does not know, in the address: the first field, no error.
  await page.goto(`${baseUrl}point/${p.id}?field=watts`);
  await idle();
  await page.evaluate(() => window.infermark.drawAll());
  assert.deepEqual(await page.evaluate(() => window.infermark.errors), []);
  assert.equal(await page.$eval('#telemetry-field', (e) => e.value), 'power_w');
  assert.equal(await page.evaluate(() => window.infermark.drawn.telemetryPoints), power.length);
  // Its curve's other points, its row's attempts, its logs.
  assert.equal((await page.$$('#summary td.curve a')).length, CONCS.length - 1);
  assert.match(await text('#attempts-table'), /completed/);
  assert.match(await text('#server-log'), /continuous batching ready/);
  // A spoiled attempt of another point is listed with its reason.
  const p8 = points.find((x) => x.hardware === 'h100' && x.conc === 8);
  await page.goto(`${baseUrl}point/${p8.id}`);
  await idle();
  const attempts = await rows('#attempts-table');
  assert.deepEqual(attempts.map((r) => r[1]), ['retried', 'completed']);
  assert.match(attempts[0][5], /client saturated/);
});

test('evaluation samples: all of them, then the wrong answers only, then one found by its text', async () => {
  const p = points.find((x) => x.hardware === 'h100' && x.conc === 16);
  await page.goto(`${baseUrl}point/${p.id}`);
  await idle();
  assert.match(await text('#point-evaluations'), /gsm8k\s+FAIL\s+0\.5000 ± 0\.1147/);
  await page.click('button.open-samples');
  await idle();
  assert.equal((await rows('#samples-table')).length, 20);
  assert.match(await text('#samples-title'), /10 of 20 answered wrong/);
  await page.click('#samples-wrong');
  await idle();
  const wrong = await rows('#samples-table');
  assert.equal(wrong.length, 10);
  assert.ok(wrong.every((r) => r[6] === '✗'), JSON.stringify(wrong.map((r) => r[6])));
  assert.match(page.url(), /samples=\d+/);
  assert.match(page.url(), /wrong=1/);
  await page.$eval('#samples', (e) => e.scrollIntoView());
  await shot('eval-samples.png');
  // The address brings the drill-down back.
  await page.goto(page.url());
  await idle();
  assert.equal((await rows('#samples-table')).length, 10);
  await page.$eval('#samples-wrong', (e) => e.click());
  await idle();
  await page.type('#samples-text', 'Janet');
  await page.$eval('#samples-text', (e) => e.dispatchEvent(new Event('change')));
  await idle();
  const found = await rows('#samples-table');
  assert.equal(found.length, 1);
  assert.match(found[0][1], /Janet/);
  // A text no document holds: said so, not an empty table.
  await page.$eval('#samples-text', (e) => { e.value = 'no such words anywhere'; e.dispatchEvent(new Event('change')); });
  await idle();
  assert.deepEqual(await rows('#samples-table'), [['No document matches these filters.']]);
  assert.equal(await text('#samples-range'), 'no documents match');
});

test('main view: the percentile control, TTFT as x, user costs and hollow points, in the address', async () => {
  const h100 = points.filter((x) => x.hardware === 'h100');
  await page.goto(`${baseUrl}?hardware=h100`);
  await idle();
  const xs = async (chart) => page.evaluate((name) => window.infermark.chart(name).data.datasets
    .filter((d) => d.type !== 'line').flatMap((d) => d.data.map((q) => [q.p.id, q.x])), chart);
  const byId = (pairs) => Object.fromEntries(pairs);
  const median = byId(await xs('intvty'));
  for (const q of h100) assert.equal(median[q.id], q.interactivity);
  await page.select('#percentile', 'p99');
  await idle();
  const p99 = byId(await xs('intvty'));
  for (const q of h100) assert.equal(p99[q.id], q.p99_interactivity, `p99 interactivity of conc ${q.conc}`);
  const e2el = byId(await xs('e2el'));
  for (const q of h100) assert.equal(e2el[q.id], q.p99_e2el_s);
  assert.match(await text('#title-e2el'), /P99 end-to-end latency/);
  await page.select('#x-axis', 'ttft');
  await idle();
  const ttft = byId(await xs('intvty'));
  for (const q of h100) assert.equal(ttft[q.id], q.p99_ttft_ms);
  assert.match(page.url(), /pct=p99/);
  assert.match(page.url(), /x=ttft/);
  await shot('percentile-ttft.png');
  // Your $/GPU-hour for h100: cost per million output tokens at it.
  await page.click('#user-values summary');
  await page.$eval('input[data-kind="ucost"][aria-label="h100 $/GPU-hour"]', (e) => {
    e.value = '2.5';
    e.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.select('#y-metric', 'cost_user');
  await idle();
  const cost = await page.evaluate(() => window.infermark.chart('intvty').data.datasets
    .filter((d) => d.type !== 'line').flatMap((d) => d.data.map((q) => [q.p.output_tput_per_gpu, q.y])));
  for (const [tput, y] of cost) assert.ok(Math.abs(y - (2.5e6 / (3600 * tput))) < 1e-9);
  assert.match(page.url(), /ucost=h100%3A2\.5/);
  // The address restores every control.
  await page.goto(page.url());
  await idle();
  assert.equal(await page.$eval('#percentile', (e) => e.value), 'p99');
  assert.equal(await page.$eval('#x-axis', (e) => e.value), 'ttft');
  assert.equal(await page.$eval('#y-metric', (e) => e.value), 'cost_user');
  // A point whose p99 statistic carries a host-error mark is hollow at p99, filled at the median.
  // The points route carries the result's marks (the host-error columns): given here as it serves them.
  const marked = points.find((x) => x.hardware === 'h100' && x.conc === 16);
  await page.setRequestInterception(true);
  const patch = (req) => {
    if (!req.url().includes('/api/v1/points?')) {
      req.continue();
      return;
    }
    fetch(req.url()).then((r) => r.json()).then((body) => {
      for (const q of body.points) q.host_error_marks = q.id === marked.id ? HOST_ERROR.host_error_marks : [];
      req.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    });
  };
  page.on('request', patch);
  try {
    const fill = async () => page.evaluate((id) => {
      const c = window.infermark.chart('intvty');
      for (const d of c.data.datasets) {
        const i = d.data.findIndex((q) => q.p && q.p.id === id);
        // One colour for a series whose points all look alike, else one per point.
        if (i >= 0) return Array.isArray(d.pointBackgroundColor) ? d.pointBackgroundColor[i] : d.pointBackgroundColor;
      }
      return null;
    }, marked.id);
    await page.goto(`${baseUrl}?hardware=h100&pct=p99`);
    await idle();
    assert.equal(await fill(), '#fff');
    assert.match(await text('#hollow-count'), /^1 point$/);
    await shot('hollow-p99.png');
    await page.select('#percentile', 'median');
    await idle();
    assert.notEqual(await fill(), '#fff');
    assert.equal(await page.$eval('#hollow-note', (e) => e.hidden), true);
  } finally {
    page.off('request', patch);
    await page.setRequestInterception(false);
  }
});
