// The point page's charts: the request timeline (each request a bar from its send to its last
// token, darker from its first token), requests in flight over time, the TTFT and ITL histograms on
// log-spaced bins, GPU telemetry per chip over time, and agentic sessions and cache hits over time.

import { num } from './format.js';

const charts = {};

// Linear axes (`type: 'linear'`) label their ticks with num(): Chart.js's own labels go through Intl.NumberFormat,
// whose first use costs tens of milliseconds of a page that draws five charts.
function plainTicks(scales) {
  const out = {};
  for (const [axis, scale] of Object.entries(scales || {})) {
    out[axis] = scale.type === 'linear' ? { ...scale, ticks: { callback: (v) => num(v), ...scale.ticks } } : scale;
  }
  return out;
}

/// The charts drawn, by name (what the browser tests read).
export function pointCharts() {
  return charts;
}

function draw(name, config) {
  const canvas = document.getElementById(`chart-${name}`);
  if (!canvas || !window.Chart) return null;
  if (charts[name]) charts[name].destroy();
  const base = { animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true };
  const options = { ...base, ...config.options };
  options.scales = plainTicks(options.scales);
  charts[name] = new window.Chart(canvas, { ...config, options });
  return charts[name];
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];

const TIMELINE_COLORS = { waiting: '#9ecae1', streaming: '#1f5fbf', failed: '#c0182c' };

// Paints the timeline's requests onto the chart's canvas, one row each (on a 400-pixel chart a row
// of a 5,000-request run is a fraction of a pixel; the canvas blends them). Chart.js draws the
// axes and the legend; an element of its own per request would be most of the page's work.
function timelineBars(bars) {
  return {
    id: 'timelineBars',
    beforeDatasetsDraw(c) {
      const { ctx, chartArea, scales } = c;
      const rowHeight = Math.abs(scales.y.getPixelForValue(1) - scales.y.getPixelForValue(0));
      const h = Math.max(rowHeight * 0.8, 0.5);
      ctx.save();
      ctx.beginPath();
      ctx.rect(chartArea.left, chartArea.top, chartArea.right - chartArea.left, chartArea.bottom - chartArea.top);
      ctx.clip();
      // One path and one fill per kind: a fill per bar costs the canvas ten times as much.
      ['waiting', 'streaming', 'failed'].forEach((kind, k) => {
        if (!c.isDatasetVisible(k)) return;
        ctx.fillStyle = TIMELINE_COLORS[kind];
        ctx.beginPath();
        for (const bar of bars[kind]) {
          const x0 = scales.x.getPixelForValue(bar.x[0]);
          const x1 = scales.x.getPixelForValue(bar.x[1]);
          ctx.rect(x0, scales.y.getPixelForValue(bar.y + 0.5) - h / 2, Math.max(x1 - x0, 0.5), h);
        }
        ctx.fill();
      });
      ctx.restore();
    },
  };
}

/// The timeline reply's requests a chart can place: those that were sent.
export function timelineRows(body) {
  const sent = body.columns.indexOf('sent_ms');
  return body.rows.filter((r) => r[sent] !== null);
}

/// Draws the timeline reply of /api/v1/points/ID/timeline, every request a row by send time: a bar
/// from its send to its first token, another from there to its last (one bar, red, for a failed
/// request). The bars are the chart's `$timeline` ({waiting, streaming, failed}: [{y, x: [from, to]}],
/// seconds). Returns the requests drawn.
export function drawTimeline(body) {
  const col = Object.fromEntries(body.columns.map((c, i) => [c, i]));
  const rows = timelineRows(body).sort((a, b) => a[col.sent_ms] - b[col.sent_ms]);
  const bars = { waiting: [], streaming: [], failed: [] };
  let end = 0;
  rows.forEach((r, i) => {
    const sent = r[col.sent_ms] / 1000;
    const first = r[col.first_token_ms] === null ? null : r[col.first_token_ms] / 1000;
    const last = r[col.last_token_ms] === null ? sent : Math.max(r[col.last_token_ms] / 1000, sent);
    end = Math.max(end, last);
    if (!r[col.ok]) {
      bars.failed.push({ y: i, x: [sent, last] });
      return;
    }
    bars.waiting.push({ y: i, x: [sent, first ?? last] });
    if (first !== null) bars.streaming.push({ y: i, x: [first, last] });
  });
  const legend = (label, kind) => ({ label, data: [], backgroundColor: TIMELINE_COLORS[kind], borderColor: TIMELINE_COLORS[kind] });
  const chart = draw('timeline', {
    type: 'scatter',
    data: {
      datasets: [legend('waiting for the first token', 'waiting'), legend('streaming tokens', 'streaming'), legend('failed', 'failed')],
    },
    plugins: [timelineBars(bars)],
    options: {
      scales: {
        x: { type: 'linear', suggestedMin: 0, suggestedMax: end || 1, title: { display: true, text: 'Time (s)' } },
        y: { type: 'linear', reverse: true, min: 0, max: Math.max(rows.length, 1), ticks: { precision: 0 },
          title: { display: true, text: 'Request (by send time)' } },
      },
      plugins: { legend: { position: 'bottom' }, tooltip: { enabled: false } },
    },
  });
  if (chart) {
    chart.$timeline = bars;
    hoverTimeline(chart, rows, col);
  }
  return rows.length;
}

