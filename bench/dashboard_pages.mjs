// Opens every page of a store in headless Chromium: the reliability view, then each point's own
// page with every chart drawn (those below the window included) and, where the point's
// configuration has evaluations, the first one's samples. Prints one row per page (ready time, what
// it drew, the errors it showed) and the reliability view's counts, and exits 1 when any page
// showed an error or failed to become ready.
//
// Usage: node bench/dashboard_pages.mjs --db STORE [--binary build/src/cli/infermark] [--limit N]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDashboard } from '../tests/dashboard/browser/dashboard_server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({ options: {
  binary: { type: 'string', default: path.join(root, 'build/src/cli/infermark') },
  db: { type: 'string' },
  limit: { type: 'string', default: '0' },
} });
if (!opt.db || !fs.existsSync(opt.db)) {
  console.error(`dashboard_pages: --db STORE: ${opt.db ? `no file ${opt.db}` : 'required'}`);
  process.exit(2);
}
const { default: puppeteer } = await import(
  path.join(root, 'tools/dashboard/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js'));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'infermark-pages-'));
const { proc: server, url } = await startDashboard(opt.binary, opt.db);
const browser = await puppeteer.launch({ executablePath: process.env.INFERMARK_CHROMIUM || '/usr/bin/chromium',
  headless: true, args: ['--no-sandbox', '--disable-gpu', `--user-data-dir=${path.join(work, 'profile')}`] });
let failed = 0;
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const idle = () => page.waitForFunction(() => window.infermark && window.infermark.idle, { timeout: 20000 });

  await page.goto(`${url}reliability?window=all`);
  await idle();
  const reliability = await (await fetch(`${url}api/v1/reliability`)).json();
  const viewErrors = await page.evaluate(() => window.infermark.errors);
  const listed = await page.$$eval('#rel-failures tbody tr', (trs) => trs.map((r) => r.innerText.replace(/\s+/g, ' ').trim()));
  console.log(`reliability, all time: ${JSON.stringify(reliability.total.all)}; errors shown: ${viewErrors.length ? viewErrors.join('; ') : 'none'}`);
  for (const line of listed) console.log(`  listed: ${line}`);
  if (viewErrors.length) failed += 1;

  let points = (await (await fetch(`${url}api/v1/points`)).json()).points;
  if (Number(opt.limit) > 0) points = points.slice(0, Number(opt.limit));
  console.log('point | series · sequence · conc | kind | ready (ms) | timeline rows | GPUs sampled | evaluations (samples) | errors');
  console.log('------|---------------------------|------|------------|---------------|--------------|-----------------------|-------');
  for (const p of points) {
    pageErrors.length = 0;
    let row;
    try {
      await page.goto(`${url}point/${p.id}`);
      await idle();
      await page.evaluate(() => window.infermark.drawAll());
      const got = await page.evaluate(() => ({
        ready: window.infermark.readyMs, drawn: window.infermark.drawn, errors: window.infermark.errors,
        gpus: window.infermark.telemetry ? window.infermark.telemetry.gpus.length : 0,
        evaluations: window.infermark.page.evaluations.length,
      }));
      let samples = '–';
      if (got.evaluations) {
        await page.click('button.open-samples');
        await idle();
        samples = String(await page.$$eval('#samples-table tbody tr[data-doc]', (trs) => trs.length));
        got.errors.push(...await page.evaluate(() => window.infermark.errors));
      }
      const errors = [...new Set([...got.errors, ...pageErrors])];
      if (errors.length) failed += 1;
      row = [got.ready.toFixed(0), got.drawn.timelineRows, got.gpus, got.evaluations ? `${got.evaluations} (${samples})` : '0',
        errors.length ? errors.join('; ') : 'none'];
    } catch (e) {
      failed += 1;
      row = ['–', '–', '–', '–', e.message.split('\n')[0]];
    }
    console.log(`${p.id} | ${p.series} · ${p.sequence} · ${p.conc} | ${p.kind} | ${row.join(' | ')}`);
  }
  console.log(`${points.length} point pages opened, ${failed} with an error`);
} finally {
  await browser.close();
  server.kill();
  fs.rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
