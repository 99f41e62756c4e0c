// The point page's charts: the request timeline (each request a bar from its send to its last
// token, darker from its first token), requests in flight over time, the TTFT and ITL histograms on
// log-spaced bins, GPU telemetry per chip over time, and agentic sessions and cache hits over time.

import { num } from './format.js';

const charts = {};

/// The charts drawn, by name (what the browser tests read).
export function pointCharts() {
  return charts;
}

function draw(name, config) {
  const canvas = document.getElementById(`chart-${name}`);
  if (!canvas || !window.Chart) return null;
  if (charts[name]) charts[name].destroy();
  const base = { animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true };
  charts[name] = new window.Chart(canvas, { ...config, options: { ...base, ...config.options } });
  return charts[name];
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2'];

/// Draws the timeline reply of /api/v1/points/ID/timeline.
export function drawTimeline(body) {
  const col = Object.fromEntries(body.columns.map((c, i) => [c, i]));
  const rows = body.rows.filter((r) => r[col.sent_ms] !== null)
    .sort((a, b) => a[col.sent_ms] - b[col.sent_ms]);
  const waiting = [];
  const decoding = [];
  const failed = [];
  rows.forEach((r, i) => {
    const sent = r[col.sent_ms] / 1000;
    const first = r[col.first_token_ms] === null ? null : r[col.first_token_ms] / 1000;
    const last = r[col.last_token_ms] === null ? sent : r[col.last_token_ms] / 1000;
    if (!r[col.ok]) {
      failed.push({ y: i, x: [sent, Math.max(last, sent)] });
      return;
    }
    waiting.push({ y: i, x: [sent, first ?? last] });
    if (first !== null) decoding.push({ y: i, x: [first, last] });
  });
  draw('timeline', {
    type: 'bar',
    data: {
      datasets: [
        { label: 'waiting for the first token', data: waiting, backgroundColor: '#9ecae1', barThickness: 'flex', grouped: false },
        { label: 'streaming tokens', data: decoding, backgroundColor: '#1f5fbf', grouped: false },
        { label: 'failed', data: failed, backgroundColor: '#c0182c', grouped: false },
      ],
    },
    options: {
      // Floating bars ([send, last token] per request) need Chart.js's own parsing.
      parsing: true,
      indexAxis: 'y',
      scales: {
        x: { type: 'linear', title: { display: true, text: 'Time (s)' }, beginAtZero: true },
        y: { type: 'linear', reverse: true, title: { display: true, text: 'Request (by send time)' }, ticks: { precision: 0 } },
      },
      plugins: { legend: { position: 'bottom' }, tooltip: { enabled: rows.length <= 4000 } },
    },
  });
  const over = body.over_time;
  if (over) {
    draw('over-time', {
      type: 'line',
      data: { datasets: [{ label: 'requests in flight', data: over.t_s.map((t, i) => ({ x: t, y: over.in_flight[i] })), borderColor: '#1f5fbf', pointRadius: 0 }] },
      options: { scales: { x: { type: 'linear', title: { display: true, text: 'Time (s)' } }, y: { beginAtZero: true } } },
    });
  }
  return rows.length;
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
        y: { beginAtZero: true, title: { display: true, text: 'count' } },
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
        y: { title: { display: true, text: `${field} (${unit})` } },
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
        y: { beginAtZero: true, title: { display: true, text: 'sessions' } },
        y1: { position: 'right', min: 0, max: 100, title: { display: true, text: 'hit rate (%)' }, grid: { drawOnChartArea: false } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
  return true;
}
