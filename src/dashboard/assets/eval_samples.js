// An evaluation's samples, a page at a time (/api/v1/evaluations/ID/samples): each document's
// question, the model's response, the answer each filter extracted, the target and whether the gated
// answer was correct; "wrong answers only" and a text filter. The state lives in the page's address.

import { getJson } from './api.js';
import { esc } from './format.js';

const PAGE = 25;

function mark(v) {
  if (v === true) return '<span class="ok">✓</span>';
  if (v === false) return '<span class="bad">✗</span>';
  return '–';
}

// A long text shown folded: its start, and all of it when opened.
function folded(text, cls) {
  const t = String(text ?? '');
  if (t.length <= 160) return `<div class="${cls}">${esc(t)}</div>`;
  return `<details class="${cls}"><summary>${esc(t.slice(0, 140))}…</summary>${esc(t)}</details>`;
}

// The text after the last "####" (how GSM8K states its answer), or all of it.
function answerOf(target) {
  const t = String(target ?? '');
  const at = t.lastIndexOf('####');
  return at >= 0 ? t.slice(at + 4).trim() : t;
}

/// Shows the samples of evaluation `state.samples` under `state`'s filters; `onChange` is called
/// when a control changes them. Returns the reply (or null when no evaluation is open).
export async function renderSamples(state, evaluations, onChange) {
  const box = document.getElementById('samples');
  if (!state.samples) {
    box.hidden = true;
    return null;
  }
  const e = evaluations.find((x) => String(x.id) === String(state.samples));
  const q = new URLSearchParams({ filter: state.wrong ? 'wrong' : 'all', offset: String(state.offset), limit: String(PAGE) });
  if (state.text) q.set('q', state.text);
  const body = await getJson(`evaluations/${encodeURIComponent(state.samples)}/samples`, q);
  box.hidden = false;
  document.getElementById('samples-title').textContent =
    `Samples of ${e ? `${e.task} (${e.verdict}, conc ${e.conc}, run ${e.run_label})` : `evaluation ${state.samples}`}: `
    + `${body.total ? `${body.wrong} of ${body.total} answered wrong` : 'none kept'}`;
  const wrong = document.getElementById('samples-wrong');
  wrong.checked = state.wrong;
  const text = document.getElementById('samples-text');
  if (document.activeElement !== text) text.value = state.text;
  const end = Math.min(body.matched, body.offset + body.samples.length);
  document.getElementById('samples-range').textContent =
    body.matched ? `${body.offset + 1}–${end} of ${body.matched}` : 'no documents match';
  document.getElementById('samples-prev').disabled = body.offset === 0;
  document.getElementById('samples-next').disabled = end >= body.matched;
  const head = '<thead><tr><th>Doc</th><th>Question</th><th>Response</th><th>Extracted (strict)</th>'
    + '<th>Extracted (flexible)</th><th>Target</th><th>Correct</th></tr></thead>';
  const rows = body.samples.map((s) => `<tr class="${s.correct === false ? 'wrong' : ''}" data-doc="${s.doc_id}">`
    + `<td class="num">${s.doc_id}</td><td>${folded(s.question, 'question')}</td>`
    + `<td>${folded(s.error ? `${s.response}\n[request failed: ${s.error}]` : s.response, 'response')}</td>`
    + `<td class="answer">${esc(s.strict_answer)}</td><td class="answer">${esc(s.flexible_answer)}</td>`
    + `<td class="answer" title="${esc(s.target)}">${esc(answerOf(s.target))}</td><td>${mark(s.correct)}</td></tr>`).join('')
    || `<tr><td colspan="7" class="muted">${esc(body.total ? 'No document matches these filters.'
      : `This evaluation kept no samples${e && e.reasons && e.reasons.length ? `: ${e.reasons.join('; ')}` : ''}.`)}</td></tr>`;
  document.getElementById('samples-table').innerHTML = `${head}<tbody>${rows}</tbody>`;
  if (!box.dataset.wired) {
    box.dataset.wired = '1';
    wrong.addEventListener('change', () => onChange({ wrong: wrong.checked, offset: 0 }));
    text.addEventListener('change', () => onChange({ text: text.value.trim(), offset: 0 }));
    document.getElementById('samples-prev').addEventListener('click', () => onChange({ offset: Math.max(0, state.offset - PAGE) }));
    document.getElementById('samples-next').addEventListener('click', () => onChange({ offset: state.offset + PAGE }));
  }
  return body;
}
