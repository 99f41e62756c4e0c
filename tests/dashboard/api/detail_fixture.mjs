// A sweep folder as the runner leaves it, stored with `infermark results ingest`, for the tests of the
// dashboard's detail routes, its OpenAPI contract, the MCP server and the point and reliability
// pages. Its points are a real H100 sweep (tests/fixtures/real-gpu/h100: transformers serving
// Llama 3.1 8B, concurrency 1 to 64, with the runner's NVML samples); around them:
//   - each row's state lists its attempts; conc 8 was spoiled by the host once and measured again
//     (its INVALID attempt kept in its log folder);
//   - conc 16's result states a host error per figure, as the client writes it (the p99 ITL over
//     its tolerance);
//   - each row's log folder holds its server and client logs, its GPU samples and a request
//     timeline (the lent-GPU run predates --save-timeline: built here from the result's own
//     medians, one request per unit of concurrency as that run sent);
//   - rows that failed: conc 128 never got ready (2026-12-06), conc 256 failed to start (2026-11-20)
//     and its client failed (2026-10-01); a b200 row served once and its server died once;
//   - a GSM8K evaluation of conc 16's configuration with its 20 samples, 10 answered wrong.
// Reliability figures are read as of 2026-12-07 (`at`).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../fixtures');
const H100 = path.join(fixtures, 'real-gpu/h100');

export const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
export const CONCS = [1, 2, 4, 8, 16, 32, 64];
export const AT = '2026-12-07';
export const RUN_KEY = 'h100-llama3-sweep';

export function stem(conc, hw = 'vm') {
  return `llama3_1k1k_bf16_transformers_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc${conc}_${hw}`;
}

function matrixRow(conc, runner = 'h100') {
  return {
    image: 'infermark/lent-gpu:torch2.11-transformers5.17', model: MODEL, 'model-prefix': 'llama3', precision: 'bf16',
    framework: 'transformers', runner, isl: 1024, osl: 1024, tp: 1, pp: 1, 'dcp-size': 1, 'pcp-size': 1, conc,
    'max-model-len': 2304, ep: 1, 'dp-attn': false, 'spec-decoding': 'none', 'exp-name': 'llama3_1k1k', disagg: false,
  };
}

const iso = (unix) => new Date(unix * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

function attempt(n, outcome, started, seconds, extra = {}) {
  return { attempt: n, outcome, failure_class: '', row_status: outcome === 'completed' ? 'done' : outcome, reason: '',
    executor: 'local', target: 'engine', host: 'gpu-node-1', started_at: started, seconds, ...extra };
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value));
}

