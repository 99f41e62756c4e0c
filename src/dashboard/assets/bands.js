// A predicted frontier's model-error band: the area between its points' optimistic and pessimistic
// corners (the API's `band` of each frontier series: p10–p90 of calibration's held-out residuals),
// shaded in the series' colour under its dashed line. Measured frontiers have no band.

import { num } from './format.js';

/// The suffix of a band edge's dataset label: the legend and exports leave such datasets out.
export const BAND_SUFFIX = ' band';

// `colour` (#rrggbb) at opacity `alpha`.
function translucent(colour, alpha) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  return m ? `rgba(${parseInt(m[1], 16)}, ${parseInt(m[2], 16)}, ${parseInt(m[3], 16)}, ${alpha})` : colour;
}

/// One line dataset per frontier series with a band: the closed polygon of its optimistic corners
/// along the frontier and its pessimistic corners back, filled as a shape (its points in drawing
/// order, not sorted by x).
export function bandDatasets(frontier, colour, hidden) {
  const sets = [];
  for (const s of frontier) {
    if (!s.band || s.band.optimistic.length < 2) continue;
    const ring = [...s.band.optimistic, ...[...s.band.pessimistic].reverse(), s.band.optimistic[0]];
    sets.push({
      type: 'line',
      label: `${s.series}${BAND_SUFFIX}`,
      data: ring.map((p) => ({ x: p.x, y: p.y })),
      hidden: hidden.includes(s.series),
      // Parsed, unlike the charts' sorted series: Chart.js then reads the ring's x range from all
      // of its points, not from its first and last.
      parsing: true,
      fill: 'shape',
      backgroundColor: translucent(colour(s.series), 0.14),
      borderWidth: 0,
      pointRadius: 0,
      pointHitRadius: 0,
      pointHoverRadius: 0,
      tension: 0,
    });
  }
  return sets;
}

/// A predicted point's band as one tooltip line ("" for a point without one): the y metric's and
/// the interactivity's p10–p90, and the group of residuals behind them.
export function bandLine(p, y) {
  const b = p.prediction_band;
  if (!b) return '';
  const range = (r, unit) => (r ? `${num(r.band_p10)}–${num(r.band_p90)} ${unit}` : '–');
  return `${range(b[y.key], y.unit)} · ${range(b.interactivity, 'tok/s/user')} (${b.scope}, ${b.residuals} residuals)`;
}
