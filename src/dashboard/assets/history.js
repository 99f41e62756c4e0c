// History across runs: each series' iso-interactivity value per run date, with the runs that
// `results compare`'s rule flags as regressions (a change outside the noise: the repeats, else the
// series' own history) marked on the chart and listed in the table with the evidence; a run whose
// points were repeated shows its value's 95 % interval.

import { getJson } from './api.js';
import { colourMap, esc, isPredicted, num, yMetric } from './format.js';
import { filterQuery, numberList } from './state.js';
import { registerChart, whiteBackground } from './charts.js';

const MAX_ROWS = 24;
let chart = null;
let runLabels = new Map();
let showAll = false;

/// Names runs in the table by their labels (the meta's run list) rather than their ids.
export function setRuns(runs) {
  runLabels = new Map((runs || []).map((r) => [String(r.id), r.label || r.key]));
}

/// Asks the API for the history at the state's interactivity and draws the chart and the table.
export async function renderHistory(state) {
  const at = numberList(state.hist_at)[0];
  const table = document.getElementById('history-table');
  document.getElementById('hist-at').value = state.hist_at;
  if (!at) {
    table.innerHTML = '<caption>Enter an interactivity.</caption>';
    return;
  }
  const y = yMetric(state.y);
  const body = await getJson('history', filterQuery(state, { interactivity: at, y: y.key }));
  const series = body.series || [];
  const dates = [...new Set(series.flatMap((s) => s.dates.map((d) => d.date)))].sort();
  const colour = colourMap(series.map((s) => s.series));
  const datasets = series.map((s) => {
    const byDate = new Map(s.dates.map((d) => [d.date, d]));
    const entries = dates.map((d) => byDate.get(d));
    return {
      label: s.series,
      data: entries.map((e) => (e ? e.y : null)),
      borderColor: colour(s.series),
      backgroundColor: entries.map((e) => (e && e.regression ? '#d00' : colour(s.series))),
      borderDash: isPredicted(s.series) ? [6, 4] : [],
      pointStyle: entries.map((e) => (e && e.regression ? 'crossRot' : isPredicted(s.series) ? 'triangle' : 'circle')),
      pointRadius: entries.map((e) => (e && e.regression ? 9 : 4)),
      pointBorderColor: entries.map((e) => (e && e.regression ? '#d00' : colour(s.series))),
      pointBorderWidth: entries.map((e) => (e && e.regression ? 3 : 1)),
      spanGaps: true,
    };
  });
  const title = `${y.label} at ${num(at)} tok/s/user, per run date`;
  if (!chart) {
    chart = new window.Chart(document.getElementById('chart-history'), {
      type: 'line',
      data: { labels: [], datasets: [] },
      plugins: [whiteBackground],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, title: { display: true, text: '' } } },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 24, boxHeight: 2 } }, title: { display: true, text: '' } },
      },
    });
    registerChart('history', chart);
  }
  chart.data.labels = dates;
  chart.data.datasets = datasets;
  chart.options.scales.y.title.text = y.unit;
  chart.options.plugins.title.text = title;
  chart.update('none');
  const all = series.flatMap((s) => s.dates.filter((d) => d.y !== null).map((d) => ({ series: s.series, ...d })))
    .sort((r1, r2) => r1.series.localeCompare(r2.series) || r1.date.localeCompare(r2.date));
  // A long table keeps what a reader looks for: the regressions and each series' latest run.
  const latest = new Map(all.map((r) => [r.series, r]));
  const rows = all.length > MAX_ROWS && !showAll ? all.filter((r) => r.regression || latest.get(r.series) === r) : all;
  const more = all.length > rows.length
    ? `<caption>Regressions and each series' latest run: ${rows.length} of ${all.length} rows.
      <button type="button" id="history-all">Show all</button></caption>` : '';
  table.innerHTML = rows.length
    ? `${more}<thead><tr><th>Series</th><th>Date</th><th>Run</th><th>${esc(y.label)} (${esc(y.unit)})</th><th>Change</th><th>Verdict</th><th>Evidence</th></tr></thead>
      <tbody>${rows.map((r) => `<tr class="${r.regression ? 'regression' : ''}"><td>${esc(r.series)}</td><td>${esc(r.date)}</td>
      <td>${esc(runLabels.get(String(r.run_id)) || r.run_id)}</td><td class="num">${num(r.y)}</td>
      <td class="num">${r.change_pct === null || r.change_pct === undefined ? '' : `${r.change_pct > 0 ? '+' : ''}${r.change_pct.toFixed(1)} %`}</td>
      <td>${r.status && r.status !== 'unchanged' ? esc(r.status) : ''}</td>
      <td class="evidence">${r.y_low === undefined ? '' : `[${num(r.y_low)} – ${num(r.y_high)}] `}${esc(r.evidence || '')}</td></tr>`).join('')}</tbody>`
    : '<caption>No run reaches this interactivity with the current filters.</caption>';
  const button = document.getElementById('history-all');
  if (button) {
    button.addEventListener('click', () => {
      showAll = true;
      renderHistory(state);
    });
  }
}
