// The browser tests' store: a small fixed set of points in three runs, written as InferenceX agg
// records and stored with `infermark results ingest`, so every figure the page shows is known.
//
//   nightly-1 (2026-11-01): h100 and b200 (vllm, fp8, tp8), conc 4/16/64, each measured three
//                           times (REPEAT_SPREAD: b200 within ±5 %, h100 within ±1 %), so they
//                           carry error bars and their frontiers a band
//   nightly-2 (2026-11-08): the same, with b200 at conc 16 20 % slower (a regression), one
//                           disaggregated b200 sglang fp4 point with MTP, and an h100 point at
//                           conc 32 that its run judged INVALID (it would top the h100 frontier
//                           and the head-to-head table at 20 tok/s/user if it were counted)
//   predict-h100 (2026-11-08): h100 predicted at time scale 2 (figures de-scaled by 2), each
//                             point with its model-error band (PREDICTION_BAND)
//   nightly-2 also holds four GSM8K evaluations (eval folders as the runner leaves them, see
//   EVALUATIONS): h100 conc 64 passes its threshold, b200 conc 64 fails it, h100 conc 16 was not
//   run and b200 conc 16 was INVALID
//   agentic-1: two agentic-coding points (8 and 32 users), InferenceX agentic aggregates from
//              tests/fixtures/agentic-aggregates/sweep served as this model on h100 with vllm

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MODEL = 'deepseek-ai/DeepSeek-R1-0528';

const measured = (hw, conc, intvty, tput, extra = {}) => ({ hw, conc, intvty, tput, ...extra });

/// How far the repeats of the nightly vllm points spread around their median (a fraction).
export const REPEAT_SPREAD = { b200: 0.05, h100: 0.01 };

/// The runs and their points: interactivity (tok/s/user) and total throughput per GPU as stored.
export const RUNS = [
  {
    key: 'nightly-1', label: 'nightly 1', date: '2026-11-01', points: [
      measured('h100', 4, 100, 400), measured('h100', 16, 50, 1200), measured('h100', 64, 20, 2400),
      measured('b200', 4, 120, 1000), measured('b200', 16, 50, 3000), measured('b200', 64, 25, 6000),
    ],
  },
  {
    key: 'nightly-2', label: 'nightly 2', date: '2026-11-08', points: [
      measured('h100', 4, 100, 400), measured('h100', 16, 50, 1200), measured('h100', 64, 20, 2400),
      measured('b200', 4, 120, 1000), measured('b200', 16, 50, 2400), measured('b200', 64, 25, 6000),
      measured('b200', 32, 70, 2000, { framework: 'sglang', precision: 'fp4', spec: 'mtp', disagg: true }),
      measured('h100', 32, 40, 3000, { invalid: true }),
    ],
  },
  {
    key: 'predict-h100', label: 'predict h100', date: '2026-11-08', predicted: true, timeScale: 2, points: [
      measured('h100', 4, 240, 900), measured('h100', 16, 110, 2600), measured('h100', 64, 44, 5000),
    ],
  },
];

/// The model-error band every predicted point carries (its record's prediction_band): each figure
/// times these factors at p10 and p90.
export const PREDICTION_BAND = {
  scope: 'vllm/nvidia', residuals: 389, tput: [0.8, 1.1], intvty: [0.85, 1.15], e2el: [0.9, 1.2],
};

/// The load generator's reasons for the INVALID point (its verdict_reasons).
export const INVALID_REASONS = [
  'client saturated: p99 event-loop lag 3.412 ms, over 1.000 ms',
  'engine behind its model (clock slips): 41 passes started more than 5 ms late, losing 388.2 ms, 1.29 % of the '
    + 'measured window, over 1.00 %',
];

/// Provenance every measured point carries (what the tooltip must show).
export const PROVENANCE = {
  image: 'vllm/vllm-openai:v0.11.0',
  engine_flags: '--tensor-parallel-size 8 --max-num-seqs 64',
  host: 'gpu-node-07',
  infermark_version: '0.9.0-fixture',
};

/// Provenance of the predicted points.
export const PREDICTED_PROVENANCE = {
  image: 'infermark-engine',
  engine_flags: '--hardware h100 --time-scale 2',
  host: 'ci-runner-3',
  infermark_version: '0.9.0-fixture',
};

