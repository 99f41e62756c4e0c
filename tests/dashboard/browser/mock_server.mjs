// A stand-in for `infermark dashboard` while developing the page: serves the page's assets and
// the API (v1) over the fixture's points, with the API's shapes and a simplified frontier and
// interpolation (upper-left frontier, linear between its knots). Usage: node mock_server.mjs [PORT]

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INVALID_REASONS, MODEL, PREDICTED_PROVENANCE, PREDICTION_BAND, PROVENANCE, RUNS } from './fixture.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const assets = path.join(root, 'src/dashboard/assets');

function points() {
  const out = [];
  RUNS.forEach((run, r) => run.points.forEach((p) => {
    const scale = run.timeScale || 1;
    const prov = run.predicted ? PREDICTED_PROVENANCE : PROVENANCE;
    const framework = p.framework || 'vllm';
    const precision = p.precision || 'fp8';
    const tput = p.tput / scale;
    out.push({
      id: out.length + 1, run_id: r + 1, run_label: run.label,
      series: `${p.hw} · ${framework} · ${precision}${p.spec ? ` · ${p.spec}` : ''}${p.disagg ? ' · 1P1D' : ''}${run.predicted ? ' · predicted' : ''}`,
      model: MODEL, hardware: p.hw, framework, precision, isl: 1024, osl: 1024, agentic: false, conc: p.conc, tp: 8,
      ep: 1, dp_attn: false, disagg: Boolean(p.disagg), prefill_gpus: null, decode_gpus: null,
      spec_decoding: p.spec || 'none', num_gpus: 8, kind: run.predicted ? 'predicted' : 'measured', date: run.date,
      tput_per_gpu: tput, input_tput_per_gpu: tput / 2, output_tput_per_gpu: tput / 2, interactivity: p.intvty / scale,
      e2el_s: (0.2 + 1024 / p.intvty) * scale, ttft_ms: 200 * scale, tpot_ms: (1000 / p.intvty) * scale,
      w_per_gpu: null, j_per_token: null, cost_per_m_tokens: 2.5e6 / (3600 * tput / 2),
      valid: !p.invalid, verdict: p.invalid ? 'INVALID' : null, invalid_reasons: p.invalid ? INVALID_REASONS : [],
      power_valid: null, power_invalid_reasons: [], repeats: 1, repeat_server: null, intervals: null,
      prediction_band: run.predicted ? mockBand(tput, p.intvty / scale, (0.2 + 1024 / p.intvty) * scale) : null,
      provenance: { image: prov.image, flags: prov.engine_flags, host: prov.host,
        infermark_version: prov.infermark_version, time_scale: scale, created_at: `${run.date}T03:00:00Z`, source: 'ingest' },
    });
  }));
  return out;
}

// A predicted point's bands in the API's units (the fixture's factors on its de-scaled figures).
function mockBand(tput, intvty, e2el) {
  const b = PREDICTION_BAND;
  const band = (v, [low, high]) => ({ band_p10: v * low, band_p90: v * high });
  return { scope: b.scope, residuals: b.residuals, tput_per_gpu: band(tput, b.tput), interactivity: band(intvty, b.intvty),
    e2el_s: band(e2el, b.e2el) };
}

function filtered(q) {
  const list = (k) => q.getAll(k).flatMap((v) => v.split(',')).filter(Boolean);
  const match = (k, v) => !list(k).length || list(k).includes(String(v));
  return points().filter((p) => match('model', p.model) && match('hardware', p.hardware) && match('framework', p.framework)
    && match('precision', p.precision) && match('kind', p.kind) && match('run', p.run_id)
    && match('sequence', '1k/1k') && (!q.get('disagg') || String(p.disagg) === q.get('disagg'))
    && (!q.get('valid') || String(p.valid) === q.get('valid')));
}

// INVALID points never enter a frontier (nor, through it, the iso and history routes).
function frontier(list, y, x) {
  const series = new Map();
  for (const p of list) if (p[y] !== null && p.valid) (series.get(p.series) || series.set(p.series, []).get(p.series)).push(p);
  return [...series].map(([name, ps]) => {
    const better = x === 'e2el_s' ? (a, b) => a[x] <= b[x] : (a, b) => a[x] >= b[x];
    const front = ps.filter((p) => !ps.some((o) => o !== p && better(o, p) && o[y] >= p[y] && (o[x] !== p[x] || o[y] !== p[y])));
    front.sort((a, b) => a[x] - b[x]);
    const entry = { series: name, repeats: 0, points: front.map((p) => ({ x: p[x], y: p[y], id: p.id, band: null })) };
    // A predicted frontier's band: each point's optimistic and pessimistic corners (throughput only).
    if (front.every((p) => p.prediction_band && p.prediction_band[y])) {
      const hi = x === 'e2el_s' ? 'band_p10' : 'band_p90';
      const lo = x === 'e2el_s' ? 'band_p90' : 'band_p10';
      const corner = (p, xe, ye) => ({ x: p.prediction_band[x][xe], y: p.prediction_band[y][ye] });
      entry.band = { optimistic: front.map((p) => corner(p, hi, 'band_p90')), pessimistic: front.map((p) => corner(p, lo, 'band_p10')) };
    }
    return entry;
  });
}

