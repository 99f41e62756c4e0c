// Metric names, units and number formatting shared by every view of the page.

/// The y metrics the charts can show (the API's `y` values), with their labels and units.
export const Y_METRICS = [
  { key: 'tput_per_gpu', label: 'Throughput per GPU', unit: 'tok/s/GPU' },
  { key: 'input_tput_per_gpu', label: 'Input throughput per GPU', unit: 'tok/s/GPU' },
  { key: 'output_tput_per_gpu', label: 'Output throughput per GPU', unit: 'tok/s/GPU' },
  { key: 'j_per_token', label: 'Energy per output token', unit: 'J/token' },
  { key: 'cost_per_m_tokens', label: 'Cost per million output tokens', unit: '$/M tokens' },
  { key: 'cost_user', label: 'Cost per million output tokens at your $/GPU-hour', unit: '$/M tokens', user: 'ucost', lowerBetter: true },
  { key: 'energy_user', label: 'Energy per output token at your W/GPU', unit: 'J/token', user: 'upower', lowerBetter: true },
];

/// The figure a user-set value gives a point: cost per million output tokens from $/GPU-hour, or
/// energy per output token from W/GPU (both over output tok/s/GPU); null without a value for its GPU.
export function userFigure(metric, p, state) {
  const tput = p.output_tput_per_gpu;
  if (!tput || tput <= 0) return null;
  if (metric === 'cost_user') {
    const usd = state.ucost[p.hardware];
    return usd ? (usd * 1e6) / (3600 * tput) : null;
  }
  if (metric === 'energy_user') {
    const w = state.upower[p.hardware];
    return w ? w / tput : null;
  }
  return null;
}

/// The chart pair's x axes for the state's percentile: the first reads interactivity (or TTFT with
/// `x=ttft`), the second end-to-end latency; `key` is the point field and the frontier route's `x`;
/// `marks` are the result keys of the statistics at that percentile (a host-error mark on any of
/// them draws the point hollow).
export function xAxesFor(state) {
  const pct = state.pct || 'median';
  const prefix = pct === 'median' ? '' : `${pct}_`;
  const word = pct === 'median' ? 'Median' : pct.toUpperCase();
  const marks = ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2el_ms', 'intvty'].map((k) => `${pct}_${k}`);
  const first = state.x === 'ttft'
    ? { key: `${prefix}ttft_ms`, label: `${word} time to first token`, unit: 'ms', marks, higherBetter: false }
    : { key: `${prefix}interactivity`, label: pct === 'median' ? 'Interactivity' : `${word} interactivity`, unit: 'tok/s/user',
      marks, higherBetter: true };
  return {
    intvty: first,
    e2el: { key: `${prefix}e2el_s`, label: `${word} end-to-end latency`, unit: 's', marks, higherBetter: false },
  };
}

/// The y metric of `key` (the first one when unknown).
export function yMetric(key) {
  return Y_METRICS.find((m) => m.key === key) || Y_METRICS[0];
}

/// `v` with about four significant digits ("–" when unknown).
export function num(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  if (Number.isInteger(v)) return String(v);
  if (a >= 1000) return v.toFixed(0);
  if (a >= 100) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  if (a === 0) return '0';
  return v.toPrecision(3);
}

/// `v` with its unit, or "–".
export function withUnit(v, unit) {
  return v === null || v === undefined ? '–' : `${num(v)} ${unit}`;
}

/// Text made safe to put inside HTML.
export function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

// Twenty distinguishable colours (dark and light pairs), so a 20-series chart repeats none.
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f',
  '#bcbd22', '#393b79', '#ad494a', '#637939', '#7b4173', '#e6550d', '#3182bd', '#843c39', '#31a354', '#756bb1',
  '#636363'];

/// A series' label without its " · predicted" suffix: measured and predicted points of one
/// deployment share a colour and differ by marker.
export function baseSeries(series) {
  return String(series).replace(/ · predicted$/, '');
}

const colours = new Map();

/// The colour of each deployment, the same in every view of the page: deployments get the next
/// free colour in name order the first time a view shows them.
export function colourMap(seriesNames) {
  for (const b of [...new Set(seriesNames.map(baseSeries))].sort()) {
    if (!colours.has(b)) colours.set(b, PALETTE[colours.size % PALETTE.length]);
  }
  return (series) => colours.get(baseSeries(series)) || '#444';
}

/// True for a predicted series (its label ends in " · predicted").
export function isPredicted(series) {
  return baseSeries(series) !== String(series);
}
