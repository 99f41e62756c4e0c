// A point's own page (/point/ID): what it is and where it came from, its verdict and each figure's
// host error, its request timeline and latency histograms, its GPUs' telemetry with statistics per
// field, agentic sessions over time, the evaluations of its configuration with their samples, its
// row's attempts and the ends of its logs. The page's controls (telemetry field, open samples and
// their filters) live in the address.

import { getJson, readJson, readJsonIfAny, setToken } from './api.js';
import { esc, num, withUnit } from './format.js';
import {
  drawHistograms, drawInFlight, drawSessions, drawTelemetry, drawTimeline, pointCharts, timelineRows,
} from './point_charts.js';
import { renderSamples } from './eval_samples.js';

performance.mark('infermark-point-start');

const id = (window.location.pathname.match(/\/point\/(\d+)\/?$/) || [])[1] || '';
const params = new URLSearchParams(window.location.search);
const state = {
  field: params.get('field') || 'power_w',
  samples: params.get('samples') || '',
  wrong: params.get('wrong') === '1',
  text: params.get('q') || '',
  offset: Number(params.get('offset')) || 0,
  token: params.get('token') || '',
};
setToken(state.token);

/// What the browser tests and the page benchmark read.
const hooks = {
  state, idle: false, page: null, timeline: null, telemetry: null, samples: null, charts: pointCharts,
  drawn: { timelineRows: 0, histograms: null, telemetryPoints: 0, sessions: false, inFlight: false }, errors: [],
  readyMs: null, pending: () => [...pending.values()].map((c) => c.name), drawAll,
};
window.infermark = hooks;

// Charts below the window wait until they come within NEAR_PX of it (a page of several screens
// need not draw what nobody scrolls to): canvas -> {name, draw}. drawAll() draws them at once
// (before printing).
const NEAR_PX = 200;
const pending = new Map();
const nearView = new IntersectionObserver((entries) => {
  for (const e of entries) if (e.isIntersecting) drawNow(e.target);
}, { rootMargin: `${NEAR_PX}px 0px` });

// The waiting draw of `canvas`, no longer waiting (null when none was).
function takePending(canvas) {
  const chart = pending.get(canvas);
  if (!chart) return null;
  pending.delete(canvas);
  nearView.unobserve(canvas);
  return chart;
}

function drawNow(canvas) {
  const chart = takePending(canvas);
  if (chart) chart.draw();
}

function drawAll() {
  for (const canvas of [...pending.keys()]) drawNow(canvas);
}
window.addEventListener('beforeprint', drawAll);

// Draws chart `name` now when its canvas is in or near the window (`inView`), else once it comes near.
function drawWhenSeen(name, draw, inView) {
  const canvas = document.getElementById(`chart-${name}`);
  if (inView) {
    draw();
    return;
  }
  pending.set(canvas, { name, draw });
  nearView.observe(canvas);
}

function setStatus(text, isError = false) {
  const el = document.getElementById('status');
  el.textContent = text;
  el.classList.toggle('error', isError);
  if (isError) hooks.errors.push(text);
}

function tokenSuffix() {
  return state.token ? `?token=${encodeURIComponent(state.token)}` : '';
}

function writeUrl() {
  const p = new URLSearchParams();
  if (state.field !== 'power_w') p.set('field', state.field);
  if (state.samples) p.set('samples', state.samples);
  if (state.samples && state.wrong) p.set('wrong', '1');
  if (state.samples && state.text) p.set('q', state.text);
  if (state.samples && state.offset) p.set('offset', String(state.offset));
  if (state.token) p.set('token', state.token);
  const query = p.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}`);
}

function kv(tableId, rows) {
  document.getElementById(tableId).innerHTML =
    rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td class="wrap">${v}</td></tr>`).join('');
}

function deployment(p) {
  if (p.disagg || p.prefill_gpus) return `disaggregated: ${p.prefill_gpus ?? '?'} prefill + ${p.decode_gpus ?? '?'} decode GPUs`;
  const parts = [`tp${p.tp ?? '?'}`];
  if (p.ep && p.ep !== 1) parts.push(`ep${p.ep}`);
  if (p.dp_attn) parts.push('dp-attn');
  if (p.spec_decoding && p.spec_decoding !== 'none') parts.push(`spec ${p.spec_decoding}`);
  return `${parts.join(' · ')} · ${p.num_gpus} GPUs`;
}

