// The dashboard page in headless Chromium, driven as a person would: load it, filter, switch the
// y axis, hover points (the tooltip shows their provenance), compare two GPUs (the iso table's
// values), read the history's regression, open a shared address (the view comes back), and export
// CSV and PNG (the downloaded files' contents), see an INVALID point ringed with its reasons and
// off the frontiers, and hide it with its control, see the predicted frontier inside its model-error
// band (and the band in its points' tooltips), and read the accuracy evaluations (score, error
// bar, threshold, verdict; not-run and INVALID ones without a score) from the panel and from the
// tooltip of a point of the same configuration. The store holds the fixture's known points
// (fixture.mjs), served by `infermark dashboard`. Screenshots go to build/tests/dashboard/screens/.
//
// Usage: node dashboard_test.mjs INFERMARK_BINARY SCREENS_DIR
// Skips (exit 77) when Chromium or tools/dashboard/node_modules is missing.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startDashboard } from './dashboard_server.mjs';
import { AGENTIC_USERS, buildStore, EVALUATIONS, INVALID_REASONS, PREDICTION_BAND, REPEAT_SPREAD } from './fixture.mjs';

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

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'infermark-dashboard-'));
const downloads = path.join(work, 'downloads');
let server;
let baseUrl;
let storePath;
let browser;
let page;

/// Starts `infermark dashboard` (with `extra` flags) on a free port; resolves with the process and
/// the address it prints.
async function idle() {
  await page.waitForFunction(() => window.infermark && window.infermark.idle, { timeout: 15000 });
}

async function shot(name) {
  await page.screenshot({ path: path.join(screens, name), fullPage: true });
}

async function text(selector) {
  return page.$eval(selector, (e) => e.innerText);
}

// The iso table as rows of cell texts.
async function tableRows(selector) {
  return page.$$eval(`${selector} tr`, (rows) => rows.map((r) => [...r.children].map((c) => c.innerText.trim())));
}

// The chart's points of `series` as [x, y] pairs sorted by x.
async function seriesData(chartName, series) {
  return page.evaluate((name, s) => {
    const c = window.infermark.chart(name);
    const d = c.data.datasets.find((ds) => ds.label === s);
    return d ? d.data.map((p) => [p.x, p.y]).sort((a, b) => a[0] - b[0]) : null;
  }, chartName, series);
}

// Moves the mouse onto the point of `series` with concurrency `conc` and returns the tooltip text.
async function hover(chartName, series, conc) {
  const at = await page.evaluate((name, s, c) => {
    const chart = window.infermark.chart(name);
    const i = chart.data.datasets.findIndex((ds) => ds.label === s);
    const j = chart.data.datasets[i].data.findIndex((p) => p.p.conc === c);
    const el = chart.getDatasetMeta(i).data[j];
    const box = chart.canvas.getBoundingClientRect();
    return { x: box.left + el.x, y: box.top + el.y };
  }, chartName, series, conc);
  // Chart.js handles pointer events once per animation frame: leave the chart until the tooltip
  // is gone, then wait for the one of this very point.
  await page.mouse.move(1, 1);
  await page.waitForSelector('#tooltip[hidden]', { timeout: 5000 });
  await page.mouse.move(at.x, at.y, { steps: 4 });
  await page.waitForFunction((s, c) => {
    const tip = document.getElementById('tooltip');
    return !tip.hidden && tip.querySelector('.tt-title').textContent === s && new RegExp(`(conc|users) ${c}\\b`).test(tip.innerText);
  }, { timeout: 5000 }, series, conc);
  return text('#tooltip');
}

async function setFilter(key, value, checked) {
  await page.click(`details[data-filter="${key}"] summary`);
  const box = await page.$(`details[data-filter="${key}"] input[value="${value}"]`);
  const now = await box.evaluate((e) => e.checked);
  if (now !== checked) await box.click();
  await page.click('header h1');
  await idle();
}

