// The chart pair: y metric against interactivity and against end-to-end latency, one colour per
// deployment, measured points as circles and predicted ones as triangles, points their run judged
// INVALID faded and ringed in red (as the report draws them; the API keeps them off frontiers),
// each series' Pareto frontier as a line (a predicted one in its model-error band: bands.js), a
// shared legend that hides series, and hover details in a DOM tooltip. A point measured several
// times carries error bars (its median's 95 % interval on both axes) and a series whose points all
// were has a band around its frontier, built from the repeats' own frontiers. A point whose charted
// statistic (at the chosen percentile) carries a host-error mark is drawn hollow; clicking a point
// opens its page.

import { BAND_SUFFIX, bandDatasets } from './bands.js';
import { colourMap, esc, isPredicted, xAxesFor, yMetric } from './format.js';
import { pointDetails } from './tooltip.js';

const charts = {};

/// The ring of a point its run judged INVALID (the page's --bad colour).
export const INVALID_RING = '#c0182c';

// `colour` (#rrggbb) at opacity `alpha`.
function faded(colour, alpha) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  return m ? `rgba(${parseInt(m[1], 16)}, ${parseInt(m[2], 16)}, ${parseInt(m[3], 16)}, ${alpha})` : colour;
}

// Paints the canvas white under the chart, so an exported PNG is readable on any viewer.
const whiteBackground = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

// Draws each repeated point's interval on both axes as whiskers with caps, in its series' colour,
// and records what it drew (`chart.$errorBars`, and the count in the canvas's data-error-bars).
const errorBars = {
  id: 'errorBars',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const xs = chart.scales.x;
    const ys = chart.scales.y;
    const drawn = [];
    const cap = 4;
    chart.data.datasets.forEach((ds, i) => {
      if (ds.type === 'line' || !chart.isDatasetVisible(i)) return;
      const meta = chart.getDatasetMeta(i);
      ds.data.forEach((d, j) => {
        const intervals = d.p && d.p.intervals;
        const el = meta.data[j];
        if (!intervals || !el) return;
        const yi = intervals[chart.$yKey];
        const xi = intervals[chart.$xKey];
        if (!yi && !xi) return;
        ctx.save();
        ctx.strokeStyle = ds.borderColor;
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        const bar = { id: d.p.id, x: el.x, y: el.y };
        if (yi) {
          const top = ys.getPixelForValue(yi.high);
          const bottom = ys.getPixelForValue(yi.low);
          ctx.moveTo(el.x, top);
          ctx.lineTo(el.x, bottom);
          ctx.moveTo(el.x - cap, top);
          ctx.lineTo(el.x + cap, top);
          ctx.moveTo(el.x - cap, bottom);
          ctx.lineTo(el.x + cap, bottom);
          Object.assign(bar, { top, bottom });
        }
        if (xi) {
          const left = xs.getPixelForValue(xi.low);
          const right = xs.getPixelForValue(xi.high);
          ctx.moveTo(left, el.y);
          ctx.lineTo(right, el.y);
          ctx.moveTo(left, el.y - cap);
          ctx.lineTo(left, el.y + cap);
          ctx.moveTo(right, el.y - cap);
          ctx.lineTo(right, el.y + cap);
          Object.assign(bar, { left, right });
        }
        ctx.stroke();
        ctx.restore();
        drawn.push(bar);
      });
    });
    chart.$errorBars = drawn;
    chart.canvas.dataset.errorBars = String(drawn.length);
  },
};

function showTooltip(context, yKey) {
  const el = document.getElementById('tooltip');
  const t = context.tooltip;
  if (!t || t.opacity === 0 || !t.dataPoints || !t.dataPoints.length) {
    el.hidden = true;
    return;
  }
  const dp = t.dataPoints[0];
  const point = dp.dataset.data[dp.dataIndex].p;
  if (!point) {
    el.hidden = true;
    return;
  }
  el.innerHTML = pointDetails(point, yKey);
  el.hidden = false;
  const box = context.chart.canvas.getBoundingClientRect();
  const left = window.scrollX + box.left + t.caretX + 14;
  const maxLeft = window.scrollX + document.documentElement.clientWidth - el.offsetWidth - 8;
  el.style.left = `${Math.max(8, Math.min(left, maxLeft))}px`;
  el.style.top = `${window.scrollY + box.top + t.caretY + 14}px`;
}