function renderSummary(page) {
  const p = page.point;
  document.title = `infermark · ${p.series} · conc ${p.conc}`;
  document.getElementById('point-title').textContent = `${p.series} · ${p.sequence} · ${p.agentic ? 'users' : 'conc'} ${p.conc}`;
  const home = document.getElementById('home-link');
  home.href = `./?model=${encodeURIComponent(p.model)}&sequence=${encodeURIComponent(p.sequence)}${state.token ? `&token=${encodeURIComponent(state.token)}` : ''}`;
  const badge = document.getElementById('verdict-badge');
  const v = page.verdict;
  badge.textContent = v.verdict || 'no verdict';
  badge.className = `badge ${v.valid ? 'valid' : 'invalid'}`;
  const curve = page.curve.map((s) => (String(s.id) === String(p.id)
    ? `<strong>${s.conc}</strong>`
    : `<a href="point/${s.id}${tokenSuffix()}" class="${s.valid ? '' : 'invalid-link'}" title="${num(s.tput_per_gpu)} tok/s/GPU at ${num(s.interactivity)} tok/s/user">${s.conc}</a>`)).join(' ');
  document.getElementById('summary').innerHTML = `<h2>${esc(p.model)} · ${esc(p.sequence)} · ${esc(p.kind)}</h2>
    <table class="kv">
    <tr><th>Deployment</th><td>${esc(p.hardware)} · ${esc(p.framework)} · ${esc(p.precision)} · ${esc(deployment(p))}</td></tr>
    <tr><th>Throughput per GPU</th><td>${esc(withUnit(p.tput_per_gpu, 'tok/s/GPU'))} (output ${esc(withUnit(p.output_tput_per_gpu, 'tok/s/GPU'))}, input ${esc(withUnit(p.input_tput_per_gpu, 'tok/s/GPU'))})</td></tr>
    <tr><th>Interactivity</th><td>${esc(withUnit(p.interactivity, 'tok/s/user'))} median · ${esc(withUnit(p.p90_interactivity, 'tok/s/user'))} p90 · ${esc(withUnit(p.p99_interactivity, 'tok/s/user'))} p99</td></tr>
    <tr><th>TTFT</th><td>${esc(withUnit(p.ttft_ms, 'ms'))} median · ${esc(withUnit(p.p90_ttft_ms, 'ms'))} p90 · ${esc(withUnit(p.p99_ttft_ms, 'ms'))} p99</td></tr>
    <tr><th>E2E latency</th><td>${esc(withUnit(p.e2el_s, 's'))} median · ${esc(withUnit(p.p90_e2el_s, 's'))} p90 · ${esc(withUnit(p.p99_e2el_s, 's'))} p99</td></tr>
    <tr><th>Power</th><td>${p.power_valid === true ? esc(`${withUnit(p.w_per_gpu, 'W/GPU')} · ${withUnit(p.j_per_token, 'J/token')}`) : p.power_valid === false ? `invalid: ${esc(p.power_invalid_reasons.join(', '))}` : 'not measured'}</td></tr>
    <tr><th>Run</th><td>${esc(p.run_label)} · ${esc(p.date)}</td></tr>
    <tr><th>Curve (${p.agentic ? 'users' : 'concurrency'})</th><td class="curve">${curve}</td></tr></table>`;
}

function renderFigures(page) {
  const v = page.verdict;
  document.getElementById('verdict-text').innerHTML = v.valid
    ? `<strong>${esc(v.verdict || 'no verdict')}</strong>${v.verdict ? '' : ' (the source gave none, which is not INVALID)'}`
    : `<strong class="error">INVALID</strong>: ${esc(v.reasons.join('; '))}`;
  const kind = page.host_error_kind;
  document.getElementById('host-error-note').textContent = kind === 'exact'
    ? 'Host error: what the host (not the modelled GPU) added to each figure, exact against the built-in engine\'s ideal timeline.'
    : kind === 'client'
      ? 'Host error: the client\'s own share of each figure (another server\'s timeline is not known).'
      : 'This result states no host error.';
  const rows = page.figures.map((f) => {
    const e = f.host_error;
    const flagged = f.mark ? ` class="${f.mark.headline ? 'mark-headline' : 'mark-tail'}" title="${esc(f.mark.cause || '')}"` : '';
    return `<tr${flagged} data-key="${esc(f.key)}"><th>${esc(f.label)}</th><td class="num">${esc(num(f.value))}</td><td>${esc(f.unit)}</td>`
      + `<td class="num">${e && e.abs !== null ? esc(num(e.abs)) : '–'}</td>`
      + `<td class="num">${e && e.rel !== null ? `${(e.rel * 100).toFixed(2)} %` : '–'}</td>`
      + `<td>${f.mark ? (f.mark.headline ? 'over tolerance (headline: INVALID)' : 'over tolerance (tail)') : ''}</td></tr>`;
  }).join('');
  document.getElementById('figures-table').innerHTML = '<thead><tr><th>Figure</th><th class="num">Value</th><th>Unit</th>'
    + `<th class="num">Host error</th><th class="num">Relative</th><th>Mark</th></tr></thead><tbody>${rows}</tbody>`;
}