async function waitForDownload(name) {
  const file = path.join(downloads, name);
  for (let i = 0; i < 100; i++) {
    if (fs.existsSync(file) && !fs.existsSync(`${file}.crdownload`) && fs.statSync(file).size > 0) return file;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no download ${name} in ${downloads}: ${fs.existsSync(downloads) ? fs.readdirSync(downloads) : []}`);
}

before(async () => {
  fs.mkdirSync(screens, { recursive: true });
  fs.mkdirSync(downloads, { recursive: true });
  const db = path.join(work, 'store.db');
  storePath = db;
  if (process.env.INFERMARK_DASHBOARD_MOCK !== '1') buildStore(binary, path.join(work, 'records'), db);
  ({ proc: server, url: baseUrl } = await startDashboard(binary, db));
  browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', `--user-data-dir=${path.join(work, 'profile')}`] });
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
  fs.rmSync(work, { recursive: true, force: true });
});

test('load: every point drawn, measured and predicted apart, a frontier per series', async () => {
  await page.goto(baseUrl);
  await idle();
  assert.equal(await text('#point-count'), '17 points (14 measured, 3 predicted; 1 INVALID)');
  const legend = await page.$$eval('.legend-item', (items) => items.map((i) => i.innerText.trim()));
  assert.ok(legend.includes('h100 · vllm · fp8'), legend.join(' | '));
  assert.ok(legend.some((l) => /^h100 · vllm · fp8 · .*predicted$/.test(l) || l === 'h100 · vllm · fp8 · predicted'), legend.join(' | '));
  assert.deepEqual(await seriesData('intvty', 'h100 · vllm · fp8'),
    [[20, 2400], [20, 2400], [40, 3000], [50, 1200], [50, 1200], [100, 400], [100, 400]]);
  const predicted = legend.find((l) => l.startsWith('h100') && l.endsWith('predicted'));
  assert.deepEqual(await seriesData('intvty', predicted), [[22, 2500], [55, 1300], [120, 450]]);
  const styles = await page.evaluate((p) => {
    const c = window.infermark.chart('intvty');
    return [c.data.datasets.find((d) => d.label === 'h100 · vllm · fp8').pointStyle,
      c.data.datasets.find((d) => d.label === p).pointStyle,
      c.data.datasets.filter((d) => d.type === 'line' && d.label.endsWith(' frontier')).length];
  }, predicted);
  assert.deepEqual(styles.slice(0, 2), ['circle', 'triangle']);
  assert.equal(styles[2], legend.length, 'one frontier line per series');
  assert.ok(await page.$('[data-filter="disagg"]'), 'the disaggregated filter shows when such points exist');
  assert.ok(await page.$('[data-filter="spec"]'), 'the speculative-decoding filter shows when such points exist');
  await shot('01-load.png');
});

test('repeats: error bars on every repeated point, a band around the frontiers built from them', async () => {
  const bars = await page.evaluate(() => {
    const c = window.infermark.chart('intvty');
    return { count: Number(c.canvas.dataset.errorBars), bars: c.$errorBars };
  });
  // The nightly vllm points of both GPUs, both nights: 3 concurrencies x 2 GPUs x 2 nights.
  assert.equal(bars.count, 12);
  // b200 conc 16 of night 2 (2400 tok/s/GPU at 50 tok/s/user, off the frontier): its bar spans its
  // repeats' interval (three repeats: min to max, ±5 %), drawn in its series' colour.
  const bar = await page.evaluate((spread) => {
    const c = window.infermark.chart('intvty');
    const i = c.data.datasets.findIndex((ds) => ds.label === 'b200 · vllm · fp8');
    const j = c.data.datasets[i].data.findIndex((d) => d.p.conc === 16 && d.p.tput_per_gpu === 2400);
    const point = c.data.datasets[i].data[j].p;
    const drawn = c.$errorBars.find((b) => b.id === point.id);
    const ys = c.scales.y;
    const ratio = c.currentDevicePixelRatio;
    const pixel = c.ctx.getImageData(Math.round(drawn.x * ratio), Math.round((drawn.top + 0.5) * ratio), 1, 1).data;
    return {
      top: drawn.top, bottom: drawn.bottom, expectedTop: ys.getPixelForValue(2400 * (1 + spread)),
      expectedBottom: ys.getPixelForValue(2400 * (1 - spread)), interval: point.intervals.tput_per_gpu,
      pixel: [pixel[0], pixel[1], pixel[2]], colour: c.data.datasets[i].borderColor,
    };
  }, REPEAT_SPREAD.b200);
  assert.ok(Math.abs(bar.top - bar.expectedTop) < 0.5, JSON.stringify(bar));
  assert.ok(Math.abs(bar.bottom - bar.expectedBottom) < 0.5, JSON.stringify(bar));
  assert.ok(Math.abs(bar.interval.low - 2280) < 1e-6 && Math.abs(bar.interval.high - 2520) < 1e-6, JSON.stringify(bar));
  assert.equal(bar.interval.confidence, 0.75);
  // Its cap (anti-aliased, 1.5 px) is nearer the series' colour than the white background.
  const hex = bar.colour.match(/^#(..)(..)(..)$/).slice(1).map((h) => parseInt(h, 16));
  const distance = (a, b) => Math.hypot(...a.map((v, k) => v - b[k]));
  assert.ok(distance(bar.pixel, hex) < distance(bar.pixel, [255, 255, 255]), `the bar's cap is drawn in ${bar.colour}: ${bar.pixel}`);
  // The band: the b200 frontier's upper and lower edges from its repeats' own frontiers.
  const band = await page.evaluate(() => {
    const c = window.infermark.chart('intvty');
    return c.data.datasets.filter((d) => d.label === 'b200 · vllm · fp8 frontier band').map((d) => d.data.length);
  });
  assert.equal(band.length, 2);
  assert.ok(band[0] >= 2 && band[0] === band[1], JSON.stringify(band));
  await shot('01b-repeats.png');
});

