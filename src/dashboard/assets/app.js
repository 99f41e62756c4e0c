// The dashboard page: reads the API's meta, restores the view from the address, and redraws the
// charts, the head-to-head table and the history whenever a control changes. The state is written
// back to the address, so the address shares the view.

import { csvUrl, getJson, setToken } from './api.js';
import { chart, exportPng, renderCharts } from './charts.js';
import { renderEvaluations } from './evaluations.js';
import { closeMenus, renderFilters } from './filters.js';
import { esc, userFigure, xAxesFor, Y_METRICS, yMetric } from './format.js';
import { renderHeadToHead, renderPickers } from './head_to_head.js';
import { renderHistory, setRuns } from './history.js';
import { filterQuery, parseState, stateQuery } from './state.js';
import { hostErrorMarked } from './charts.js';
import { renderUserValues } from './user_values.js';

performance.mark('infermark-start');

const state = parseState(window.location.search);
setToken(state.token);
const present = { disagg: false, spec: false, specMethods: [] };
let meta = null;
let points = [];
let frontiers = { intvty: [], e2el: [] };
let generation = 0;

/// What the browser tests and the page benchmark read: the state, the charts, whether the page
/// is idle (every view drawn for the current state), and the times (ms from navigation start) to
/// the first points and frontiers received and to the first chart render.
const hooks = { state, chart, idle: false, renders: 0, firstDataMs: null, firstChartMs: null, errors: [] };
window.infermark = hooks;

function setStatus(text, isError = false) {
  const el = document.getElementById('status');
  el.textContent = text;
  el.classList.toggle('error', isError);
  if (isError) hooks.errors.push(text);
}

function writeUrl() {
  const query = stateQuery(state);
  const url = `${window.location.pathname}${query ? `?${query}` : ''}`;
  if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(null, '', url);
}

function notePresence(list) {
  let changed = false;
  for (const p of list) {
    if (p.disagg && !present.disagg) present.disagg = changed = true;
    const spec = p.spec_decoding;
    if (spec && spec !== 'none') {
      if (!present.spec) present.spec = changed = true;
      if (!present.specMethods.includes(spec)) {
        present.specMethods.push(spec);
        changed = true;
      }
    }
  }
  return changed;
}

function drawFilters() {
  renderFilters(document.getElementById('filters'), meta, state, present, () => refresh());
}

async function sideViews(gen) {
  const jobs = [
    renderHeadToHead(state).catch((e) => {
      document.getElementById('h2h-table').innerHTML = `<caption class="error">${esc(e.message)}</caption>`;
    }),
    renderHistory(state).catch((e) => {
      document.getElementById('history-table').innerHTML = `<caption class="error">${esc(e.message)}</caption>`;
    }),
    renderEvaluations(state, points).catch((e) => {
      document.getElementById('evaluations-table').innerHTML = `<caption class="error">${esc(e.message)}</caption>`;
    }),
  ];
  await Promise.all(jobs);
  if (gen === generation) hooks.idle = true;
}

async function refresh() {
  const gen = ++generation;
  hooks.idle = false;
  writeUrl();
  const metric = yMetric(state.y);
  const y = metric.key;
  const axes = xAxesFor(state);
  // A user metric is a decreasing function of output throughput within a GPU: its frontier is the
  // output throughput's, read at the user's value.
  const frontierY = metric.user ? 'output_tput_per_gpu' : y;
  setStatus('Loading…');
  let body;
  try {
    body = await Promise.all([
      getJson('points', filterQuery(state)),
      getJson('frontier', filterQuery(state, { x: axes.intvty.key, y: frontierY })),
      getJson('frontier', filterQuery(state, { x: axes.e2el.key, y: frontierY })),
    ]);
  } catch (e) {
    if (gen === generation) {
      setStatus(e.message, true);
      hooks.idle = true;
    }
    return;
  }
  if (gen !== generation) return;
  if (hooks.firstDataMs === null) {
    performance.mark('infermark-first-data');
    hooks.firstDataMs = performance.getEntriesByName('infermark-first-data')[0].startTime;
  }
  points = body[0].points;
  frontiers = { intvty: body[1].series, e2el: body[2].series };
  if (metric.user) {
    const byId = new Map();
    for (const p of points) {
      p[y] = userFigure(y, p, state);
      byId.set(p.id, p);
    }
    for (const key of ['intvty', 'e2el']) {
      frontiers[key] = frontiers[key]
        .map((s) => ({ series: s.series, points: s.points.map((f) => ({ x: f.x, y: byId.get(f.id)?.[y] ?? null, id: f.id })).filter((f) => f.y !== null) }))
        .filter((s) => s.points.length);
    }
  }
  if (notePresence(points)) drawFilters();
  renderCharts(points, frontiers, state);
  if (hooks.firstChartMs === null) {
    performance.mark('infermark-first-chart');
    hooks.firstChartMs = performance.getEntriesByName('infermark-first-chart')[0].startTime;
  }
  hooks.renders += 1;
  const predicted = points.filter((p) => p.kind === 'predicted').length;
  const invalid = points.filter((p) => p.valid === false).length;
  document.getElementById('point-count').textContent =
    `${points.length} points (${points.length - predicted} measured, ${predicted} predicted${invalid ? `; ${invalid} INVALID` : ''})`;
  document.getElementById('invalid-note').hidden = invalid === 0;
  document.getElementById('invalid-count').textContent = invalid === 1 ? '1 point' : `${invalid} points`;
  // J/token is drawn from valid measured power only: say how many points that leaves out.
  const noPower = y === 'j_per_token' ? points.filter((p) => p.j_per_token === null || p.j_per_token === undefined).length : 0;
  const powerNote = document.getElementById('power-note');
  powerNote.hidden = noPower === 0;
  powerNote.textContent = `${noPower} of ${points.length} points have no valid measured power (no telemetry, invalid `
    + 'telemetry, or predicted) and are not drawn on the J/token axis; hover a point for its power validity.';
  const userNote = document.getElementById('user-note');
  const noUser = metric.user ? points.filter((p) => p[y] === null || p[y] === undefined).length : 0;
  userNote.hidden = noUser === 0;
  userNote.textContent = `${noUser} of ${points.length} points are on GPUs without your ${metric.user === 'ucost' ? '$/GPU-hour' : 'W/GPU'}: `
    + 'set it under "Your costs and power per GPU" below the charts.';
  const hollow = points.filter((p) => hostErrorMarked(p, axes.intvty.marks) || hostErrorMarked(p, axes.e2el.marks)).length;
  document.getElementById('hollow-note').hidden = hollow === 0;
  document.getElementById('hollow-count').textContent = hollow === 1 ? '1 point' : `${hollow} points`;
  document.getElementById('empty').hidden = points.length > 0;
  document.getElementById('agentic-note').hidden =
    !(points.some((p) => p.agentic) || state.filters.sequence.includes('agentic'));
  document.getElementById('csv-export').href = csvUrl(filterQuery(state));
  setStatus('');
  await sideViews(gen);
}

