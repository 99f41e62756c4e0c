// The reliability view: success rates of row attempts per GPU and per runner label over 3, 7, 30
// and 90 days and all time (/api/v1/reliability), the failure classes counted, the failures listed
// newest first, each opening its attempt (?attempt=ID: reason, class, result, logs' tails). Every
// control lives in the address.

import { getJson, setToken } from './api.js';
import { esc, num } from './format.js';

const params = new URLSearchParams(window.location.search);
const state = {
  hardware: params.get('hardware') || '',
  runner: params.get('runner') || '',
  window: params.get('window') || '30d',
  at: params.get('at') || '',
  cls: params.get('class') || '',
  attempt: params.get('attempt') || '',
  token: params.get('token') || '',
};
setToken(state.token);

/// What the browser tests read: the last reply, whether the page is idle, and errors shown.
const hooks = { idle: false, body: null, attempt: null, errors: [] };
window.infermark = hooks;
let chart = null;

const CLASS_WORDS = {
  startup: 'start-up', readiness: 'readiness', client_error: 'client error', server_exit: 'server exit',
  timeout: 'timeout', killed: 'killed', store: 'store',
};

function setStatus(text, isError = false) {
  const el = document.getElementById('status');
  el.textContent = text;
  el.classList.toggle('error', isError);
  if (isError) hooks.errors.push(text);
}

function writeUrl() {
  const p = new URLSearchParams();
  for (const [key, name] of [['hardware', 'hardware'], ['runner', 'runner'], ['at', 'at'], ['cls', 'class'],
    ['attempt', 'attempt'], ['token', 'token']]) {
    if (state[key]) p.set(name, state[key]);
  }
  if (state.window !== '30d') p.set('window', state.window);
  const query = p.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}`);
}

function rateText(t) {
  if (!t || !t.attempts) return '–';
  return `${(t.rate * 100).toFixed(1)} %`;
}

function rateCell(t) {
  if (!t || !t.attempts) return '<td class="num muted">–</td>';
  const cls = t.rate >= 0.95 ? 'good' : t.rate >= 0.8 ? 'fair' : 'poor';
  return `<td class="num rate ${cls}" title="${t.succeeded} of ${t.attempts} succeeded; ${t.invalid} INVALID, ${t.failed} failed, `
    + `${t.retried} retried; ${t.skipped} skipped">${rateText(t)} <span class="muted">(${t.attempts})</span></td>`;
}

function groupTable(rows, nameKey, nameLabel, windows) {
  const classes = (hooks.body && hooks.body.failure_classes) || [];
  const head = `<tr><th>${esc(nameLabel)}</th>${windows.map((w) => `<th class="num">${esc(w.key)}</th>`).join('')}`
    + `${classes.map((c) => `<th class="num" title="failures of class ${esc(c)} in the ${esc(state.window)} window">${esc(CLASS_WORDS[c] || c)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => {
    const w = r.windows[state.window] || {};
    return `<tr data-name="${esc(r[nameKey])}"><th>${esc(r[nameKey])}</th>${windows.map((x) => rateCell(r.windows[x.key])).join('')}`
      + `${classes.map((c) => `<td class="num">${(w.classes && w.classes[c]) || 0}</td>`).join('')}</tr>`;
  }).join('');
  return `<thead>${head}</thead><tbody>${body || `<tr><td colspan="${1 + windows.length + classes.length}" class="muted">No row attempts stored yet.</td></tr>`}</tbody>`;
}

function drawChart(body) {
  const canvas = document.getElementById('chart-reliability');
  if (!window.Chart || !canvas) return;
  const colours = ['#1f5fbf', '#3182bd', '#6baed6', '#9ecae1', '#636363'];
  const data = {
    labels: body.by_gpu.map((g) => g.hardware),
    datasets: body.windows.map((w, i) => ({
      label: w.key,
      data: body.by_gpu.map((g) => {
        const t = g.windows[w.key];
        return t && t.attempts ? t.rate * 100 : null;
      }),
      backgroundColor: colours[i % colours.length],
    })),
  };
  if (!chart) {
    chart = new window.Chart(canvas, {
      type: 'bar',
      data,
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { min: 0, max: 100, title: { display: true, text: 'Success rate (%)' } } },
        plugins: { legend: { position: 'bottom' } },
      },
    });
  } else {
    chart.data = data;
    chart.update('none');
  }
}

function failureRows(list) {
  const head = '<thead><tr><th>Started (UTC)</th><th>GPU</th><th>Runner label</th><th>Row</th><th>Attempt</th>'
    + '<th>Outcome</th><th>Class</th><th>Reason</th><th></th></tr></thead>';
  const rows = list.map((a) => `<tr class="outcome-${esc(a.outcome)}" data-attempt="${a.id}">`
    + `<td>${esc(a.started_at.replace('T', ' ').replace('Z', ''))}</td><td>${esc(a.hardware)}</td><td>${esc(a.runner_label)}</td>`
    + `<td class="wrap">${esc(a.result_filename)}</td><td class="num">${a.attempt}</td><td>${esc(a.outcome)}</td>`
    + `<td>${esc(a.failure_class ? CLASS_WORDS[a.failure_class] || a.failure_class : '–')}</td>`
    + `<td class="wrap reason">${esc(a.reason)}</td>`
    + `<td><a href="reliability?attempt=${a.id}${state.token ? `&token=${encodeURIComponent(state.token)}` : ''}" class="attempt-link">details</a></td></tr>`).join('');
  return `${head}<tbody>${rows || '<tr><td colspan="9" class="muted">No failures.</td></tr>'}</tbody>`;
}

