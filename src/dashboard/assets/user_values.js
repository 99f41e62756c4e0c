// The "your costs and power" panel: per GPU of the store, the user's own $/GPU-hour and all-in
// W/GPU, which the y axis's user metrics (format.js userFigure) read. The price table's default
// tier is shown as a hint where it has a price.

import { esc } from './format.js';

/// Draws the panel for `hardware` (the store's GPUs) with the state's values; `onChange` is called
/// after the state changed.
export function renderUserValues(hardware, prices, state, onChange) {
  const latest = new Map();
  for (const p of (prices && prices.prices) || []) {
    if (p.tier !== prices.default_tier) continue;
    const seen = latest.get(p.gpu);
    if (!seen || p.date > seen.date) latest.set(p.gpu, p);
  }
  const table = document.getElementById('user-values-table');
  table.innerHTML = '<thead><tr><th>GPU</th><th>$/GPU-hour</th><th>W/GPU (all-in)</th></tr></thead><tbody>'
    + hardware.map((hw) => {
      const hint = latest.get(hw);
      return `<tr data-gpu="${esc(hw)}"><th>${esc(hw)}</th>`
        + `<td><input type="number" min="0" step="0.01" data-kind="ucost" value="${state.ucost[hw] ?? ''}" `
        + `placeholder="${hint ? esc(hint.usd_per_gpu_hour) : ''}" aria-label="${esc(hw)} $/GPU-hour"></td>`
        + `<td><input type="number" min="0" step="1" data-kind="upower" value="${state.upower[hw] ?? ''}" `
        + `aria-label="${esc(hw)} W/GPU"></td></tr>`;
    }).join('') + '</tbody>';
  if (Object.keys(state.ucost).length || Object.keys(state.upower).length) {
    document.getElementById('user-values').open = true;
  }
  table.onchange = (e) => {
    const input = e.target.closest('input[data-kind]');
    if (!input) return;
    const gpu = input.closest('tr').dataset.gpu;
    const v = Number(input.value);
    const values = { ...state[input.dataset.kind] };
    if (v > 0 && Number.isFinite(v)) values[gpu] = v;
    else delete values[gpu];
    state[input.dataset.kind] = values;
    onChange();
  };
}