function renderProvenance(page) {
  const v = page.provenance;
  const scale = v.time_scale && v.time_scale !== 1 ? `×${num(v.time_scale)} (figures de-scaled)` : '1 (real time)';
  kv('provenance-table', [
    ['Run', esc(`${v.run_label} (${v.run_key}, ${v.source})`)],
    ['Recipe', esc(v.config_key || '–')],
    ['Image', esc(v.image || '–')],
    ['Server flags', esc(v.flags || '–')],
    ['Host', esc(v.host || '–')],
    ['infermark', esc(`${v.infermark_version || '–'} (${v.git_commit || 'commit unknown'}), metrics v${v.metrics_version || '?'}`)],
    ['Time scale', esc(scale)],
    ['Benchmark', esc(`${v.started_at || '?'} → ${v.ended_at || '?'}`)],
    ['Stored', esc(v.created_at)],
    ['Result file', esc(`${v.source_path || '–'} (sha256 ${v.raw_sha256.slice(0, 16)}…)`)],
    ['Matrix row', `<details><summary>show</summary><pre class="log">${esc(JSON.stringify(v.matrix_row, null, 1))}</pre></details>`],
  ]);
}

function renderAttempts(page) {
  const rows = page.attempts.map((a) => `<tr class="outcome-${esc(a.outcome)}"><td class="num">${a.attempt}</td><td>${esc(a.outcome)}</td>`
    + `<td>${esc(a.failure_class || '–')}</td><td>${esc(a.started_at)}</td><td class="num">${a.duration_s === null ? '–' : num(a.duration_s)}</td>`
    + `<td class="wrap">${esc(a.reason)}</td><td><a href="reliability?attempt=${a.id}${state.token ? `&token=${encodeURIComponent(state.token)}` : ''}">details</a></td></tr>`).join('');
  document.getElementById('attempts-table').innerHTML = '<thead><tr><th>#</th><th>Outcome</th><th>Class</th><th>Started</th>'
    + `<th class="num">s</th><th>Reason</th><th></th></tr></thead><tbody>${rows || '<tr><td colspan="7" class="muted">No attempts recorded (the point was ingested from files).</td></tr>'}</tbody>`;
}

function renderEvaluations(page) {
  const rows = page.evaluations.map((e) => `<tr data-evaluation="${e.id}"><td>${esc(e.task)}</td><td>${esc(e.verdict)}</td>`
    + `<td class="num">${e.score === null ? '–' : `${e.score.toFixed(4)}${e.stderr === null ? '' : ` ± ${e.stderr.toFixed(4)}`}`}</td>`
    + `<td class="num">${e.threshold === null ? '–' : e.threshold}</td><td class="num">${e.n ?? '–'}</td><td>${esc(e.run_label)}</td>`
    + `<td><button type="button" class="open-samples" data-id="${e.id}">samples</button></td></tr>`).join('');
  document.getElementById('point-evaluations').innerHTML = '<thead><tr><th>Task</th><th>Verdict</th><th class="num">Score</th>'
    + `<th class="num">Threshold</th><th class="num">n</th><th>Run</th><th></th></tr></thead><tbody>${rows || '<tr><td colspan="7" class="muted">No evaluation of this configuration.</td></tr>'}</tbody>`;
}

async function showSamples(change) {
  Object.assign(state, change || {});
  writeUrl();
  hooks.idle = false;
  try {
    hooks.samples = await renderSamples(state, hooks.page.evaluations, (c) => showSamples(c));
  } catch (e) {
    setStatus(e.message, true);
  }
  hooks.idle = true;
}