function makeChart(name, canvas) {
  const chart = new window.Chart(canvas, {
    type: 'scatter',
    data: { datasets: [] },
    plugins: [whiteBackground, errorBars],
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: true },
      scales: {
        x: { type: 'linear', title: { display: true, text: '' }, beginAtZero: true },
        y: { type: 'linear', title: { display: true, text: '' }, beginAtZero: true },
      },
      plugins: {
        legend: {
          display: false,
          position: 'bottom',
          labels: {
            usePointStyle: true,
            pointStyleWidth: 12,
            boxHeight: 8,
            filter: (item) => !item.text.endsWith(' frontier') && !item.text.endsWith(' frontier band')
              && !item.text.endsWith(BAND_SUFFIX),
          },
        },
        title: { display: false, text: '' },
        subtitle: { display: false, text: '' },
        tooltip: { enabled: false, external: (context) => showTooltip(context, chart.$yKey) },
      },
      onClick: (event, elements) => {
        const hit = elements.find((e) => chart.data.datasets[e.datasetIndex].data[e.index].p);
        if (!hit) return;
        const p = chart.data.datasets[hit.datasetIndex].data[hit.index].p;
        const token = new URLSearchParams(window.location.search).get('token');
        window.location.href = `point/${p.id}${token ? `?token=${encodeURIComponent(token)}` : ''}`;
      },
    },
  });
  charts[name] = chart;
  return chart;
}

/// Whether a point's statistic `keys` (result keys, e.g. p99_ttft_ms) carries a host-error mark.
export function hostErrorMarked(p, keys) {
  const marks = p.host_error_marks;
  return Array.isArray(marks) && marks.some((m) => m && keys.includes(m.key));
}

function datasetsFor(points, frontier, xField, yKey, colour, hidden, optimalOnly, markKeys) {
  const bySeries = new Map();
  const onFrontier = new Set();
  for (const s of frontier) for (const f of s.points) onFrontier.add(f.id);
  for (const p of points) {
    const x = p[xField];
    const y = p[yKey];
    if (x === null || x === undefined || y === null || y === undefined) continue;
    if (optimalOnly && !onFrontier.has(p.id)) continue;
    if (!bySeries.has(p.series)) bySeries.set(p.series, []);
    bySeries.get(p.series).push({ x, y, p });
  }
  const sets = [];
  for (const [series, data] of [...bySeries].sort((a, b) => a[0].localeCompare(b[0]))) {
    // Chart.js takes unparsed data as sorted by x (its hit search relies on it).
    data.sort((a, b) => a.x - b.x);
    const predicted = data[0].p.kind === 'predicted';
    const fill = predicted ? '#fff' : colour(series);
    // Per point: an INVALID one is faded and ringed in red, whatever its series; one whose charted
    // statistic the host moved beyond tolerance is hollow.
    const invalid = data.map((d) => d.p.valid === false);
    const hollow = data.map((d) => hostErrorMarked(d.p, markKeys));
    // A series whose points all look alike gets one value per option: Chart.js then resolves the
    // options once for the series instead of once per point (most of a large chart's drawing time).
    const alike = !invalid.some(Boolean) && !hollow.some(Boolean);
    const each = (f) => (alike ? f(false, 0) : invalid.map(f));
    sets.push({
      label: series,
      data,
      hidden: hidden.includes(series),
      backgroundColor: fill,
      borderColor: colour(series),
      pointBackgroundColor: each((bad, i) => (bad ? faded(colour(series), 0.25) : hollow[i] ? '#fff' : fill)),
      pointBorderColor: each((bad) => (bad ? INVALID_RING : colour(series))),
      pointBorderWidth: each((bad, i) => (bad || hollow[i] ? 2 : predicted ? 1.5 : 1)),
      pointStyle: predicted ? 'triangle' : 'circle',
      pointRadius: each((bad) => (bad ? 6 : predicted ? 5 : 4)),
      pointHoverRadius: 7,
    });
  }
  // A predicted frontier's model-error band, under its line.
  sets.push(...bandDatasets(frontier, colour, hidden));
  for (const s of frontier) {
    const band = [...s.points].sort((a, b) => a.x - b.x).filter((f) => f.band);
    if (band.length < 2) continue;
    // The band around the frontier: its upper edge, then its lower edge filled up to it.
    const edge = {
      type: 'line',
      label: `${s.series} frontier band`,
      hidden: hidden.includes(s.series),
      borderColor: faded(colour(s.series), 0.35),
      backgroundColor: faded(colour(s.series), 0.15),
      borderWidth: 1,
      pointRadius: 0,
      pointHitRadius: 0,
      pointHoverRadius: 0,
      tension: 0,
    };
    sets.push({ ...edge, data: band.map((f) => ({ x: f.x, y: f.band.high })), fill: false });
    sets.push({ ...edge, data: band.map((f) => ({ x: f.x, y: f.band.low })), fill: '-1' });
  }
  for (const s of frontier) {
    if (!s.points.length) continue;
    const predicted = isPredicted(s.series);
    sets.push({
      type: 'line',
      label: `${s.series} frontier`,
      data: [...s.points].sort((a, b) => a.x - b.x).map((f) => ({ x: f.x, y: f.y })),
      hidden: hidden.includes(s.series),
      borderColor: colour(s.series),
      borderWidth: 2,
      borderDash: predicted ? [6, 4] : [],
      pointRadius: 0,
      pointHitRadius: 0,
      pointHoverRadius: 0,
      fill: false,
      tension: 0,
    });
  }
  return sets;
}

