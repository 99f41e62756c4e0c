// Accuracy evaluations of the configurations the filters select: one row each with the score as a
// dot and its error bar (±1 standard error) on a shared axis, the threshold as a dashed red line,
// and the verdict. Not-run, INVALID and incomplete evaluations are shown as such, never as a 0.
// The points of a configuration carry its evaluations' ids: their tooltip names the verdicts, and
// a row lists the concurrencies of its points.

import { getJson } from './api.js';
import { esc } from './format.js';

const FILTERS = ['model', 'hardware', 'framework', 'precision', 'run'];
const WIDTH = 240;
const PAD = 8;
let byId = new Map();

/// The evaluations of the points' configurations, as "gsm8k PASS 0.943 ± 0.006" lines.
export function evaluationLines(ids) {
  return (ids || []).map((id) => byId.get(id)).filter(Boolean).map((e) => `${e.task} ${e.verdict}${
    e.score === null ? ` (${e.status.replace('_', ' ')})` : ` ${e.score.toFixed(4)}${e.stderr === null ? '' : ` ± ${e.stderr.toFixed(4)}`}`}`);
}

function verdictClass(e) {
  if (e.status !== 'scored') return e.status.replace('_', '-');
  if (e.passed === null) return 'no-threshold';
  return e.passed ? 'pass' : 'fail';
}

function axisOf(list) {
  let lo = 1;
  for (const e of list) {
    if (e.score !== null) lo = Math.min(lo, e.score - (e.stderr || 0));
    if (e.threshold !== null) lo = Math.min(lo, e.threshold);
  }
  lo = Math.max(0, Math.floor(lo * 20 - 1) / 20);
  return { lo, x: (v) => PAD + ((Math.min(Math.max(v, lo), 1) - lo) / (1 - lo)) * (WIDTH - 2 * PAD) };
}

function bar(e, axis) {
  const cls = verdictClass(e);
  let svg = `<svg class="eval-bar" width="${WIDTH}" height="24" viewBox="0 0 ${WIDTH} 24">`
    + `<line class="axis" x1="${axis.x(axis.lo)}" x2="${axis.x(1)}" y1="12" y2="12"/>`;
  if (e.threshold !== null) {
    const x = axis.x(e.threshold).toFixed(1);
    svg += `<line class="threshold" x1="${x}" x2="${x}" y1="2" y2="22"><title>threshold ${e.threshold}</title></line>`;
  }
  if (e.status === 'scored' && e.score !== null) {
    const se = e.stderr || 0;
    svg += `<line class="error-bar ${cls}" x1="${axis.x(e.score - se).toFixed(1)}" x2="${axis.x(e.score + se).toFixed(1)}" y1="12" y2="12"/>`
      + `<circle class="score ${cls}" cx="${axis.x(e.score).toFixed(1)}" cy="12" r="4.5"/>`;
  } else {
    svg += `<text class="status" x="${WIDTH / 2}" y="16" text-anchor="middle">${esc(e.verdict)} (no score)</text>`;
  }
  return `${svg}</svg>`;
}

function configuration(e) {
  const spec = e.spec_decoding && e.spec_decoding !== 'none' ? ` ${e.spec_decoding}` : '';
  const seq = e.isl ? `${e.isl}/${e.osl}` : 'any ISL/OSL';
  return `${e.model} · ${e.hardware} ${e.framework} ${e.precision}${spec} · ${e.parallelism} · ${seq} · conc ${e.conc}`;
}

/// Asks the API for the evaluations of the state's model, hardware, framework, precision and runs,
/// and draws the panel; `points` (the charted points) give each row the concurrencies it links to.
export async function renderEvaluations(state, points) {
  const params = new URLSearchParams();
  for (const k of FILTERS) {
    const v = state.filters[k];
    if (Array.isArray(v) ? v.length : v) params.set(k, Array.isArray(v) ? v.join(',') : v);
  }
  const body = await getJson('evaluations', params);
  const list = body.evaluations || [];
  byId = new Map(list.map((e) => [e.id, e]));
  const table = document.getElementById('evaluations-table');
  document.getElementById('evaluations-count').textContent = list.length === 1 ? '1 evaluation' : `${list.length} evaluations`;
  if (!list.length) {
    table.innerHTML = '<caption>No accuracy evaluations for these filters.</caption>';
    return;
  }
  const charted = new Map((points || []).map((p) => [p.id, p]));
  const axis = axisOf(list);
  const rows = list.map((e) => {
    const linked = e.points.map((id) => charted.get(id)).filter(Boolean);
    const concs = [...new Set(linked.map((p) => p.conc))].sort((a, b) => a - b);
    const score = e.status === 'scored' && e.score !== null
      ? `${e.score.toFixed(4)}${e.stderr === null ? '' : ` ± ${e.stderr.toFixed(4)}`}` : '–';
    const threshold = e.threshold === null ? '–' : `${e.threshold} (${esc(e.threshold_source || '')})`;
    return `<tr id="eval-${e.id}" class="eval ${verdictClass(e)}" data-eval="${e.id}"><td>${esc(configuration(e))}</td>`
      + `<td>${esc(e.task)}</td><td>${bar(e, axis)}</td><td class="num">${score}</td><td class="num">${threshold}</td>`
      + `<td class="verdict verdict-${verdictClass(e)}">${esc(e.verdict)}</td><td>${esc(e.reasons.join('; '))}</td>`
      + `<td>${linked.length ? `${linked.length} point(s), conc ${concs.join(', ')}` : '–'}</td>`
      + `<td>${esc(e.origin)}</td><td>${esc(e.run_label || e.run_key)}</td><td>${esc(e.date || '')}</td></tr>`;
  });
  table.innerHTML = '<thead><tr><th>configuration</th><th>task</th>'
    + `<th>score (axis ${axis.lo.toFixed(2)}–1, bar ±1 stderr)</th><th>score ± stderr</th><th>threshold</th><th>verdict</th>`
    + '<th>reasons</th><th>throughput points</th><th>origin</th><th>run</th><th>date</th></tr></thead>'
    + `<tbody>${rows.join('')}</tbody>`;
}