test('predicted frontier: drawn inside its model-error band, measured ones without', async () => {
  await page.goto(baseUrl);
  await idle();
  const bands = await page.evaluate(() => window.infermark.chart('intvty').data.datasets
    .filter((d) => d.label.endsWith(' predicted band')).map((d) => ({ label: d.label, fill: d.fill, data: d.data.map((p) => [p.x, p.y]) })));
  assert.equal(bands.length, 1, 'one band: the predicted series\'');
  assert.match(bands[0].label, /predicted band$/);
  assert.equal(bands[0].fill, 'shape');
  // The frontier's points (de-scaled) at their optimistic corners left to right, then their
  // pessimistic corners back, closed.
  const front = [[22, 2500], [55, 1300], [120, 450]];
  const b = PREDICTION_BAND;
  const good = front.map(([x, y]) => [x * b.intvty[1], y * b.tput[1]]);
  const bad = front.map(([x, y]) => [x * b.intvty[0], y * b.tput[0]]).reverse();
  const want = [...good, ...bad, good[0]];
  assert.equal(bands[0].data.length, want.length);
  bands[0].data.forEach(([x, y], i) => {
    assert.ok(Math.abs(x - want[i][0]) < 1e-9 && Math.abs(y - want[i][1]) < 1e-6, `corner ${i}: ${[x, y]} != ${want[i]}`);
  });
  const e2el = await page.evaluate(() => window.infermark.chart('e2el').data.datasets.filter((d) => d.label.endsWith(' predicted band')).length);
  assert.equal(e2el, 1);
  await shot('02-predicted-band.png');
});

test('filter: hardware h100 leaves its measured and predicted points; disaggregated alone leaves one', async () => {
  await setFilter('hardware', 'h100', true);
  assert.equal(await text('#point-count'), '10 points (7 measured, 3 predicted; 1 INVALID)');
  assert.match(page.url(), /[?&]hardware=h100(&|$)/);
  await shot('02-filter-h100.png');
  await page.select('[data-filter="disagg"] select', 'true');
  await idle();
  assert.equal(await text('#point-count'), '0 points (0 measured, 0 predicted)');
  assert.equal(await page.$eval('#empty', (e) => e.hidden), false);
  await setFilter('hardware', 'h100', false);
  assert.equal(await text('#point-count'), '1 points (1 measured, 0 predicted)');
  await page.select('[data-filter="disagg"] select', '');
  await idle();
  await setFilter('hardware', 'h100', true);
});