/// Draws the requests in flight over time from the timeline reply's over_time; whether it had one.
export function drawInFlight(body) {
  const over = body.over_time;
  if (!over) return false;
  draw('over-time', {
    type: 'line',
    data: { datasets: [{ label: 'requests in flight', data: over.t_s.map((t, i) => ({ x: t, y: over.in_flight[i] })), borderColor: '#1f5fbf', pointRadius: 0 }] },
    options: { scales: { x: { type: 'linear', title: { display: true, text: 'Time (s)' } }, y: { type: 'linear', beginAtZero: true } } },
  });
  return true;
}

// What the pointer is over on the timeline, spelled out beneath it.
function hoverTimeline(chart, rows, col) {
  const note = document.getElementById('timeline-hover');
  if (!note) return;
  const ms = (v) => (v === null || v === undefined ? '–' : `${num(v)} ms`);
  chart.canvas.onmousemove = (e) => {
    const i = Math.floor(chart.scales.y.getValueForPixel(e.offsetY));
    const r = rows[i];
    if (!r || e.offsetX < chart.chartArea.left || e.offsetX > chart.chartArea.right) {
      note.textContent = '';
      return;
    }
    const sent = r[col.sent_ms];
    const parts = [`request ${r[col.index] ?? i}`, `sent at ${num(sent / 1000)} s`,
      `TTFT ${r[col.first_token_ms] === null ? '–' : ms(r[col.first_token_ms] - sent)}`,
      `end-to-end ${r[col.last_token_ms] === null ? '–' : ms(r[col.last_token_ms] - sent)}`];
    if (col.output_tokens !== undefined) parts.push(`${r[col.output_tokens] ?? '–'} output tokens`);
    if (!r[col.ok]) parts.push('failed');
    note.textContent = parts.join(' · ');
  };
  chart.canvas.onmouseleave = () => { note.textContent = ''; };
}

function histogram(name, h, title) {
  if (!h || !h.counts || !h.counts.length) return 0;
  const labels = h.counts.map((_, i) => num(h.edges_ms[i]));
  draw(name, {
    type: 'bar',
    data: { labels, datasets: [{ label: title, data: h.counts, backgroundColor: '#1f5fbf', barPercentage: 1, categoryPercentage: 1 }] },
    options: {
      parsing: true,
      scales: {
        x: { title: { display: true, text: `${title} (ms, log-spaced bins from)` } },
        y: { type: 'linear', beginAtZero: true, title: { display: true, text: 'count' } },
      },
      plugins: { legend: { display: false } },
    },
  });
  return h.counts.reduce((a, b) => a + b, 0);
}

/// Draws the TTFT and ITL histograms; returns the values counted in each.
export function drawHistograms(body) {
  return { ttft: histogram('ttft-hist', body.ttft_histogram, 'TTFT'), itl: histogram('itl-hist', body.itl_histogram, 'ITL') };
}

/// Draws field `field` of every GPU of the telemetry reply over time, the measured window shaded.
export function drawTelemetry(body, field) {
  const unit = (body.fields.find((f) => f.key === field) || {}).unit || '';
  const t0 = Math.min(...body.gpus.map((g) => g.start_unix));
  const datasets = body.gpus.map((g, i) => ({
    label: `${g.host ? `${g.host} ` : ''}GPU ${g.gpu}`,
    data: (g.values[field] || []).map((v, k) => ({ x: g.start_unix - t0 + g.t_s[k], y: v })),
    borderColor: PALETTE[i % PALETTE.length],
    pointRadius: 0,
    borderWidth: 1.5,
    spanGaps: false,
  }));
  const window = body.window;
  const shade = {
    id: 'measuredWindow',
    beforeDatasetsDraw(c) {
      if (!window) return;
      const { ctx, chartArea, scales } = c;
      const a = scales.x.getPixelForValue(window.start_unix - t0);
      const b = scales.x.getPixelForValue(window.end_unix - t0);
      ctx.save();
      ctx.fillStyle = 'rgba(31, 95, 191, 0.08)';
      ctx.fillRect(Math.max(a, chartArea.left), chartArea.top, Math.min(b, chartArea.right) - Math.max(a, chartArea.left), chartArea.bottom - chartArea.top);
      ctx.restore();
    },
  };
  draw('telemetry', {
    type: 'line',
    data: { datasets },
    plugins: [shade],
    options: {
      scales: {
        x: { type: 'linear', title: { display: true, text: 'Time (s); the measured window is shaded' } },
        y: { type: 'linear', title: { display: true, text: `${field} (${unit})` } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
  return datasets.reduce((n, d) => n + d.data.length, 0);
}

/// Draws agentic sessions and the prefix-cache hit rate over time from the timeline's over_time.
export function drawSessions(over) {
  if (!over || (!over.sessions && !over.cache_hit_rate)) return false;
  const datasets = [];
  if (over.sessions) {
    datasets.push({ label: 'active sessions', data: over.t_s.map((t, i) => ({ x: t, y: over.sessions[i] })), borderColor: '#1f5fbf', pointRadius: 0, yAxisID: 'y' });
  }
  if (over.cache_hit_rate) {
    datasets.push({ label: 'prefix-cache hit rate (theoretical)', data: over.t_s.map((t, i) => ({ x: t, y: over.cache_hit_rate[i] === null ? null : over.cache_hit_rate[i] * 100 })), borderColor: '#d62728', pointRadius: 0, yAxisID: 'y1' });
  }
  draw('sessions', {
    type: 'line',
    data: { datasets },
    options: {
      scales: {
        x: { type: 'linear', title: { display: true, text: 'Time (s)' } },
        y: { type: 'linear', beginAtZero: true, title: { display: true, text: 'sessions' } },
        y1: { type: 'linear', position: 'right', min: 0, max: 100, title: { display: true, text: 'hit rate (%)' }, grid: { drawOnChartArea: false } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
  return true;
}