/// The evaluations of nightly-2 (eval_status.json's fields; docs/evals.md, "Eval folders").
export const EVALUATIONS = [
  { hw: 'h100', conc: 64, status: 'scored', score: 0.9431, stderr: 0.0064, passed: true, reasons: [] },
  { hw: 'b200', conc: 64, status: 'scored', score: 0.62, stderr: 0.0134, passed: false,
    reasons: ['gsm8k 0.62 < 0.91 (dsr1)'] },
  { hw: 'h100', conc: 16, status: 'not_run', reasons: ['the built-in engine has no weights: accuracy is not measured'] },
  { hw: 'b200', conc: 16, status: 'invalid', reasons: ['62 of 1319 requests failed (4.7 %), over the 0 % allowed'] },
];

// Writes evaluation `e` as an eval folder under `dir`: meta_env.json and eval_status.json.
function writeEvalFolder(dir, e) {
  const name = `dsr1_1k1k_${e.hw}_vllm_fp8_tp8_conc${e.conc}`;
  const folder = path.join(dir, 'evals', name);
  fs.mkdirSync(folder, { recursive: true });
  const meta = { is_multinode: false, framework: 'vllm', precision: 'fp8', spec_decoding: 'none', tp: 8, pp: 1,
    dcp_size: 1, pcp_size: 1, conc: e.conc, ep: 1, dp_attention: false, model: MODEL, infmax_model_prefix: 'dsr1',
    hw: e.hw, isl: '1024', osl: '1024' };
  const scored = e.status === 'scored';
  const status = { schema: 'infermark.eval_status/1', task: 'gsm8k', status: e.status, reasons: e.reasons,
    metric: 'exact_match,strict-match', score: scored ? e.score : null, stderr: scored ? e.stderr : null,
    n: scored ? 1319 : null, flexible_score: null, flexible_stderr: null, threshold: 0.91, threshold_source: 'dsr1',
    passed: scored ? e.passed : null, concurrency: e.conc, result_filename: name, results_file: null,
    started_utc: '2026-11-08T04:00:00Z', duration_s: 12.5, server: 'launcher script' };
  fs.writeFileSync(path.join(folder, 'meta_env.json'), JSON.stringify(meta, null, 2));
  fs.writeFileSync(path.join(folder, 'eval_status.json'), JSON.stringify(status, null, 2));
}

/// InferenceX's agg record of point `p` of `run` (provenance fields included).
export function aggRecord(run, p) {
  const isl = 1024;
  const osl = 1024;
  const tpotS = 1 / p.intvty;
  const e2el = 0.2 + osl * tpotS;
  const prov = run.predicted ? PREDICTED_PROVENANCE : PROVENANCE;
  const record = {
    hw: p.hw, conc: p.conc, image: prov.image, model: MODEL, infmax_model_prefix: 'dsr1',
    framework: p.framework || 'vllm', precision: p.precision || 'fp8', spec_decoding: p.spec || 'none',
    disagg: Boolean(p.disagg), isl, osl, is_multinode: false, ep: 1, dp_attention: 'false',
    tp: p.tp || 8,
    tput_per_gpu: p.tput, output_tput_per_gpu: p.tput / 2, input_tput_per_gpu: p.tput / 2,
    median_ttft: 0.2, mean_ttft: 0.2, p90_ttft: 0.25, p99_ttft: 0.3,
    median_tpot: tpotS, mean_tpot: tpotS, median_intvty: p.intvty, mean_intvty: p.intvty,
    median_itl: tpotS, p99_itl: tpotS * 2, median_e2el: e2el, mean_e2el: e2el, p90_e2el: e2el * 1.1,
    engine_flags: prov.engine_flags, host: prov.host, infermark_version: prov.infermark_version,
    benchmark_start_time_unix: Date.parse(`${run.date}T03:00:00Z`) / 1000 + p.conc,
  };
  // The nightly vllm points were measured three times: the record's repeats block as `results
  // process` writes it (the figures per repeat; the API computes the intervals from them).
  if (run.key.startsWith('nightly') && !p.framework && !p.invalid) {
    const s = REPEAT_SPREAD[p.hw];
    const up = [1, 1 - s, 1 + s];
    const times = (key, f) => up.map((u) => record[key] * f(u));
    record.repeats = {
      count: 3, server: 'same', confidence_level: 0.95, method: 'order-statistics',
      values: {
        tput_per_gpu: times('tput_per_gpu', (u) => u),
        output_tput_per_gpu: times('output_tput_per_gpu', (u) => u),
        input_tput_per_gpu: times('input_tput_per_gpu', (u) => u),
        // Interactivity moves a fifth as much: the iso value at a target stays a throughput figure.
        median_intvty: times('median_intvty', (u) => u ** 0.2),
        median_tpot: times('median_tpot', (u) => u ** -0.2),
        median_e2el: times('median_e2el', (u) => u ** -0.2),
        median_ttft: times('median_ttft', () => 1),
      },
    };
  }
  // The client result's verdict, as `infermark bench` writes it; the others carry none (as
  // InferenceX's own records), which is not INVALID.
  if (p.invalid) {
    record.verdict = 'INVALID';
    record.verdict_reasons = INVALID_REASONS;
  }
  if (run.predicted) {
    record.predicted = true;
    record.time_scale = run.timeScale;
    const b = PREDICTION_BAND;
    const band = (v, [low, high]) => ({ band_p10: v * low, band_p90: v * high });
    record.prediction_band = { scope: b.scope, residuals: b.residuals, figures: {
      tput_per_gpu: band(p.tput, b.tput), output_tput_per_gpu: band(p.tput / 2, b.tput),
      input_tput_per_gpu: band(p.tput / 2, b.tput), median_intvty: band(p.intvty, b.intvty),
      median_e2el: band(e2el, b.e2el), median_ttft: band(0.2, b.e2el) } };
  }
  return record;
}