test('switch axes: output throughput per GPU', async () => {
  await page.select('#y-metric', 'output_tput_per_gpu');
  await idle();
  assert.deepEqual(await seriesData('intvty', 'h100 · vllm · fp8'),
    [[20, 1200], [20, 1200], [40, 1500], [50, 600], [50, 600], [100, 200], [100, 200]]);
  const titles = await page.evaluate(() => ['intvty', 'e2el'].map((n) => window.infermark.chart(n).options.scales.y.title.text));
  assert.deepEqual(titles, ['Output throughput per GPU (tok/s/GPU)', 'Output throughput per GPU (tok/s/GPU)']);
  assert.equal(await text('#title-e2el'), 'Output throughput per GPU vs median end-to-end latency');
  assert.match(page.url(), /[?&]y=output_tput_per_gpu(&|$)/);
  await shot('03-output-throughput.png');
});

test('hover: the tooltip shows the point and its provenance', async () => {
  const measured = await hover('intvty', 'h100 · vllm · fp8', 16);
  for (const want of ['h100 · vllm · fp8', 'conc 16', '600 tok/s/GPU', '50 tok/s/user', 'vllm/vllm-openai:v0.11.0',
    '--tensor-parallel-size 8 --max-num-seqs 64', 'gpu-node-07', '0.9.0-fixture', '1 (real time)']) {
    assert.ok(measured.includes(want), `tooltip lacks "${want}":\n${measured}`);
  }
  await shot('04-hover-measured.png');
  const predictedSeries = await page.evaluate(() => window.infermark.chart('intvty').data.datasets
    .find((d) => d.label.endsWith('predicted')).label);
  const predicted = await hover('intvty', predictedSeries, 64);
  for (const want of ['predicted', 'infermark-engine', '--hardware h100 --time-scale 2', 'ci-runner-3', '×2',
    'Model-error band p10–p90', `${PREDICTION_BAND.scope}, ${PREDICTION_BAND.residuals} residuals`]) {
    assert.ok(predicted.includes(want), `tooltip lacks "${want}":\n${predicted}`);
  }
  await shot('05-hover-predicted.png');
});

test('compare two GPUs: the iso-interactivity table', async () => {
  await setFilter('hardware', 'h100', false);
  await page.select('#y-metric', 'tput_per_gpu');
  await idle();
  await page.select('#h2h-a', 'h100');
  await idle();
  await page.select('#h2h-b', 'b200');
  await idle();
  await page.$eval('#h2h-at', (e) => { e.value = ''; });
  await page.type('#h2h-at', '20,50,100');
  await page.keyboard.press('Tab');
  await idle();
  const rows = await tableRows('#h2h-table');
  const h100 = rows.find((r) => r[0] === 'h100 · vllm · fp8');
  assert.deepEqual(h100, ['h100 · vllm · fp8', 'h100', '2400', '1200', '400']);
  const b200 = rows.find((r) => r[0] === 'b200 · vllm · fp8');
  assert.deepEqual(b200.slice(0, 4), ['b200 · vllm · fp8', 'b200', '–', '3000'], 'b200 starts at 25 tok/s/user');
  const ratio = rows.find((r) => r[0].startsWith('b200 / h100'));
  assert.deepEqual(ratio.slice(1, 3), ['–', '×2.50']);
  await page.$eval('#h2h', (e) => e.scrollIntoView());
  await shot('06-head-to-head.png');
});

