// GPU head-to-head: two hardware picked, each series' iso-interactivity values (the API's
// frontier-then-spline interpolation) at the chosen interactivities, and B's best over A's.

import { getJson } from './api.js';
import { esc, isPredicted, num, yMetric } from './format.js';
import { filterQuery, numberList } from './state.js';

/// Fills the two hardware pickers from the meta's hardware list, keeping the state's picks.
export function renderPickers(meta, state) {
  const hw = (meta.filters && meta.filters.hardware) || [];
  for (const side of ['a', 'b']) {
    const select = document.getElementById(`h2h-${side}`);
    const current = state[side];
    select.innerHTML = `<option value="">—</option>${hw
      .map((h) => `<option value="${esc(h)}"${h === current ? ' selected' : ''}>${esc(h)}</option>`).join('')}`;
  }
  document.getElementById('h2h-at').value = state.at;
}

const LOWER_IS_BETTER = ['j_per_token', 'cost_per_m_tokens'];

// The best value of `hardware`'s measured series at target `i` (its predicted ones when it has
// no measured one; null when none reaches it).
function best(rows, hardware, i, yKey) {
  const own = rows.filter((r) => r.hardware === hardware);
  const measured = own.filter((r) => !isPredicted(r.series));
  const values = (measured.length ? measured : own).map((r) => r.values[i].y).filter((v) => v !== null);
  if (!values.length) return null;
  return LOWER_IS_BETTER.includes(yKey) ? Math.min(...values) : Math.max(...values);
}

/// Asks the API for the iso-interactivity rows of the two picks and draws the table.
export async function renderHeadToHead(state) {
  const table = document.getElementById('h2h-table');
  const targets = numberList(state.at);
  if (!state.a || !state.b || !targets.length) {
    table.innerHTML = '<caption>Pick two GPUs and at least one interactivity.</caption>';
    return;
  }
  const y = yMetric(state.y);
  const q = filterQuery(state, { interactivity: targets.join(','), y: y.key });
  q.set('hardware', [state.a, state.b].join(','));
  const body = await getJson('iso', q);
  const rows = [...body.rows].sort((r1, r2) => (r1.hardware === state.a ? 0 : 1) - (r2.hardware === state.a ? 0 : 1)
    || r1.series.localeCompare(r2.series));
  const head = `<thead><tr><th>Series</th><th>GPU</th>${targets.map((t) => `<th>@ ${num(t)} tok/s/user</th>`).join('')}</tr>
    <tr class="unit"><th colspan="2"></th><th colspan="${targets.length}">${esc(y.label)} (${esc(y.unit)})</th></tr></thead>`;
  const lines = rows.map((r) => `<tr><td>${esc(r.series)}</td><td>${esc(r.hardware)}</td>${r.values
    .map((v) => `<td class="num">${v.y === null ? '–' : num(v.y)}</td>`).join('')}</tr>`);
  const ratio = targets.map((_, i) => {
    const a = best(rows, state.a, i, y.key);
    const b = best(rows, state.b, i, y.key);
    return a && b ? `×${(b / a).toFixed(2)}` : '–';
  });
  const foot = `<tfoot><tr><th colspan="2">${esc(state.b)} / ${esc(state.a)} (best measured series${LOWER_IS_BETTER.includes(y.key) ? ', lower is better' : ''})</th>${ratio
    .map((r) => `<td class="num">${r}</td>`).join('')}</tr></tfoot>`;
  table.innerHTML = rows.length ? `${head}<tbody>${lines.join('')}</tbody>${foot}`
    : '<caption>No points of these GPUs match the filters.</caption>';
}