/// Writes `run`'s records under `dir` and stores them in `db` as one run with `binary`.
export function ingestRun(binary, dir, db, run) {
  const runDir = path.join(dir, run.key);
  fs.mkdirSync(runDir, { recursive: true });
  for (const p of run.points) {
    const name = `agg_dsr1_1k1k_${p.hw}_${p.framework || 'vllm'}_${p.precision || 'fp8'}_tp${p.tp || 8}_conc${p.conc}.json`;
    fs.writeFileSync(path.join(runDir, name), JSON.stringify(aggRecord(run, p), null, 1));
  }
  if (run.key === 'nightly-2') for (const e of EVALUATIONS) writeEvalFolder(runDir, e);
  const args = ['results', 'ingest', '--db', db, '--run', run.key, '--label', run.label, runDir];
  if (run.predicted) args.push('--predicted');
  execFileSync(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
}

const here = path.dirname(fileURLToPath(import.meta.url));
const AGENTIC_SOURCE = path.resolve(here, '../../fixtures/agentic-aggregates/sweep');

/// Users of the agentic points (one aggregate each).
export const AGENTIC_USERS = [8, 32];

// Stores the agentic aggregates, re-labelled as this fixture's model, hardware and framework.
function ingestAgentic(binary, dir, db) {
  const runDir = path.join(dir, 'agentic-1');
  fs.mkdirSync(runDir, { recursive: true });
  for (const users of AGENTIC_USERS) {
    const name = `qwen3.5_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc${users}_b300.json`;
    const aggregate = JSON.parse(fs.readFileSync(path.join(AGENTIC_SOURCE, name), 'utf8'));
    Object.assign(aggregate, { model: MODEL, infmax_model_prefix: 'dsr1', hw: 'h100', framework: 'vllm',
      image: PROVENANCE.image, host: PROVENANCE.host, engine_flags: PROVENANCE.engine_flags,
      infermark_version: PROVENANCE.infermark_version });
    fs.writeFileSync(path.join(runDir, `agentic_conc${users}.json`), JSON.stringify(aggregate));
  }
  execFileSync(binary, ['results', 'ingest', '--db', db, '--run', 'agentic-1', '--label', 'agentic 1', runDir],
    { stdio: ['ignore', 'pipe', 'inherit'] });
}

/// Stores every run of the fixture in `db` (records written under `dir`).
export function buildStore(binary, dir, db) {
  for (const run of RUNS) ingestRun(binary, dir, db, run);
  ingestAgentic(binary, dir, db);
}