// The telemetry fields whose series the page holds (a reply carries the series of the fields it
// was asked for, and every field's statistics).
const seriesHeld = new Set();

// The telemetry reply with field `field`'s series, at the samples per chip point.html asks for.
function telemetryOf(field) {
  const params = new URLSearchParams({ points: String(window.infermarkRequests.telemetrySamples), fields: field });
  return getJson(`points/${id}/telemetry`, params);
}

/// Asks for field `field`'s series when the page lacks it and adds it to `body`.
async function holdSeries(body, field) {
  if (seriesHeld.has(field)) return;
  const more = await telemetryOf(field);
  more.gpus.forEach((g, i) => {
    if (body.gpus[i] && g.values[field]) body.gpus[i].values[field] = g.values[field];
  });
  seriesHeld.add(field);
}

// The field the telemetry chart shows: the address's, else the first the point has.
function shownField(body) {
  return body.fields.some((f) => f.key === state.field) || !body.fields.length ? state.field : body.fields[0].key;
}

// The telemetry's field choice, sample count and statistics table (the chart is drawn apart, after
// every table of the page is written).
function renderTelemetry(body) {
  const select = document.getElementById('telemetry-field');
  state.field = shownField(body);
  select.innerHTML = body.fields.map((f) => `<option value="${esc(f.key)}">${esc(f.label)} (${esc(f.unit)})</option>`).join('');
  select.value = state.field;
  document.getElementById('telemetry-count').textContent =
    `${body.gpus.length} GPU${body.gpus.length === 1 ? '' : 's'} · ${body.gpus.reduce((n, g) => n + g.samples, 0)} samples`;
  const stats = ['min', 'max', 'mean', 'median', 'p95', 'p99', 'std'];
  const rows = [];
  for (const f of body.fields) {
    for (const g of body.gpus) {
      const s = g.stats[f.key];
      if (!s) continue;
      rows.push(`<tr data-field="${esc(f.key)}" data-gpu="${esc(g.gpu)}"><th>${esc(f.label)}</th><td>${esc(g.host ? `${g.host} ` : '')}GPU ${esc(g.gpu)}</td>`
        + `${stats.map((k) => `<td class="num">${s[k] === null ? '–' : esc(num(s[k]))}</td>`).join('')}<td class="num">${s.n}</td><td>${esc(f.unit)}</td></tr>`);
    }
  }
  document.getElementById('telemetry-stats').innerHTML = `<thead><tr><th>Field</th><th>GPU</th>${stats.map((k) => `<th class="num">${k}</th>`).join('')}`
    + `<th class="num">n</th><th>Unit</th></tr></thead><tbody>${rows.join('')}</tbody>`;
  if (!select.dataset.wired) {
    select.dataset.wired = '1';
    select.addEventListener('change', async () => {
      state.field = select.value;
      writeUrl();
      hooks.idle = false;
      try {
        await holdSeries(body, state.field);
        takePending(document.getElementById('chart-telemetry'));
        hooks.drawn.telemetryPoints = drawTelemetry(body, state.field);
      } catch (e) {
        setStatus(e.message, true);
      }
      hooks.idle = true;
    });
  }
}

// The telemetry reply point.html asked for; an unknown field in the address (400 naming `fields`)
// falls back to the first field's series.
async function firstTelemetry(sent) {
  try {
    const body = await readJsonIfAny(`points/${id}/telemetry`, sent.telemetry);
    seriesHeld.add(sent.field);
    return body;
  } catch (e) {
    if (!/: 400 \(fields\)/.test(e.message)) throw e;
    const body = await telemetryOf('power_w');
    seriesHeld.add('power_w');
    return body;
  }
}

// Chart.js runs after this module (point.html): resolved once its script has run (or failed to load:
// the charts are then left undrawn).
function chartLibrary() {
  const script = document.querySelector('script[src$="chart.umd.min.js"]');
  if (window.Chart || !script) return Promise.resolve();
  return new Promise((resolve) => {
    script.addEventListener('load', resolve, { once: true });
    script.addEventListener('error', resolve, { once: true });
  });
}

