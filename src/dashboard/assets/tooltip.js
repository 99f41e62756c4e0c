// Hover details of a point: what was served, its figures, and where it came from (provenance).

import { bandLine } from './bands.js';
import { evaluationLines } from './evaluations.js';
import { esc, num, withUnit, yMetric } from './format.js';

function deployment(p) {
  const parts = [`tp${p.tp ?? '?'}`];
  if (p.ep && p.ep !== 1) parts.push(`ep${p.ep}`);
  if (p.dp_attn) parts.push('dp-attn');
  if (p.disagg) {
    const pools = p.prefill_gpus && p.decode_gpus ? ` (${p.prefill_gpus} prefill + ${p.decode_gpus} decode GPUs)` : '';
    parts.push(`disaggregated${pools}`);
  }
  if (p.spec_decoding && p.spec_decoding !== 'none') parts.push(`spec ${p.spec_decoding}`);
  if (p.num_gpus) parts.push(`${p.num_gpus} GPUs`);
  return parts.join(' · ');
}

function sequence(p) {
  return p.agentic ? 'agentic' : `${p.isl}/${p.osl}`;
}

// Why a point's run judged it INVALID, or its verdict ("–" when its run gave none).
function verdict(p) {
  if (p.valid === false) {
    const reasons = p.invalid_reasons && p.invalid_reasons.length ? `: ${p.invalid_reasons.join('; ')}` : '';
    return `INVALID${reasons} (kept off frontiers, head-to-head and history)`;
  }
  return p.verdict || '–';
}

// The power telemetry's validity, with the aggregation's reasons when it is not valid.
function power(p) {
  if (p.power_valid === true) return `valid · ${withUnit(p.w_per_gpu, 'W/GPU')}`;
  if (p.power_valid === false) {
    const reasons = p.power_invalid_reasons && p.power_invalid_reasons.length ? `: ${p.power_invalid_reasons.join(', ')}` : '';
    return `invalid${reasons} (no J/token)`;
  }
  return 'not measured';
}

// A repeated point's figure: its median with the 95 % interval (and what that interval covers).
function withInterval(p, key, unit) {
  const text = withUnit(p[key], unit);
  const iv = p.intervals && p.intervals[key];
  if (!iv) return text;
  return `${text} [${num(iv.low)} – ${num(iv.high)}, ${Math.round(iv.confidence * 1000) / 10} %]`;
}

// How many measurements a figure is the median of.
function repeats(p) {
  if (!p.repeats || p.repeats < 2) return 'measured once';
  const server = p.repeat_server === 'fresh' ? 'a fresh server each' : 'one server, back to back';
  return `median of ${p.repeats} (${server}); [interval, its coverage of the median]`;
}

/// The tooltip's HTML for point `p`, with the chart's y metric first and, for a point its run
/// judged INVALID, the verdict and its reasons above everything.
export function pointDetails(p, yKey) {
  const y = yMetric(yKey);
  const prov = p.provenance || {};
  const scale = prov.time_scale && prov.time_scale !== 1 ? `×${num(prov.time_scale)} (figures de-scaled)` : '1 (real time)';
  const rows = [
    ['Verdict', verdict(p)],
    ['Model', `${p.model} · ${sequence(p)} · ${p.agentic ? 'users' : 'conc'} ${p.conc}`],
    ['Deployment', deployment(p)],
    ['Repeats', repeats(p)],
    [y.label, withInterval(p, y.key, y.unit)],
    [p.agentic ? 'Interactivity (P50 E2E-norm.)' : 'Interactivity', withInterval(p, 'interactivity', 'tok/s/user')],
    ['E2E latency', withInterval(p, 'e2el_s', 's')],
    ['TTFT / TPOT', `${withUnit(p.ttft_ms, 'ms')} / ${withUnit(p.tpot_ms, 'ms')}`],
    ['Tails (p90 / p99)', `TTFT ${withUnit(p.p90_ttft_ms, 'ms')} / ${withUnit(p.p99_ttft_ms, 'ms')} · E2EL ${withUnit(p.p90_e2el_s, 's')} / ${withUnit(p.p99_e2el_s, 's')}`],
    ...(p.prediction_band ? [['Model-error band p10–p90', bandLine(p, y)]] : []),
    ['Power', power(p)],
    ['Accuracy', evaluationLines(p.evaluations).join('; ') || 'no evaluation of this configuration'],
    ['Run', `${p.run_label ?? p.run_id} · ${p.date ?? ''} · ${p.kind}`],
    ['Image', prov.image || '–'],
    ['Flags', prov.flags || '–'],
    ['Host', prov.host || '–'],
    ['infermark', prov.infermark_version || '–'],
    ['Time scale', scale],
  ];
  const marks = Array.isArray(p.host_error_marks) ? p.host_error_marks : [];
  if (marks.length) {
    rows.splice(1, 0, ['Host error', marks.map((m) => `${m.key} ${m.rel === null || m.rel === undefined ? '' : `${(m.rel * 100).toFixed(1)} %`}${m.headline ? ' (headline)' : ''}`).join('; ')]);
  }
  const bad = p.valid === false;
  const banner = bad ? '<div class="tt-invalid">INVALID: not a figure to compare</div>' : '';
  return `<div class="tt-title">${esc(p.series)}</div>${banner}<table>${rows
    .map(([k, v], i) => `<tr${bad && i === 0 ? ' class="invalid"' : ''}><th>${esc(k)}</th><td>${esc(v)}</td></tr>`)
    .join('')}</table><div class="muted">Click the point for its page.</div>`;
}