// A request timeline of `result`'s run: `conc` requests sent at once, TTFT and E2EL spread around
// the result's medians, ITL histogram around its median.
function timeline(result, conc) {
  const n = result.completed;
  const rows = [];
  const ttfts = [];
  for (let i = 0; i < n; i += 1) {
    const f = n > 1 ? i / (n - 1) : 0;
    const sent = (i % conc) * 2 + Math.floor(i / conc) * result.median_e2el_ms;
    const ttft = result.median_ttft_ms * (0.7 + 0.6 * f);
    const last = sent + result.median_e2el_ms * (0.95 + 0.1 * f);
    ttfts.push(ttft);
    rows.push([i, sent, sent + 0.05, sent + ttft, last, 1024, 1]);
  }
  const bin = (ms) => Math.floor(Math.log10(ms / 0.001) * 10);
  const hist = (values) => {
    const bins = values.map(bin);
    const first = Math.min(...bins);
    const counts = new Array(Math.max(...bins) - first + 1).fill(0);
    for (const b of bins) counts[b - first] += 1;
    return { lo_ms: 0.001, bins_per_decade: 10, first_bin: first, counts, zero: 0 };
  };
  const itls = [];
  for (let k = 0; k < 200; k += 1) itls.push(result.median_itl_ms * (0.8 + 0.4 * (k / 199)));
  const header = {
    schema: 'infermark.request_timeline/1', origin_unix: result.benchmark_start_time_unix, requests: n, stride: 1,
    columns: ['index', 'intended_ms', 'sent_ms', 'first_token_ms', 'last_token_ms', 'output_tokens', 'ok'],
    ttft_ms: hist(ttfts), itl_ms: hist(itls),
  };
  return [header, ...rows].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/// The host error conc 16's result states (as the client writes it; the p99 ITL is over tolerance).
export const HOST_ERROR = {
  host_error: {
    median_ttft_ms: { abs: 0.42, rel: 0.00052 }, p99_ttft_ms: { abs: 3.1, rel: 0.0026 },
    median_itl_ms: { abs: 0.35, rel: 0.0037 }, p99_itl_ms: { abs: 9.8, rel: 0.072 },
    output_throughput: { abs: -0.9, rel: -0.0031 },
  },
  host_error_kind: 'client',
  host_error_marks: [{ key: 'p99_itl_ms', abs: 9.8, rel: 0.072, headline: false,
    cause: 'the client read chunks late (p99 loop lag 9.1 ms)' }],
};

function row(dir, conc, hw, { attempts, status = 'done', reason = '', result = null, logs = true }) {
  const name = stem(conc, hw);
  const log = path.join(dir, 'logs', name);
  if (result) writeJson(path.join(dir, `${name}.json`), result);
  writeJson(path.join(dir, `${name}.row.json`), {
    status, reason, result_filename: name, target: 'engine', executor: 'local',
    finished_at: attempts.at(-1).started_at, seconds: attempts.reduce((s, a) => s + a.seconds, 0),
    ready_seconds: status === 'done' ? 40 : 0, time_scale: 1, server_argv: ['transformers', 'serve', '--port', '8888'],
    warnings: [], attempts, row: matrixRow(conc, hw === 'vm' ? 'h100' : hw),
  });
  if (logs) {
    fs.mkdirSync(log, { recursive: true });
    fs.writeFileSync(path.join(log, 'server.log'),
      `INFO loading ${MODEL}\nINFO continuous batching ready on port 8888\n${status === 'done' ? '' : `ERROR ${reason}\n`}`);
    fs.writeFileSync(path.join(log, 'client.log'), status === 'done'
      ? '============ Serving Benchmark Result ============\nVerdict: VALID\n' : `${reason}\n`);
  }
  return log;
}

/// Writes the sweep folder under `dir` and stores it in `db` as run RUN_KEY with `binary`.
export function buildDetailStore(binary, dir, db) {
  const sweep = path.join(dir, 'sweep');
  fs.rmSync(sweep, { recursive: true, force: true });
  for (const conc of CONCS) {
    const result = JSON.parse(fs.readFileSync(path.join(H100, `${stem(conc)}.json`), 'utf8'));
    if (conc === 16) Object.assign(result.infermark, HOST_ERROR);
    const start = result.benchmark_start_time_unix - 40;
    const attempts = [];
    if (conc === 8) {
      attempts.push(attempt(1, 'retried', iso(start - 200), 150, { row_status: 'invalid',
        reason: 'run judged INVALID by the load generator: client saturated: p99 event-loop lag 2.691 ms, over 1.000 ms' }));
    }
    attempts.push(attempt(attempts.length + 1, 'completed', iso(start), result.duration + 45));
    const log = row(sweep, conc, 'vm', { attempts, result });
    fs.copyFileSync(path.join(H100, `${conc}_vm_gpu_metrics.csv`), path.join(log, 'gpu_metrics.runner.csv'));
    fs.writeFileSync(path.join(log, 'requests.timeline.jsonl'), timeline(result, conc));
    if (conc === 8) {
      writeJson(path.join(log, 'attempt-1.json'), { ...result, verdict: 'INVALID',
        verdict_reasons: ['client saturated: p99 event-loop lag 2.691 ms, over 1.000 ms'] });
      fs.writeFileSync(path.join(log, 'attempt-1.client.log'), 'Verdict: INVALID\n  - client saturated: p99 event-loop lag 2.691 ms, over 1.000 ms\n');
    }
  }
  row(sweep, 128, 'vm', { status: 'failed', reason: 'server not ready after 900 s (start-up timeout); log ends: OOM while loading',
    attempts: [attempt(1, 'failed', '2026-12-06T02:00:00Z', 905, { row_status: 'failed', failure_class: 'readiness',
      reason: 'server not ready after 900 s (start-up timeout); log ends: OOM while loading' })] });
  row(sweep, 256, 'vm', { status: 'failed', reason: 'server exited with status 1; log ends: CUDA out of memory',
    attempts: [
      attempt(1, 'failed', '2026-10-01T02:00:00Z', 300, { row_status: 'failed', failure_class: 'client_error',
        reason: 'client exited with status 1 without a result; log ends: connection reset' }),
      attempt(2, 'failed', '2026-11-20T02:00:00Z', 60, { row_status: 'failed', failure_class: 'startup',
        reason: 'server exited with status 1; log ends: CUDA out of memory' }),
    ] });
  const b200 = JSON.parse(fs.readFileSync(path.join(H100, `${stem(1)}.json`), 'utf8'));
  row(sweep, 1, 'b200', { result: b200, attempts: [attempt(1, 'completed', '2026-12-05T10:00:00Z', 140)] });
  row(sweep, 2, 'b200', { status: 'failed', reason: 'server was killed by signal 9 during the load',
    attempts: [attempt(1, 'failed', '2026-12-05T12:00:00Z', 80, { row_status: 'failed', failure_class: 'killed',
      reason: 'server was killed by signal 9 during the load' })] });
  // GSM8K of conc 16's configuration: 10 of its 20 documents answered wrong.
  const evalDir = path.join(sweep, 'evals', stem(16));
  fs.cpSync(path.join(fixtures, 'evals/scored-fail'), evalDir, { recursive: true });
  const meta = JSON.parse(fs.readFileSync(path.join(evalDir, 'meta_env.json'), 'utf8'));
  Object.assign(meta, { framework: 'transformers', precision: 'bf16', tp: 1, conc: 16, model: MODEL,
    infmax_model_prefix: 'llama3', hw: 'h100', prefill_tp: 1, decode_tp: 1 });
  writeJson(path.join(evalDir, 'meta_env.json'), meta);
  const status = JSON.parse(fs.readFileSync(path.join(evalDir, 'eval_status.json'), 'utf8'));
  Object.assign(status, { concurrency: 16, result_filename: stem(16), reasons: ['gsm8k 0.5 < 0.91 (llama3)'],
    threshold_source: 'llama3' });
  writeJson(path.join(evalDir, 'eval_status.json'), status);
  execFileSync(binary, ['results', 'ingest', '--db', db, '--run', RUN_KEY, '--label', 'H100 Llama 3.1 8B sweep', sweep],
    { stdio: ['ignore', 'pipe', 'inherit'] });
}