async function showAttempt() {
  const panel = document.getElementById('attempt');
  if (!state.attempt) {
    panel.hidden = true;
    hooks.attempt = null;
    return;
  }
  const a = await getJson(`attempts/${encodeURIComponent(state.attempt)}`);
  hooks.attempt = a;
  const tok = state.token ? `?token=${encodeURIComponent(state.token)}` : '';
  const rows = [
    ['Outcome', `${a.outcome}${a.failure_class ? ` (${CLASS_WORDS[a.failure_class] || a.failure_class})` : ''}`],
    ['Reason', a.reason || '–'],
    ['Row', `${a.result_filename} · attempt ${a.attempt}`],
    ['Model', `${a.model} · ${a.isl}/${a.osl} · conc ${a.conc} · ${a.framework} ${a.precision}`],
    ['Where', `${a.runner_label} (${a.hardware}) · ${a.executor} executor · ${a.target} target · host ${a.host || '–'}`],
    ['When', `${a.started_at} · ${a.duration_s === null ? '–' : `${num(a.duration_s)} s`}`],
    ['Run', `${a.run_label} (${a.run_key})`],
  ];
  const others = (a.row_attempts || []).map((o) => (String(o.id) === String(a.id)
    ? `<strong>#${o.attempt} ${esc(o.outcome)}</strong>`
    : `<a href="reliability?attempt=${o.id}${state.token ? `&token=${encodeURIComponent(state.token)}` : ''}">#${o.attempt} ${esc(o.outcome)}</a>`)).join(' · ');
  const point = a.point_id ? `<a id="attempt-point" href="point/${a.point_id}${tok}">the row's point</a>` : 'no point stored for this row';
  panel.innerHTML = `<h2>Row attempt ${esc(a.id)} <button type="button" id="attempt-close">close</button></h2>
    <table class="kv">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td class="wrap">${esc(v)}</td></tr>`).join('')}
    <tr><th>Attempts of the row</th><td>${others || '–'}</td></tr><tr><th>Point</th><td>${point}</td></tr></table>
    <h3>Client log (end)</h3><pre class="log" id="attempt-client-log">${esc(a.client_log_tail || '(none kept)')}</pre>
    <h3>Server log (end)</h3><pre class="log" id="attempt-server-log">${esc(a.server_log_tail || '(none kept)')}</pre>
    <details><summary>Result file${a.result ? '' : ' (none: the attempt wrote no result)'}</summary>
    <pre class="log">${esc(a.result ? JSON.stringify(a.result, null, 1) : '')}</pre></details>`;
  panel.hidden = false;
  document.getElementById('attempt-close').addEventListener('click', () => {
    state.attempt = '';
    writeUrl();
    showAttempt();
  });
}

async function refresh() {
  hooks.idle = false;
  writeUrl();
  const q = new URLSearchParams();
  if (state.hardware) q.set('hardware', state.hardware);
  if (state.runner) q.set('runner', state.runner);
  if (state.at) q.set('at', state.at);
  q.set('limit', '500');
  try {
    const [body] = await Promise.all([getJson('reliability', q), showAttempt()]);
    hooks.body = body;
    document.getElementById('rel-now').textContent = `windows end ${body.now.replace('T', ' ').replace('Z', ' UTC')}`;
    fillSelect('rel-hardware', body.by_gpu.map((g) => g.hardware), state.hardware, 'all');
    fillSelect('rel-runner', body.by_runner.map((r) => r.runner_label), state.runner, 'all');
    fillSelect('rel-window', body.windows.map((w) => w.key), state.window, null);
    fillSelect('rel-class', body.failure_classes, state.cls, 'any');
    document.getElementById('rel-gpu').innerHTML = groupTable(body.by_gpu, 'hardware', 'GPU', body.windows);
    document.getElementById('rel-runner-table').innerHTML =
      groupTable(body.by_runner, 'runner_label', 'Runner label', body.windows);
    drawChart(body);
    const failures = state.cls ? body.failures.filter((f) => f.failure_class === state.cls) : body.failures;
    document.getElementById('rel-failures-count').textContent =
      `${body.failures_total} (INVALID, failed or retried${body.failures.length < body.failures_total ? `; the latest ${body.failures.length} listed` : ''})`;
    document.getElementById('rel-failures').innerHTML = failureRows(failures);
    setStatus('');
  } catch (e) {
    setStatus(e.message, true);
  }
  hooks.idle = true;
}

function fillSelect(id, values, selected, anyLabel) {
  const el = document.getElementById(id);
  const options = [...new Set(values)];
  if (selected && !options.includes(selected)) options.push(selected);
  el.innerHTML = (anyLabel === null ? '' : `<option value="">${esc(anyLabel)}</option>`)
    + options.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join('');
  el.value = selected;
}

function wire() {
  for (const [id, key] of [['rel-hardware', 'hardware'], ['rel-runner', 'runner'], ['rel-window', 'window'],
    ['rel-class', 'cls'], ['rel-at', 'at']]) {
    const el = document.getElementById(id);
    if (id === 'rel-at') el.value = state.at;
    el.addEventListener('change', () => {
      state[key] = el.value;
      refresh();
    });
  }
  document.getElementById('rel-failures').addEventListener('click', (e) => {
    const link = e.target.closest('a.attempt-link');
    if (!link) return;
    e.preventDefault();
    state.attempt = link.closest('tr').dataset.attempt;
    writeUrl();
    hooks.idle = false;
    showAttempt().then(() => {
      hooks.idle = true;
      document.getElementById('attempt').scrollIntoView();
    }).catch((err) => {
      setStatus(err.message, true);
      hooks.idle = true;
    });
  });
}

wire();
refresh();
