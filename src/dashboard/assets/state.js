// The page's state and its query string: every control lives in the URL, so a copied address
// opens the same view. Filter keys are the API's own, so the API query is a subset of the page's.

/// Filters that take a list of values (repeated or comma-separated; none means all).
export const LIST_FILTERS = ['model', 'sequence', 'precision', 'hardware', 'framework', 'kind', 'run'];
/// Filters that take one value (empty means all). `valid=true` is the *Show INVALID points*
/// control unticked: the API then leaves out the points their run judged INVALID.
export const SINGLE_FILTERS = ['disagg', 'spec', 'valid', 'from', 'to'];

const DEFAULTS = {
  y: 'tput_per_gpu', optimal: false, a: '', b: '', at: '20,50,100', hist_at: '50', hide: [], pct: 'median', x: 'interactivity',
  ucost: {}, upower: {},
};

/// The percentiles the charts read TTFT, TPOT, ITL and E2EL (and interactivity) at.
export const PERCENTILES = ['median', 'p90', 'p99'];

// `h100:2.5,b200:4` as {h100: 2.5, b200: 4}; entries that are not positive numbers are dropped.
function perGpu(text) {
  const out = {};
  for (const item of String(text || '').split(',')) {
    const at = item.lastIndexOf(':');
    if (at <= 0) continue;
    const v = Number(item.slice(at + 1));
    if (v > 0 && Number.isFinite(v)) out[item.slice(0, at).trim()] = v;
  }
  return out;
}

function perGpuText(values) {
  return Object.entries(values).filter(([, v]) => v > 0).map(([k, v]) => `${k}:${v}`).join(',');
}

/// A fresh state: no filters, default controls.
export function emptyState() {
  const s = { filters: {}, ...structuredClone(DEFAULTS) };
  for (const k of LIST_FILTERS) s.filters[k] = [];
  for (const k of SINGLE_FILTERS) s.filters[k] = '';
  return s;
}

function splitList(params, key) {
  return params.getAll(key).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/// The state a query string describes.
export function parseState(search) {
  const p = new URLSearchParams(search);
  const s = emptyState();
  for (const k of LIST_FILTERS) s.filters[k] = splitList(p, k);
  for (const k of SINGLE_FILTERS) s.filters[k] = p.get(k) || '';
  if (p.has('y')) s.y = p.get('y');
  s.optimal = p.get('optimal') === '1';
  s.a = p.get('a') || '';
  s.b = p.get('b') || '';
  if (p.has('at')) s.at = p.get('at');
  if (p.has('hist_at')) s.hist_at = p.get('hist_at');
  s.hide = p.getAll('hide').flatMap((v) => v.split('|')).filter((v) => v !== '');
  if (PERCENTILES.includes(p.get('pct'))) s.pct = p.get('pct');
  if (p.get('x') === 'ttft') s.x = 'ttft';
  s.ucost = perGpu(p.get('ucost'));
  s.upower = perGpu(p.get('upower'));
  s.token = p.get('token') || '';
  return s;
}

/// The API query of the state's filters (plus `extra`), for every points-like route.
export function filterQuery(state, extra = {}) {
  const p = new URLSearchParams();
  for (const k of LIST_FILTERS) if (state.filters[k].length) p.set(k, state.filters[k].join(','));
  for (const k of SINGLE_FILTERS) if (state.filters[k]) p.set(k, state.filters[k]);
  for (const [k, v] of Object.entries(extra)) {
    if (v !== '' && v !== undefined && v !== null) p.set(k, v);
  }
  return p;
}

/// The page's query string of a state: filters, then the controls that differ from their defaults.
export function stateQuery(state) {
  const p = filterQuery(state);
  if (state.y !== DEFAULTS.y) p.set('y', state.y);
  if (state.optimal) p.set('optimal', '1');
  if (state.a) p.set('a', state.a);
  if (state.b) p.set('b', state.b);
  if (state.at !== DEFAULTS.at) p.set('at', state.at);
  if (state.hist_at !== DEFAULTS.hist_at) p.set('hist_at', state.hist_at);
  if (state.hide.length) p.set('hide', state.hide.join('|'));
  if (state.pct !== DEFAULTS.pct) p.set('pct', state.pct);
  if (state.x !== DEFAULTS.x) p.set('x', state.x);
  if (perGpuText(state.ucost)) p.set('ucost', perGpuText(state.ucost));
  if (perGpuText(state.upower)) p.set('upower', perGpuText(state.upower));
  if (state.token) p.set('token', state.token);
  return p.toString();
}

/// Numbers of a comma list ("20, 50,100" → [20, 50, 100]); non-numbers are dropped.
export function numberList(text) {
  return String(text).split(',').map((v) => Number(v.trim())).filter((v) => v > 0 && Number.isFinite(v));
}