test('history: the slower nightly run is flagged as a regression', async () => {
  await page.$eval('#hist-at', (e) => { e.value = ''; });
  await page.type('#hist-at', '50');
  await page.keyboard.press('Tab');
  await idle();
  const rows = await tableRows('#history-table');
  const b200 = rows.filter((r) => r[0] === 'b200 · vllm · fp8');
  assert.deepEqual(b200.map((r) => [r[1], r[3], r[5]]), [['2026-11-01', '3000', ''], ['2026-11-08', '2400', 'regression']]);
  assert.match(b200[1][4], /^-20\.0 %$/);
  const h100 = rows.filter((r) => r[0] === 'h100 · vllm · fp8');
  assert.deepEqual(h100.map((r) => [r[1], r[3], r[5]]), [['2026-11-01', '1200', ''], ['2026-11-08', '1200', '']]);
  const marks = await page.evaluate(() => {
    const c = window.infermark.chart('history');
    const d = c.data.datasets.find((ds) => ds.label === 'b200 · vllm · fp8');
    return d.pointStyle;
  });
  assert.deepEqual(marks, ['circle', 'crossRot']);
  await page.$eval('#history', (e) => e.scrollIntoView());
  await shot('07-history.png');
});

test('shared address: a new tab opens the same view', async () => {
  await page.select('#y-metric', 'cost_per_m_tokens');
  await idle();
  await setFilter('kind', 'measured', true);
  await page.click('.legend-item[data-series="h100 · vllm · fp8"]');
  assert.equal(await page.evaluate(() => window.infermark.chart('intvty').data.datasets
    .find((d) => d.label === 'h100 · vllm · fp8').hidden), true);
  const shared = page.url();
  const before = { count: await text('#point-count'), h2h: await tableRows('#h2h-table') };
  const other = await browser.newPage();
  await other.setViewport({ width: 1400, height: 1000 });
  await other.goto(shared);
  await other.waitForFunction(() => window.infermark && window.infermark.idle, { timeout: 15000 });
  assert.equal(await other.$eval('#y-metric', (e) => e.value), 'cost_per_m_tokens');
  assert.equal(await other.$eval('#h2h-a', (e) => e.value), 'h100');
  assert.equal(await other.$eval('#h2h-b', (e) => e.value), 'b200');
  assert.equal(await other.$eval('#h2h-at', (e) => e.value), '20,50,100');
  assert.equal(await other.$eval('details[data-filter="kind"] input[value="measured"]', (e) => e.checked), true);
  assert.equal(await other.$eval('#point-count', (e) => e.innerText), before.count);
  assert.equal(before.count, '14 points (14 measured, 0 predicted; 1 INVALID)');
  assert.deepEqual(await other.$$eval('#h2h-table tr', (rows) => rows.map((r) => [...r.children].map((c) => c.innerText.trim()))),
    before.h2h);
  assert.deepEqual(await other.$$eval('.legend-item.off', (items) => items.map((i) => i.innerText.trim())),
    ['h100 · vllm · fp8']);
  assert.equal(await other.evaluate(() => window.infermark.chart('intvty').data.datasets
    .find((d) => d.label === 'h100 · vllm · fp8').hidden), true);
  assert.equal(other.url(), shared);
  await other.screenshot({ path: path.join(screens, '08-shared-url.png'), fullPage: true });
  await other.close();
});

test('export: CSV of the filtered points with units, and a chart as PNG', async () => {
  await setFilter('hardware', 'h100', true);
  await page.click('#csv-export');
  const csv = fs.readFileSync(await waitForDownload('infermark-points.csv'), 'utf8').trim().split('\n');
  assert.match(csv[0], /tput_per_gpu \[tok\/s\/GPU\]/);
  const data = csv.filter((l) => l && !l.startsWith('#')).slice(1);
  assert.equal(data.length, 7, 'h100 measured points of both nightly runs, the INVALID one included');
  await page.click('button.png[data-chart="intvty"]');
  const png = fs.readFileSync(await waitForDownload('infermark-intvty.png'));
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  fs.copyFileSync(path.join(downloads, 'infermark-intvty.png'), path.join(screens, '09-exported-chart.png'));
});

