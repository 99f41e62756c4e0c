// The filter bar: one drop-down of check boxes per list filter (model, sequence, precision,
// hardware, framework, measured/predicted, run), the disaggregation and speculative-decoding
// switches when such points exist, and the date range.

import { esc } from './format.js';

const LABELS = {
  model: 'Model', sequence: 'Sequence', precision: 'Precision', hardware: 'Hardware', framework: 'Framework',
  kind: 'Measured / predicted', run: 'Run',
};

function summaryText(label, chosen, options) {
  if (!chosen.length) return `${label}: all`;
  const names = chosen.map((v) => (options.find((o) => o.value === v) || { text: v }).text);
  return `${label}: ${names.length > 2 ? `${names.length} chosen` : names.join(', ')}`;
}

function listFilter(key, options, state, onChange) {
  const box = document.createElement('details');
  box.className = 'filter';
  box.dataset.filter = key;
  const chosen = state.filters[key];
  box.innerHTML = `<summary>${esc(summaryText(LABELS[key], chosen, options))}</summary><div class="menu">${options
    .map((o) => `<label><input type="checkbox" value="${esc(o.value)}"${chosen.includes(o.value) ? ' checked' : ''}>
      ${esc(o.text)}</label>`).join('')}</div>`;
  box.addEventListener('change', () => {
    state.filters[key] = [...box.querySelectorAll('input:checked')].map((i) => i.value);
    box.querySelector('summary').textContent = summaryText(LABELS[key], state.filters[key], options);
    onChange();
  });
  return box;
}

function choiceFilter(key, label, choices, state, onChange) {
  const el = document.createElement('label');
  el.className = 'filter';
  el.dataset.filter = key;
  const current = state.filters[key];
  const all = current && !choices.some((c) => c.value === current) ? [...choices, { value: current, text: current }] : choices;
  el.innerHTML = `${esc(label)} <select><option value="">all</option>${all
    .map((c) => `<option value="${esc(c.value)}"${c.value === current ? ' selected' : ''}>${esc(c.text)}</option>`)
    .join('')}</select>`;
  el.querySelector('select').addEventListener('change', (e) => {
    state.filters[key] = e.target.value;
    onChange();
  });
  return el;
}

function dateFilter(key, label, state, onChange) {
  const el = document.createElement('label');
  el.className = 'filter';
  el.dataset.filter = key;
  el.innerHTML = `${esc(label)} <input type="date" value="${esc(state.filters[key])}">`;
  el.querySelector('input').addEventListener('change', (e) => {
    state.filters[key] = e.target.value;
    onChange();
  });
  return el;
}

/// Builds the filter bar into `root` from the API's meta; `present` says whether disaggregated and
/// speculative-decoding points exist. Calls `onChange` after the state changed.
export function renderFilters(root, meta, state, present, onChange) {
  const f = meta.filters || {};
  const plain = (list) => (list || []).map((v) => ({ value: String(v), text: String(v) }));
  root.replaceChildren();
  for (const key of ['model', 'sequence', 'precision', 'hardware', 'framework']) {
    if ((f[key] || []).length) root.append(listFilter(key, plain(f[key]), state, onChange));
  }
  if (present.disagg || state.filters.disagg) {
    root.append(choiceFilter('disagg', 'Disaggregated', [{ value: 'true', text: 'yes' }, { value: 'false', text: 'no' }],
      state, onChange));
  }
  if (present.spec || state.filters.spec) {
    const methods = (present.specMethods || []).map((m) => ({ value: m, text: m }));
    root.append(choiceFilter('spec', 'Spec. decoding',
      [{ value: 'true', text: 'any method' }, { value: 'false', text: 'none' }, ...methods], state, onChange));
  }
  root.append(listFilter('kind', plain(f.kind && f.kind.length ? f.kind : ['measured', 'predicted']), state, onChange));
  const runs = (f.run || []).map((r) => ({ value: String(r.id), text: `${r.label || r.key} (${String(r.created_at || '').slice(0, 10)})` }));
  if (runs.length) root.append(listFilter('run', runs, state, onChange));
  root.append(dateFilter('from', 'From', state, onChange));
  root.append(dateFilter('to', 'To', state, onChange));
}

/// Closes every open drop-down but `except` (a click elsewhere closes them, as menus do).
export function closeMenus(root, except) {
  for (const d of root.querySelectorAll('details[open]')) if (d !== except) d.open = false;
}