function at(front, x) {
  const k = front.points;
  if (!k.length || x < k[0].x || x > k[k.length - 1].x) return null;
  for (let i = 0; i + 1 < k.length; i++) {
    if (x >= k[i].x && x <= k[i + 1].x) return k[i].y + ((k[i + 1].y - k[i].y) * (x - k[i].x)) / (k[i + 1].x - k[i].x || 1);
  }
  return k[k.length - 1].y;
}

function api(route, q) {
  const y = q.get('y') || 'tput_per_gpu';
  if (route === 'meta') {
    return { api_version: 1, infermark_version: 'mock', store: { kind: 'sqlite', schema_version: 0, runs: RUNS.length, points: points().length },
      filters: { model: [MODEL], hardware: ['b200', 'h100'], framework: ['sglang', 'vllm'], precision: ['fp4', 'fp8'],
        sequence: ['1k/1k'], kind: ['measured', 'predicted'],
        run: RUNS.map((r, i) => ({ id: i + 1, key: r.key, label: r.label, created_at: `${r.date}T03:00:00Z` })) },
      axes: { x: [], y: [] } };
  }
  if (route === 'points') { const p = filtered(q); return { count: p.length, points: p }; }
  // The mock serves no evaluations (the browser test's accuracy checks need the real server).
  if (route === 'evaluations') return { count: 0, evaluations: [] };
  if (route === 'frontier') return { series: frontier(filtered(q), y, q.get('x') || 'interactivity') };
  const targets = (q.get('interactivity') || '50').split(',').map(Number);
  if (route === 'iso') {
    return { rows: frontier(filtered(q), y, 'interactivity').map((f) => ({ series: f.series, hardware: f.series.split(' · ')[0],
      values: targets.map((t) => ({ interactivity: t, y: at(f, t) })) })) };
  }
  if (route === 'history') {
    const byRun = new Map();
    for (const p of filtered(q)) (byRun.get(p.run_id) || byRun.set(p.run_id, []).get(p.run_id)).push(p);
    const series = new Map();
    for (const [runId, ps] of byRun) {
      for (const f of frontier(ps, y, 'interactivity')) {
        const v = at(f, targets[0]);
        if (v === null) continue;
        const list = series.get(f.series) || series.set(f.series, []).get(f.series);
        const prev = list.length ? list[list.length - 1].y : null;
        const change = prev ? ((v - prev) / prev) * 100 : null;
        // Simplified: a fixed 5 % (the real route tests the change against the noise).
        const regression = change !== null && change < -5;
        list.push({ date: ps[0].date, run_id: runId, y: v, regression, status: change === null ? null : regression ? 'regression' : 'unchanged',
          evidence: change === null ? null : 'mock: fixed 5 %', change_pct: change });
      }
    }
    return { series: [...series].map(([name, dates]) => ({ series: name, dates })) };
  }
  return null;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const m = url.pathname.match(/^\/api\/v1\/([a-z.]+)$/);
  if (m && m[1] === 'export.csv') {
    const rows = filtered(url.searchParams).map((p) => `${p.id},${p.hardware},${p.conc},${p.tput_per_gpu}`);
    res.writeHead(200, { 'Content-Type': 'text/csv' });
    res.end(`id,hardware,conc,tput_per_gpu [tok/s/GPU]\n${rows.join('\n')}\n`);
    return;
  }
  if (m) {
    const body = api(m[1], url.searchParams);
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body || { error: { status: 404, field: '', message: 'unknown route' } }));
    return;
  }
  let file = url.pathname === '/' ? path.join(assets, 'index.html') : null;
  const a = url.pathname.match(/^\/assets\/([\w.-]+)$/);
  if (a) {
    const vendored = fs.readFileSync(path.join(assets, 'VENDORED'), 'utf8').split('\n').filter(Boolean)
      .find((v) => path.basename(v) === a[1]);
    file = vendored ? path.join(root, vendored) : path.join(assets, a[1]);
  }
  if (!file || !fs.existsSync(file)) { res.writeHead(404); res.end('not found'); return; }
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
  res.end(fs.readFileSync(file));
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/`));