test('agentic view: its own sequence, charted on E2E-normalized interactivity, users as concurrency', async () => {
  if (process.env.INFERMARK_DASHBOARD_MOCK === '1') return;
  await page.goto(baseUrl);
  await idle();
  assert.equal(await page.$eval('#agentic-note', (e) => e.hidden), true);
  await setFilter('sequence', '1k/1k', false);
  await setFilter('sequence', 'agentic', true);
  assert.equal(await text('#point-count'), `${AGENTIC_USERS.length} points (${AGENTIC_USERS.length} measured, 0 predicted)`);
  assert.equal(await page.$eval('#agentic-note', (e) => e.hidden), false);
  assert.equal(await page.evaluate(() => window.infermark.chart('intvty').options.scales.x.title.text),
    'P50 E2E-normalized interactivity (tok/s/user)');
  const series = await page.evaluate(() => window.infermark.chart('intvty').data.datasets.find((d) => d.type !== 'line').label);
  assert.equal(series, 'h100 · vllm · fp8 · kvnone');
  const tip = await hover('intvty', series, AGENTIC_USERS[0]);
  assert.ok(tip.includes(`agentic · users ${AGENTIC_USERS[0]}`), tip);
  await shot('10-agentic.png');
});

test('INVALID point: ringed in red with its reasons, off every frontier; the control hides it, the address keeps it', async () => {
  await page.goto(baseUrl);
  await idle();
  assert.equal(await text('#point-count'), '17 points (14 measured, 3 predicted; 1 INVALID)');
  assert.equal(await page.$eval('#show-invalid', (e) => e.checked), true);
  assert.equal(await page.$eval('#invalid-note', (e) => e.hidden), false);
  assert.match(await text('#invalid-note'), /1 point ringed in red/);
  const drawn = await page.evaluate(() => {
    const c = window.infermark.chart('intvty');
    const d = c.data.datasets.find((ds) => ds.label === 'h100 · vllm · fp8');
    const i = d.data.findIndex((p) => p.p.conc === 32);
    const front = c.data.datasets.find((ds) => ds.label === 'h100 · vllm · fp8 frontier');
    return { ring: d.pointBorderColor[i], fill: d.pointBackgroundColor[i], valid: d.data[i].p.valid,
      reasons: d.data[i].p.invalid_reasons, rings: d.pointBorderColor.filter((_, j) => j !== i),
      front: [...new Set(front.data.map((p) => JSON.stringify([p.x, p.y])))].map((t) => JSON.parse(t)) };
  });
  assert.equal(drawn.ring, '#c0182c');
  assert.match(drawn.fill, /^rgba\(.*, 0\.25\)$/, 'faded');
  assert.equal(drawn.valid, false);
  assert.deepEqual(drawn.reasons, INVALID_REASONS);
  assert.ok(drawn.rings.every((r) => r !== '#c0182c'), 'only the INVALID point is ringed');
  assert.deepEqual(drawn.front, [[20, 2400], [50, 1200], [100, 400]], 'the frontier (both nights alike) passes under the INVALID point');
  const tip = await hover('intvty', 'h100 · vllm · fp8', 32);
  assert.match(tip, /INVALID/);
  for (const reason of INVALID_REASONS) assert.ok(tip.includes(reason), `tooltip lacks "${reason}":\n${tip}`);
  await shot('12-invalid-marked.png');
  await page.mouse.move(1, 1);
  await page.click('#show-invalid');
  await idle();
  assert.equal(await text('#point-count'), '16 points (13 measured, 3 predicted)');
  assert.equal(await page.$eval('#invalid-note', (e) => e.hidden), true);
  assert.match(page.url(), /[?&]valid=true(&|$)/);
  assert.deepEqual(await seriesData('intvty', 'h100 · vllm · fp8'),
    [[20, 2400], [20, 2400], [50, 1200], [50, 1200], [100, 400], [100, 400]]);
  await shot('13-invalid-hidden.png');
  const other = await browser.newPage();
  await other.setViewport({ width: 1400, height: 1000 });
  await other.goto(page.url());
  await other.waitForFunction(() => window.infermark && window.infermark.idle, { timeout: 15000 });
  assert.equal(await other.$eval('#show-invalid', (e) => e.checked), false);
  assert.equal(await other.$eval('#point-count', (e) => e.innerText), '16 points (13 measured, 3 predicted)');
  await other.close();
  await page.click('#show-invalid');
  await idle();
  assert.doesNotMatch(page.url(), /valid=/);
  assert.equal(await text('#point-count'), '17 points (14 measured, 3 predicted; 1 INVALID)');
});