async function boot() {
  if (!id) {
    setStatus('no point id in the address', true);
    hooks.idle = true;
    return;
  }
  // Sent by point.html as the page started (a 404 of the timeline or telemetry: none stored).
  const sent = window.infermarkRequests;
  const timeline = readJsonIfAny(`points/${id}/timeline`, sent.timeline);
  const telemetry = firstTelemetry(sent);
  let page;
  try {
    page = await readJson(`points/${id}`, sent.page);
  } catch (e) {
    timeline.catch(() => null);
    telemetry.catch(() => null);
    setStatus(e.message, true);
    hooks.idle = true;
    return;
  }
  hooks.page = page;
  renderSummary(page);
  renderFigures(page);
  renderProvenance(page);
  renderAttempts(page);
  renderEvaluations(page);
  document.getElementById('server-log').textContent = page.logs.server || '(none kept)';
  document.getElementById('client-log').textContent = page.logs.client || '(none kept)';
  document.getElementById('point-evaluations').addEventListener('click', (e) => {
    const b = e.target.closest('button.open-samples');
    if (b) showSamples({ samples: b.dataset.id, offset: 0 });
  });
  if (page.agentic) {
    document.getElementById('agentic').hidden = false;
    kv('agentic-table', Object.entries(page.agentic).map(([k, v]) => [k.replaceAll('_', ' '), esc(v === null ? '–' : typeof v === 'number' ? num(v) : v)]));
  }
  // Every reply first, then the tables they fill, then the charts in or near the window in the same
  // task: the browser lays the page out and paints it once, not once per reply.
  const [tl, tm, samples] = await Promise.allSettled([
    page.timeline_url ? timeline : timeline.catch(() => null).then(() => null),
    page.telemetry_url ? telemetry.then(async (t) => {
      if (t) await holdSeries(t, shownField(t));
      return t;
    }) : telemetry.catch(() => null).then(() => null),
    state.samples ? renderSamples(state, page.evaluations, (c) => showSamples(c)) : null,
    chartLibrary(),
  ]);
  const failures = [tl, tm, samples].filter((r) => r.status === 'rejected').map((r) => r.reason.message);
  const t = tl.status === 'fulfilled' ? tl.value : null;
  const telemetryBody = tm.status === 'fulfilled' ? tm.value : null;
  if (samples.status === 'fulfilled') hooks.samples = samples.value;
  if (t) {
    hooks.timeline = t;
  } else if (!page.timeline_url) {
    document.getElementById('timeline-count').textContent = '(this point\'s row kept no request timeline)';
    document.getElementById('histograms').hidden = true;
  }
  if (telemetryBody) {
    hooks.telemetry = telemetryBody;
    renderTelemetry(telemetryBody);
  } else if (!page.telemetry_url) {
    document.getElementById('telemetry-count').textContent = '(no GPU telemetry was sampled for this row)';
    document.getElementById('telemetry-field').disabled = true;
  }
  // Every chart's place is read before any is drawn (one layout), then each drawn now or when near.
  const charts = [];
  if (t) {
    const rows = timelineRows(t).length;
    document.getElementById('timeline-count').textContent = `${t.shown} of ${t.requests} requests`
      + `${t.stride > 1 ? ` (every ${t.stride}th kept)` : ''}${rows < t.shown ? `, ${rows} drawn` : ''}`
      + `${t.time_scale !== 1 ? ` · de-scaled ×${num(t.time_scale)}` : ''}`;
    charts.push(['timeline', () => { hooks.drawn.timelineRows = drawTimeline(t); }]);
    charts.push(['over-time', () => { hooks.drawn.inFlight = drawInFlight(t); }]);
    charts.push(['ttft-hist', () => { hooks.drawn.histograms = drawHistograms(t); }]);
    if (page.agentic) charts.push(['sessions', () => { hooks.drawn.sessions = drawSessions(t.over_time); }]);
  }
  if (telemetryBody) charts.push(['telemetry', () => { hooks.drawn.telemetryPoints = drawTelemetry(telemetryBody, state.field); }]);
  const inView = charts.map(([name]) => {
    const box = document.getElementById(`chart-${name}`).getBoundingClientRect();
    return box.top < window.innerHeight + NEAR_PX && box.bottom > -NEAR_PX;
  });
  charts.forEach(([name, draw], i) => drawWhenSeen(name, draw, inView[i]));
  setStatus(failures.join('; '), failures.length > 0);
  performance.mark('infermark-point-ready');
  hooks.readyMs = performance.getEntriesByName('infermark-point-ready')[0].startTime;
  hooks.idle = true;
}

boot();