function wireControls() {
  const ySelect = document.getElementById('y-metric');
  ySelect.innerHTML = Y_METRICS.map((m) => `<option value="${m.key}">${esc(m.label)} (${esc(m.unit)})</option>`).join('');
  ySelect.value = yMetric(state.y).key;
  ySelect.addEventListener('change', () => {
    state.y = ySelect.value;
    refresh();
  });
  for (const [id, key] of [['percentile', 'pct'], ['x-axis', 'x']]) {
    const select = document.getElementById(id);
    select.value = state[key];
    select.addEventListener('change', () => {
      state[key] = select.value;
      refresh();
    });
  }
  const showInvalid = document.getElementById('show-invalid');
  showInvalid.checked = state.filters.valid !== 'true';
  showInvalid.addEventListener('change', () => {
    state.filters.valid = showInvalid.checked ? '' : 'true';
    refresh();
  });
  const optimal = document.getElementById('frontier-only');
  optimal.checked = state.optimal;
  optimal.addEventListener('change', () => {
    state.optimal = optimal.checked;
    writeUrl();
    renderCharts(points, frontiers, state);
  });
  document.getElementById('legend').addEventListener('click', (e) => {
    const item = e.target.closest('.legend-item');
    if (!item) return;
    const s = item.dataset.series;
    state.hide = state.hide.includes(s) ? state.hide.filter((h) => h !== s) : [...state.hide, s];
    writeUrl();
    renderCharts(points, frontiers, state);
  });
  for (const side of ['a', 'b']) {
    document.getElementById(`h2h-${side}`).addEventListener('change', (e) => {
      state[side] = e.target.value;
      writeUrl();
      hooks.idle = false;
      sideViews(generation);
    });
  }
  for (const [id, key] of [['h2h-at', 'at'], ['hist-at', 'hist_at']]) {
    document.getElementById(id).addEventListener('change', (e) => {
      state[key] = e.target.value;
      writeUrl();
      hooks.idle = false;
      sideViews(generation);
    });
  }
  for (const button of document.querySelectorAll('button.png')) {
    button.addEventListener('click', () => exportPng(button.dataset.chart, `infermark-${button.dataset.chart}.png`));
  }
  document.getElementById('reset').addEventListener('click', () => {
    window.location.href = window.location.pathname + (state.token ? `?token=${encodeURIComponent(state.token)}` : '');
  });
  document.addEventListener('click', (e) => closeMenus(document.getElementById('filters'), e.target.closest('details')));
  document.addEventListener('mouseleave', () => {
    document.getElementById('tooltip').hidden = true;
  });
}

async function boot() {
  if (!window.Chart) {
    setStatus('The chart library was not embedded in this build (run scripts/setup.sh, then rebuild infermark).', true);
    hooks.idle = true;
    return;
  }
  state.y = yMetric(state.y).key;
  try {
    meta = await getJson('meta');
  } catch (e) {
    setStatus(e.message, true);
    hooks.idle = true;
    return;
  }
  const f = meta.filters || {};
  // One model and one sequence at a time unless the address says otherwise: mixed models on one
  // chart compare nothing.
  if (!state.filters.model.length && (f.model || []).length > 1) state.filters.model = [f.model[0]];
  if (!state.filters.sequence.length && (f.sequence || []).length > 1) state.filters.sequence = [f.sequence[0]];
  if (Array.isArray(f.disagg) && f.disagg.some((v) => v === true || v === 'true')) present.disagg = true;
  if (Array.isArray(f.spec)) {
    for (const m of f.spec) {
      if (m && m !== 'none' && m !== false && m !== 'false') {
        present.spec = true;
        if (typeof m === 'string' && m !== 'true') present.specMethods.push(m);
      }
    }
  }
  const s = meta.store || {};
  document.getElementById('store-info').textContent =
    `${s.kind || 'store'} · ${s.runs ?? '?'} runs · ${s.points ?? '?'} points · infermark ${meta.infermark_version || ''}`;
  wireControls();
  drawFilters();
  document.getElementById('reliability-link').href = `reliability${state.token ? `?token=${encodeURIComponent(state.token)}` : ''}`;
  // The price table only hints at the user's values: read beside the first refresh, not before it.
  getJson('prices').catch(() => null).then((prices) => renderUserValues(f.hardware || [], prices, state, () => {
    writeUrl();
    if (yMetric(state.y).user) refresh();
  }));
  renderPickers(meta, state);
  setRuns(f.run);
  await refresh();
}

boot();