test('accuracy: evaluations with score, error bar, threshold and verdict; not-run and INVALID shown as such; linked from the points', async () => {
  if (process.env.INFERMARK_DASHBOARD_MOCK === '1') return;
  await page.goto(baseUrl);
  await idle();
  assert.equal(await text('#evaluations-count'), `${EVALUATIONS.length} evaluations`);
  const rows = await page.$$eval('#evaluations-table tbody tr', (trs) => trs.map((tr) => ({
    text: tr.innerText, verdict: tr.querySelector('td.verdict').innerText.trim(),
    dots: tr.querySelectorAll('circle.score').length, bars: tr.querySelectorAll('line.error-bar').length,
    thresholds: tr.querySelectorAll('line.threshold').length })));
  const verdicts = rows.map((r) => r.verdict).sort();
  assert.deepEqual(verdicts, ['FAIL', 'INVALID', 'NOT RUN', 'PASS']);
  for (const r of rows) {
    assert.equal(r.thresholds, 1, r.text);
    const scored = r.verdict === 'PASS' || r.verdict === 'FAIL';
    assert.equal(r.dots, scored ? 1 : 0, r.text);
    assert.equal(r.bars, scored ? 1 : 0, r.text);
    if (!scored) {
      assert.match(r.text, /no score/);
      assert.doesNotMatch(r.text, /\b0\.0000\b/, 'an evaluation without a score never shows 0');
    }
  }
  const pass = rows.find((r) => r.verdict === 'PASS');
  assert.match(pass.text, /0\.9431 ± 0\.0064/);
  assert.match(pass.text, /conc 64/);
  assert.match(rows.find((r) => r.verdict === 'FAIL').text, /gsm8k 0\.62 < 0\.91 \(dsr1\)/);
  assert.match(rows.find((r) => r.verdict === 'NOT RUN').text, /no weights/);
  const tip = await hover('intvty', 'h100 · vllm · fp8', 64);
  assert.ok(tip.includes('gsm8k PASS 0.9431 ± 0.0064'), tip);
  const linked = await page.evaluate(async () => {
    const body = await (await fetch('api/v1/points?hardware=b200&model=deepseek-ai%2FDeepSeek-R1-0528')).json();
    const p = body.points.find((x) => x.conc === 16 && x.framework === 'vllm');
    const evals = await (await fetch(p.evaluations_url)).json();
    return { ids: p.evaluations, evals: evals.evaluations.map((e) => [e.status, e.score, e.verdict]) };
  });
  assert.equal(linked.ids.length, 1);
  assert.deepEqual(linked.evals, [['invalid', null, 'INVALID']]);
  await page.$eval('#evaluations', (e) => e.scrollIntoView());
  await shot('14-evaluations.png');
});

test('token: the page passes its address\'s token to the API; without it the API\'s refusal is shown', async () => {
  if (process.env.INFERMARK_DASHBOARD_MOCK === '1') return;
  const { proc, url } = await startDashboard(binary, storePath, ['--token', 's3cret']);
  try {
    await page.goto(`${url}?token=s3cret`);
    await idle();
    assert.equal(await text('#point-count'), '17 points (14 measured, 3 predicted; 1 INVALID)');
    assert.equal(await page.$eval('#csv-export', (e) => new URL(e.href).searchParams.get('token')), 's3cret');
    await page.goto(url);
    await idle();
    const status = await text('#status');
    assert.match(status, /^meta: 401/, status);
    await shot('11-token-refused.png');
  } finally {
    proc.kill();
  }
});