// The filters in force, one line for an exported chart ("all points" without any).
function filterSummary(state) {
  const parts = [];
  for (const [k, v] of Object.entries(state.filters)) {
    const text = Array.isArray(v) ? v.join(', ') : v;
    if (text) parts.push(`${k}: ${text}`);
  }
  return parts.length ? parts.join(' · ') : 'all points';
}

/// Draws the pair from the points and the two frontiers (`frontiers.intvty`, `frontiers.e2el`).
export function renderCharts(points, frontiers, state) {
  const y = yMetric(state.y);
  const names = points.map((p) => p.series);
  const colour = colourMap(names);
  const agenticOnly = points.length > 0 && points.every((p) => p.agentic);
  for (const [name, axis] of Object.entries(xAxesFor(state))) {
    const chart = charts[name] || makeChart(name, document.getElementById(`chart-${name}`));
    chart.$yKey = y.key;
    chart.$xKey = axis.key;
    chart.data.datasets = datasetsFor(points, frontiers[name] || [], axis.key, y.key, colour, state.hide, state.optimal,
      axis.marks);
    // Agentic points alone: their interactivity is the E2E-normalized one.
    const xLabel = agenticOnly && axis.key.endsWith('interactivity')
      ? `${state.pct === 'median' ? 'P50' : state.pct.toUpperCase()} E2E-normalized interactivity` : axis.label;
    chart.options.scales.x.title.text = `${xLabel} (${axis.unit})`;
    chart.options.scales.y.title.text = `${y.label} (${y.unit})`;
    // "vs interactivity", "vs median end-to-end latency", but "vs P99 time to first token".
    const title = `${y.label} vs ${/^P\d/.test(axis.label) ? axis.label : axis.label.toLowerCase()}`;
    chart.options.plugins.title.text = title;
    chart.options.plugins.subtitle.text = filterSummary(state);
    document.getElementById(`title-${name}`).textContent = title;
    chart.update('none');
  }
  renderLegend(names, colour, state);
}

function renderLegend(names, colour, state) {
  const legend = document.getElementById('legend');
  const series = [...new Set(names)].sort();
  legend.innerHTML = series
    .map((s) => {
      const predicted = isPredicted(s);
      return `<button type="button" class="legend-item${state.hide.includes(s) ? ' off' : ''}" data-series="${esc(s)}">
        <span class="mark${predicted ? ' tri' : ''}" style="--c:${colour(s)}"></span>${esc(s)}</button>`;
    })
    .join('');
}

/// The chart named `name` ("intvty", "e2el" or "history"), once drawn.
export function chart(name) {
  return charts[name];
}

/// Registers a chart drawn elsewhere (the history view) for PNG export.
export function registerChart(name, c) {
  charts[name] = c;
}

/// The white-background plugin, for the other charts of the page.
export { whiteBackground };

/// Downloads chart `name` as a PNG at twice the screen's resolution, with its title and legend
/// drawn in.
export function exportPng(name, fileName) {
  const c = charts[name];
  if (!c) return;
  const legend = c.options.plugins.legend.display;
  const title = c.options.plugins.title.display;
  const subtitle = c.options.plugins.subtitle ? c.options.plugins.subtitle.display : false;
  const ratio = c.options.devicePixelRatio;
  c.options.plugins.legend.display = true;
  c.options.plugins.title.display = true;
  if (c.options.plugins.subtitle) c.options.plugins.subtitle.display = Boolean(c.options.plugins.subtitle.text);
  c.options.devicePixelRatio = 2;
  c.resize();
  c.update('none');
  const a = document.createElement('a');
  a.href = c.toBase64Image('image/png');
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  c.options.plugins.legend.display = legend;
  c.options.plugins.title.display = title;
  if (c.options.plugins.subtitle) c.options.plugins.subtitle.display = subtitle;
  c.options.devicePixelRatio = ratio;
  c.resize();
  c.update('none');
}
