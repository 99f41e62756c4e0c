// Runs a GitHub Actions workflow on this machine, job by job and step by step, as a hosted runner
// would: GitHub's own parser reads the workflow (@actions/workflow-parser, reusable workflows
// included) and GitHub's own expression engine evaluates every ${{ }} (@actions/expressions).
// Jobs run in the order of their `needs`, matrices expand (include/exclude), `if:` conditions and
// status functions decide what runs, `run:` steps run in bash with GITHUB_OUTPUT, GITHUB_ENV,
// GITHUB_PATH and GITHUB_STEP_SUMMARY honoured, and composite actions of the repository run their
// steps. What GitHub's servers provide is stood in for locally: actions/checkout clones the
// repository at the event's commit, actions/upload-artifact and actions/download-artifact keep
// artifacts per run under the state folder, and `gh` (tools/workflows/gh-local.mjs) answers from
// the runs recorded there. Every job runs in a fresh workspace; any other `uses:` is refused.
//
// node run-workflow.mjs --repo DIR --workflow .github/workflows/X.yml --event NAME --state DIR
//   [--payload event.json] [--inputs inputs.json] [--sha SHA] [--ref REF] [--run-id N]
//   [--var K=V]… [--secret K=V]… [--env K=V]… [--runner-name LABEL=NAME]… [--only-jobs a,b]
// Writes STATE/runs/<id>/report.json (jobs, steps, outcomes, annotations, the environment of every
// step) and prints one line per job; exit 0 when the run concludes success, 1 otherwise.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

register("./json-hooks.mjs", import.meta.url);
const wp = await import("@actions/workflow-parser");
const { parseAction, convertActionTemplate } = await import("@actions/workflow-parser/actions/index");
const { Lexer, Parser, Evaluator, data } = await import("@actions/expressions");
const YAML = (await import("yaml")).default;

const here = path.dirname(fileURLToPath(import.meta.url));

// --- arguments --------------------------------------------------------------------------------

function parseArgs(argv) {
  const args = { vars: {}, secrets: {}, env: {}, runnerNames: {}, onlyJobs: null };
  const pair = (text, into, flag) => {
    const at = text.indexOf("=");
    if (at <= 0) throw new Error(`${flag} wants KEY=VALUE, got '${text}'`);
    into[text.slice(0, at)] = text.slice(at + 1);
  };
  for (let i = 2; i < argv.length; ++i) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case "--repo": args.repo = path.resolve(value); break;
      case "--workflow": args.workflow = value; break;
      case "--event": args.event = value; break;
      case "--state": args.state = path.resolve(value); break;
      case "--payload": args.payload = JSON.parse(fs.readFileSync(value, "utf8")); break;
      case "--inputs": args.inputs = JSON.parse(fs.readFileSync(value, "utf8")); break;
      case "--sha": args.sha = value; break;
      case "--ref": args.ref = value; break;
      case "--run-id": args.runId = value; break;
      case "--var": pair(value, args.vars, flag); break;
      case "--secret": pair(value, args.secrets, flag); break;
      case "--env": pair(value, args.env, flag); break;
      case "--runner-name": pair(value, args.runnerNames, flag); break;
      case "--only-jobs": args.onlyJobs = value.split(","); break;
      default: throw new Error(`unknown flag ${flag}`);
    }
  }
  for (const required of ["repo", "workflow", "event", "state"]) {
    if (!args[required]) throw new Error(`--${required} is required`);
  }
  return args;
}

const args = parseArgs(process.argv);
const git = (...a) => {
  const r = spawnSync("git", ["-C", args.repo, ...a], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${a.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
};

// --- expressions --------------------------------------------------------------------------------

const kContexts = ["github", "env", "vars", "secrets", "inputs", "matrix", "strategy", "needs", "steps", "runner",
  "job", "jobs"];
const toData = (value) => JSON.parse(JSON.stringify(value ?? null), data.reviver);
const fromData = (value) => JSON.parse(JSON.stringify(value, data.replacer));

function statusFunctions(status = { success: true, failure: false }) {
  const fn = (name, result) => ({ name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(result()) });
  return [
    fn("success", () => status.success),
    fn("failure", () => status.failure),
    fn("always", () => true),
    fn("cancelled", () => false),
    { name: "hashFiles", minArgs: 1, maxArgs: 255, call: () => { throw new Error("hashFiles is not emulated"); } },
  ];
}

function evaluateExpression(expr, scope) {
  const functions = statusFunctions(scope.status);
  const tokens = new Lexer(expr).lex();
  const tree = new Parser(tokens.tokens, kContexts, functions).parse();
  const context = new data.Dictionary();
  for (const name of kContexts) context.add(name, toData(scope[name] ?? {}));
  return new Evaluator(tree, context, new Map(functions.map((f) => [f.name.toLowerCase(), f]))).evaluate();
}

function truthy(value) {
  switch (value.kind) {
    case data.Kind.Boolean: return value.value;
    case data.Kind.Number: return value.number() !== 0 && !Number.isNaN(value.number());
    case data.Kind.String: return value.value !== "";
    case data.Kind.Null: return false;
    default: return true;
  }
}

// A scalar with expressions inside text (`echo ${{ x }}`), as GitHub's runner evaluates it: the
// scalar's own value (a block scalar folded or kept as YAML says), each `${{ }}` replaced by its
// value as text. The parser also offers it as a format() call, but that call keeps a block
// scalar's indentation and folds nothing, and @actions/expressions' lexer unescapes only the first
// doubled quote of a string literal, so the format() text does not survive evaluation intact.
function embeddedExpressions(token, scope) {
  const text = token.blockScalarHeader ? YAML.parse(`x: ${token.blockScalarHeader}\n${token.source}`).x : token.source;
  let out = "";
  let i = 0;
  for (;;) {
    const start = text.indexOf("${{", i);
    if (start < 0) return out + text.slice(i);
    out += text.slice(i, start);
    // The expression ends at the first `}}` outside a string literal ('' stays inside one).
    let j = start + 3;
    let quoted = false;
    for (; j < text.length; ++j) {
      if (text[j] === "'") quoted = !quoted;
      else if (!quoted && text.startsWith("}}", j)) break;
    }
    if (j >= text.length) throw new Error(`an expression without its closing }} in: ${text}`);
    out += evaluateExpression(text.slice(start + 3, j).trim(), scope).coerceString();
    i = j + 2;
  }
}

// A template token as a plain value, its expressions evaluated in `scope`.
function evaluate(token, scope) {
  if (token === undefined || token === null) return undefined;
  switch (token.templateTokenType) {
    case 0: return token.value;  // string
    case 5: return token.value;  // boolean
    case 6: return token.value;  // number
    case 7: return null;
    case 3:
      return token.originalExpressions?.length && token.source !== undefined ? embeddedExpressions(token, scope)
        : fromData(evaluateExpression(token.expr, scope));
    case 1: return [...token].map((t) => evaluate(t, scope));
    case 2: {
      const out = {};
      for (const { key, value } of token) out[evaluate(key, scope)] = evaluate(value, scope);
      return out;
    }
    default: throw new Error(`token type ${token.templateTokenType} is not emulated`);
  }
}

// A value as GitHub writes it into an environment variable or a string field.
function asText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// A mapping token's value for `key` (undefined when absent).
const field = (mapping, key) => (mapping && mapping.templateTokenType === 2 ? mapping.find(key) : undefined);
const text = (token) => (token === undefined ? undefined : asText(token.value));

function condition(token, scope) {
  if (!token) return scope.status.success;
  const expr = token.templateTokenType === 3 ? token.expr : asText(token.value);
  const usesStatus = /\b(success|failure|always|cancelled)\s*\(/i.test(expr);
  return truthy(evaluateExpression(usesStatus ? expr : `success() && (${expr})`, scope));
}

// --- files GitHub's runner hands to steps ---------------------------------------------------------

// NAME=value lines and NAME<<DELIMITER blocks, as GITHUB_OUTPUT and GITHUB_ENV hold them.
function readCommandFile(file) {
  const values = {};
  if (!fs.existsSync(file)) return values;
  const lines = fs.readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; ++i) {
    const line = lines[i];
    if (line === "") continue;
    const heredoc = line.match(/^([^=]+?)<<(.+)$/);
    if (heredoc && !line.includes("=")) {
      const body = [];
      for (++i; i < lines.length && lines[i] !== heredoc[2]; ++i) body.push(lines[i]);
      if (i >= lines.length) throw new Error(`${file}: '${heredoc[1]}' has no closing ${heredoc[2]}`);
      values[heredoc[1]] = body.join("\n");
      continue;
    }
    const at = line.indexOf("=");
    if (at <= 0) throw new Error(`${file}: '${line}' is neither NAME=value nor NAME<<DELIMITER`);
    values[line.slice(0, at)] = line.slice(at + 1);
  }
  return values;
}

// --- artifacts -------------------------------------------------------------------------------

function copyTree(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

function globToRegExp(pattern) {
  let re = "";
  for (let i = 0; i < pattern.length; ++i) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      re += ".*";
      ++i;
      if (pattern[i + 1] === "/") ++i;
    } else if (c === "*") {
      re += "[^/]*";
    } else if (c === "?") {
      re += "[^/]";
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${re}$`);
}

function walk(dir, base = dir) {
  const found = [];
  if (!fs.existsSync(dir)) return found;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...walk(full, base));
    else found.push(path.relative(base, full));
  }
  return found;
}

// actions/upload-artifact@v4: the files `paths` name (files, folders, globs; `!` excludes),
// stored relative to their least common ancestor, under a name unique in the run.
function uploadArtifact(run, workspace, withs, log) {
  const name = asText(withs.name || "artifact");
  const dest = path.join(run.dir, "artifacts", name);
  if (fs.existsSync(dest)) throw new Error(`an artifact named '${name}' already exists in this run`);
  const patterns = asText(withs.path).split("\n").map((p) => p.trim()).filter(Boolean);
  const files = new Set();
  for (const pattern of patterns.filter((p) => !p.startsWith("!"))) {
    const absolute = path.resolve(workspace, pattern);
    if (!/[*?]/.test(pattern)) {
      if (fs.existsSync(absolute) && fs.statSync(absolute).isDirectory()) {
        for (const f of walk(absolute)) files.add(path.join(absolute, f));
      } else if (fs.existsSync(absolute)) {
        files.add(absolute);
      }
      continue;
    }
    const fixed = absolute.split(/[*?]/)[0];
    const root = fixed.endsWith("/") ? fixed : path.dirname(fixed);
    const re = globToRegExp(absolute);
    for (const f of walk(root)) {
      const full = path.join(root, f);
      if (re.test(full)) files.add(full);
    }
  }
  if (files.size === 0) {
    const mode = asText(withs["if-no-files-found"] || "warn");
    const message = `no files found at ${patterns.join(", ")} for artifact '${name}'`;
    if (mode === "error") throw new Error(message);
    if (mode === "warn") log(`::warning::${message}`);
    return;
  }
  const list = [...files].sort();
  // The least common ancestor of the search paths' fixed parts is the artifact's root.
  const roots = patterns.map((p) => {
    const absolute = path.resolve(workspace, p);
    const fixed = absolute.split(/[*?]/)[0];
    return fs.existsSync(fixed) && fs.statSync(fixed).isDirectory() ? fixed.replace(/\/$/, "") : path.dirname(fixed);
  });
  let common = roots[0];
  for (const r of roots.slice(1)) {
    while (!(r === common || r.startsWith(common + "/"))) common = path.dirname(common);
  }
  for (const f of list) copyTree(f, path.join(dest, path.relative(common, f)));
  log(`uploaded ${list.length} file(s) as '${name}'`);
}

// actions/download-artifact@v4: one artifact by name, or every one a pattern matches (each in a
// folder of its name unless merge-multiple), from this run or from `run-id`.
function downloadArtifact(run, workspace, withs, log) {
  const runDir = withs["run-id"] ? path.join(args.state, "runs", asText(withs["run-id"])) : run.dir;
  const store = path.join(runDir, "artifacts");
  const target = path.resolve(workspace, asText(withs.path || "."));
  const all = fs.existsSync(store) ? fs.readdirSync(store).sort() : [];
  if (withs.name) {
    const name = asText(withs.name);
    if (!all.includes(name)) throw new Error(`artifact '${name}' not found in run ${path.basename(runDir)}`);
    copyTree(path.join(store, name), target);
    log(`downloaded '${name}'`);
    return;
  }
  const re = withs.pattern ? globToRegExp(asText(withs.pattern)) : /.*/;
  const names = all.filter((n) => re.test(n));
  for (const name of names) {
    copyTree(path.join(store, name), withs["merge-multiple"] === true || withs["merge-multiple"] === "true"
      ? target : path.join(target, name));
  }
  fs.mkdirSync(target, { recursive: true });
  log(`downloaded ${names.length} artifact(s)`);
}

// --- steps -------------------------------------------------------------------------------------

function runShell(script, shell, cwd, env, logFile) {
  const dir = fs.mkdtempSync(path.join(env.RUNNER_TEMP, "step-"));
  const file = path.join(dir, "script.sh");
  fs.writeFileSync(file, script);
  const command = (shell || "bash --noprofile --norc -eo pipefail {0}").replace("{0}", file);
  const parts = command === "bash" ? ["bash", "--noprofile", "--norc", "-eo", "pipefail", file]
    : command === "sh" ? ["sh", "-e", file] : command.split(/\s+/);
  const result = spawnSync(parts[0], parts.slice(1), { cwd, env, encoding: "utf8", maxBuffer: 1 << 28 });
  fs.appendFileSync(logFile, (result.stdout ?? "") + (result.stderr ?? ""));
  return { status: result.status ?? 1, output: (result.stdout ?? "") + (result.stderr ?? "") };
}

function annotations(output) {
  const found = [];
  for (const line of output.split("\n")) {
    const m = line.match(/^::(error|warning|notice)(?: [^:]*)?::(.*)$/);
    if (m) found.push({ level: m[1], message: m[2] });
  }
  return found;
}

class JobRunner {
  constructor(run, job, scope, label) {
    this.run = run;
    this.job = job;
    this.scope = scope;
    this.label = label;
    this.instance = `${run.jobCount++}-${label.replace(/[^A-Za-z0-9_.-]+/g, "_")}`.slice(0, 120);
    this.workspace = path.join(run.dir, "work", this.instance);
    this.temp = path.join(run.dir, "temp", this.instance);
    this.logs = path.join(run.dir, "logs", this.instance);
    for (const d of [this.workspace, this.temp, this.logs]) fs.mkdirSync(d, { recursive: true });
    this.globalEnv = {};  // GITHUB_ENV, over job env
    this.paths = [];
    this.summary = "";
    this.steps = [];
    this.failed = false;
  }

  baseEnv(runnerName) {
    const gh = this.scope.github;
    const env = {
      PATH: [...this.paths, path.join(args.state, "bin"), process.env.PATH].join(":"),
      HOME: process.env.HOME, LANG: process.env.LANG || "C.UTF-8", USER: process.env.USER || "runner",
      CI: "true", GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: this.workspace, GITHUB_REPOSITORY: gh.repository,
      GITHUB_REPOSITORY_OWNER: gh.repository_owner, GITHUB_RUN_ID: gh.run_id, GITHUB_RUN_NUMBER: gh.run_number,
      GITHUB_RUN_ATTEMPT: gh.run_attempt, GITHUB_SHA: gh.sha, GITHUB_REF: gh.ref, GITHUB_REF_NAME: gh.ref_name,
      GITHUB_EVENT_NAME: gh.event_name, GITHUB_EVENT_PATH: this.run.eventPath, GITHUB_JOB: this.scope.jobId,
      GITHUB_WORKFLOW: gh.workflow, GITHUB_WORKFLOW_REF: gh.workflow_ref, GITHUB_WORKFLOW_SHA: gh.workflow_sha,
      GITHUB_SERVER_URL: gh.server_url, GITHUB_API_URL: gh.api_url, GITHUB_ACTOR: gh.actor,
      GITHUB_BASE_REF: gh.base_ref ?? "", GITHUB_HEAD_REF: gh.head_ref ?? "",
      RUNNER_NAME: runnerName, RUNNER_OS: "Linux", RUNNER_ARCH: "X64", RUNNER_TEMP: this.temp,
      RUNNER_TOOL_CACHE: path.join(args.state, "toolcache"), GH_LOCAL_STATE: args.state,
      GH_LOCAL_RUN_DIR: this.run.dir,
    };
    return { ...env, ...args.env };
  }

  async execute() {
    const job = this.job;
    const runsOn = evaluate(field(job, "runs-on"), this.scope);
    const labels = Array.isArray(runsOn) ? runsOn.map(asText) : [asText(runsOn)];
    const label = labels.find((l) => l !== "self-hosted") ?? labels[0];
    const runnerName = args.runnerNames[label] ?? `${label.replace(/[^A-Za-z0-9-]+/g, "-")}_00`;
    this.runsOn = labels;
    this.runnerName = runnerName;
    this.scope.github = { ...this.scope.github, workspace: this.workspace };
    this.scope.runner = { os: "Linux", arch: "X64", name: runnerName, temp: this.temp,
      tool_cache: path.join(args.state, "toolcache") };
    this.jobEnv = {};
    const scopeWithEnv = () => ({ ...this.scope, env: { ...this.run.workflowEnv, ...this.jobEnv, ...this.globalEnv } });
    this.jobEnv = Object.fromEntries(Object.entries(evaluate(field(job, "env"), { ...this.scope, env: this.run.workflowEnv }) ?? {})
      .map(([k, v]) => [k, asText(v)]));
    this.scope.steps = {};
    for (const step of field(job, "steps") ?? []) {
      await this.step(step, scopeWithEnv, runnerName, this.scope.steps, null);
    }
    const outputs = {};
    if (field(job, "outputs")) {
      const evaluated = evaluate(field(job, "outputs"), { ...scopeWithEnv(), status: { success: !this.failed, failure: this.failed } });
      for (const [k, v] of Object.entries(evaluated)) outputs[k] = asText(v);
    }
    return { result: this.failed ? "failure" : "success", outputs };
  }

  // One step (of the job, or of a composite action when `action` is given).
  async step(step, scopeWithEnv, runnerName, stepsContext, action) {
    const index = this.steps.length;
    const status = { success: !this.failed, failure: this.failed };
    const scope = { ...scopeWithEnv(), steps: stepsContext, status, inputs: action ? action.inputs : this.scope.inputs };
    const run = field(step, "run");
    const uses = text(field(step, "uses"));
    const name = asText(evaluate(field(step, "name"), scope) ?? (run ? "Run" : `Run ${uses}`));
    const id = text(field(step, "id"));
    const record = { name, id, uses: uses ?? null, outcome: "skipped", conclusion: "skipped", annotations: [], log: null };
    this.steps.push(record);
    if (!condition(field(step, "if"), scope)) {
      if (id) stepsContext[id] = { outputs: {}, outcome: "skipped", conclusion: "skipped" };
      return;
    }
    const stepEnv = Object.fromEntries(Object.entries(evaluate(field(step, "env"), scope) ?? {}).map(([k, v]) => [k, asText(v)]));
    const logFile = path.join(this.logs, `${String(index).padStart(2, "0")}.log`);
    record.log = logFile;
    const files = {};
    for (const name of ["GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"]) {
      files[name] = path.join(this.temp, `_${name.toLowerCase()}_${index}`);
      fs.writeFileSync(files[name], "");
    }
    const env = { ...this.baseEnv(runnerName), ...this.run.workflowEnv, ...this.jobEnv, ...this.globalEnv,
      ...(action ? action.env : {}), ...stepEnv, ...files };
    if (action) env.GITHUB_ACTION_PATH = action.dir;
    record.env = Object.fromEntries(Object.entries(env).filter(([k]) => !Object.keys(files).includes(k)));
    let ok = true;
    let output = "";
    const log = (line) => {
      output += line + "\n";
      fs.appendFileSync(logFile, line + "\n");
    };
    try {
      if (run) {
        const script = asText(evaluate(run, scope));
        const cwd = path.resolve(this.workspace, asText(evaluate(field(step, "working-directory"), scope) ?? "."));
        const shell = field(step, "shell") ? asText(evaluate(field(step, "shell"), scope)) : undefined;
        const r = runShell(script, shell, cwd, env, logFile);
        output += r.output;
        ok = r.status === 0;
        if (!ok) log(`Process completed with exit code ${r.status}.`);
      } else {
        await this.uses(uses, step, scope, env, stepsContext, id, runnerName, log);
      }
    } catch (e) {
      log(`::error::${e.message}`);
      ok = false;
    }
    record.annotations = annotations(output);
    // What the step left for the steps after it.
    const outputs = readCommandFile(files.GITHUB_OUTPUT);
    Object.assign(this.globalEnv, readCommandFile(files.GITHUB_ENV));
    for (const p of fs.readFileSync(files.GITHUB_PATH, "utf8").split("\n").filter(Boolean).reverse()) this.paths.unshift(p);
    this.summary += fs.readFileSync(files.GITHUB_STEP_SUMMARY, "utf8");
    const continueOnError = evaluate(field(step, "continue-on-error"), scope) === true;
    record.outcome = ok ? "success" : "failure";
    record.conclusion = ok || continueOnError ? "success" : "failure";
    if (id) {
      const previous = stepsContext[id]?.outputs ?? {};
      stepsContext[id] = { outputs: { ...previous, ...outputs }, outcome: record.outcome, conclusion: record.conclusion };
    }
    if (record.conclusion === "failure") this.failed = true;
  }

  async uses(uses, step, scope, env, stepsContext, id, runnerName, log) {
    const withs = evaluate(field(step, "with"), scope) ?? {};
    if (uses.startsWith("actions/checkout@")) {
      const r = spawnSync("git", ["clone", "-q", args.repo, this.workspace + ".clone"], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`checkout: ${r.stderr}`);
      fs.rmSync(this.workspace, { recursive: true, force: true });
      fs.renameSync(this.workspace + ".clone", this.workspace);
      const c = spawnSync("git", ["-C", this.workspace, "checkout", "-q", this.scope.github.sha], { encoding: "utf8" });
      if (c.status !== 0) throw new Error(`checkout ${this.scope.github.sha}: ${c.stderr}`);
      log(`checked out ${this.scope.github.sha}`);
    } else if (uses.startsWith("actions/upload-artifact@")) {
      uploadArtifact(this.run, this.workspace, withs, log);
    } else if (uses.startsWith("actions/download-artifact@")) {
      downloadArtifact(this.run, this.workspace, withs, log);
    } else if (uses.startsWith("./")) {
      await this.composite(path.join(this.workspace, uses), withs, scope, env, stepsContext, id, runnerName);
    } else {
      throw new Error(`'uses: ${uses}' is not emulated here`);
    }
  }

  // A composite action of the repository: its inputs (defaults included), its steps, its outputs.
  async composite(dir, withs, scope, env, stepsContext, id, runnerName) {
    const file = ["action.yml", "action.yaml"].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
    if (!file) throw new Error(`no action.yml in ${dir}`);
    const parsed = parseAction({ name: path.relative(this.workspace, file), content: fs.readFileSync(file, "utf8") },
      new wp.NoOperationTraceWriter());
    const errors = parsed.context.errors.getErrors();
    if (errors.length > 0) throw new Error(errors.map((e) => e.message).join("; "));
    const runs = field(parsed.value, "runs");
    if (text(field(runs, "using")) !== "composite") throw new Error(`${file}: only composite actions are emulated`);
    const inputs = {};
    for (const { key, value } of field(parsed.value, "inputs") ?? []) {
      const name = text(key);
      inputs[name] = asText(withs[name] !== undefined ? withs[name] : evaluate(field(value, "default"), scope) ?? "");
    }
    const inner = {};
    const context = { inputs, env: {}, dir };
    const scopeWithEnv = () => ({ ...scope, env: { ...scope.env, ...this.globalEnv }, inputs });
    for (const step of field(runs, "steps") ?? []) await this.step(step, scopeWithEnv, runnerName, inner, context);
    const outputs = {};
    for (const { key, value } of field(parsed.value, "outputs") ?? []) {
      outputs[text(key)] = asText(evaluate(field(value, "value"), { ...scopeWithEnv(), steps: inner, status: { success: true } }));
    }
    if (id) stepsContext[id] = { outputs, outcome: "success", conclusion: "success" };
    if (Object.values(inner).some((st) => st.conclusion === "failure")) throw new Error(`composite action ${dir} failed`);
  }
}

// --- jobs and workflows ------------------------------------------------------------------------

// A strategy's matrix as its combinations: the product of its vectors, exclusions removed, then
// each include merged into the combinations it extends or added as one of its own.
function expandMatrix(matrix) {
  if (!matrix) return [null];
  const { include = [], exclude = [], ...vectors } = matrix;
  let combos = [{}];
  for (const [key, values] of Object.entries(vectors)) {
    combos = combos.flatMap((c) => (Array.isArray(values) ? values : [values]).map((v) => ({ ...c, [key]: v })));
  }
  if (Object.keys(vectors).length === 0) combos = [];
  const matches = (combo, partial) => Object.entries(partial).every(([k, v]) => JSON.stringify(combo[k]) === JSON.stringify(v));
  combos = combos.filter((c) => !exclude.some((e) => matches(c, e)));
  // An include extends every original combination whose original values it does not overwrite;
  // one that extends none is a combination of its own (and is never extended itself).
  const original = Object.keys(vectors);
  const originals = [...combos];
  for (const inc of include) {
    const overlap = Object.fromEntries(Object.entries(inc).filter(([k]) => original.includes(k)));
    const targets = originals.filter((c) => matches(c, overlap));
    if (targets.length > 0) targets.forEach((c) => Object.assign(c, inc));
    else combos.push({ ...inc });
  }
  if (combos.length === 0) throw new Error("the matrix has no combinations");
  if (combos.length > 256) throw new Error(`the matrix has ${combos.length} combinations, over GitHub's 256`);
  return combos;
}

// A workflow's jobs as {id, token}, in an order that puts every job after those it needs.
function orderJobs(jobsToken) {
  const jobs = [...(jobsToken ?? [])].map(({ key, value }) => ({ id: text(key), token: value }));
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const done = new Set();
  const sorted = [];
  const visit = (job) => {
    if (done.has(job.id)) return;
    for (const need of needsOf(job.token)) visit(byId.get(need));
    done.add(job.id);
    sorted.push(job);
  };
  jobs.forEach(visit);
  return sorted;
}

function needsOf(job) {
  const needs = field(job, "needs");
  if (needs === undefined) return [];
  return needs.templateTokenType === 1 ? [...needs].map(text) : [text(needs)];
}

function parseWorkflowFile(relative) {
  const parsed = wp.parseWorkflow({ name: relative, content: fs.readFileSync(path.join(args.repo, relative), "utf8") },
    new wp.NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors();
  if (errors.length > 0) throw new Error(`${relative}: ${errors.map((e) => e.message).join("; ")}`);
  return parsed.value;
}

async function runJobs(run, jobsToken, scopeBase, prefix) {
  const needs = {};
  const results = [];
  for (const { id, token: job } of orderJobs(jobsToken)) {
    if (args.onlyJobs && !prefix && !args.onlyJobs.includes(id)) continue;
    const myNeeds = Object.fromEntries(needsOf(job).map((n) => [n, needs[n]]));
    const needResults = Object.values(myNeeds).map((n) => n?.result ?? "skipped");
    const status = { success: needResults.every((r) => r === "success"), failure: needResults.includes("failure") };
    const base = { ...scopeBase, needs: myNeeds, status, jobId: id, env: run.workflowEnv };
    const entry = { id: prefix + id, instances: [], result: "skipped", outputs: {} };
    results.push(entry);
    needs[id] = entry;
    if (!condition(field(job, "if"), base)) {
      console.log(`job ${prefix}${id}: skipped`);
      continue;
    }
    const strategy = evaluate(field(job, "strategy"), base) ?? {};
    const combos = expandMatrix(strategy.matrix);
    let failed = false;
    for (const [index, combo] of combos.entries()) {
      const scope = { ...base, matrix: combo ?? {}, strategy: { "job-index": index, "job-total": combos.length,
        "fail-fast": strategy["fail-fast"] ?? true, "max-parallel": combos.length } };
      const title = asText(evaluate(field(job, "name"), scope) ?? id).replace(/\s+/g, " ").trim();
      let outcome;
      const called = text(field(job, "uses"));
      if (called) {
        if (!called.startsWith("./")) throw new Error(`job ${id}: remote reusable workflow '${called}' is not emulated`);
        const callee = parseWorkflowFile(called.slice(2));
        const inputs = { ...(evaluate(field(job, "with"), scope) ?? {}) };
        const definitions = field(field(field(callee, "on"), "workflow_call"), "inputs");
        for (const { key, value } of definitions ?? []) {
          const name = text(key);
          if (inputs[name] === undefined && field(value, "default") !== undefined) inputs[name] = evaluate(field(value, "default"), scope);
        }
        const inner = await runJobs(run, field(callee, "jobs"), { ...scopeBase, inputs }, `${prefix}${id}/`);
        outcome = { result: inner.some((j) => j.result === "failure") ? "failure" : "success", outputs: {}, inputs, jobs: inner };
      } else {
        const runner = new JobRunner(run, job, { ...scope, inputs: scopeBase.inputs ?? {} }, `${prefix}${id}-${index}`);
        outcome = await runner.execute();
        outcome.steps = runner.steps;
        outcome.runsOn = runner.runsOn;
        outcome.runnerName = runner.runnerName;
        outcome.summary = runner.summary;
        outcome.workspace = runner.workspace;
      }
      console.log(`job ${prefix}${id} [${index + 1}/${combos.length}] ${title}: ${outcome.result}`);
      entry.instances.push({ title, matrix: combo, ...outcome });
      entry.outputs = { ...entry.outputs, ...outcome.outputs };
      failed = failed || outcome.result === "failure";
    }
    entry.result = failed ? "failure" : "success";
  }
  return results;
}

async function main() {
  const file = path.join(args.repo, args.workflow);
  const fileProvider = {
    getFileContent: async (ref) => ({ name: ref.path, content: fs.readFileSync(path.join(args.repo, ref.path), "utf8") }),
  };
  const parsed = wp.parseWorkflow({ name: args.workflow, content: fs.readFileSync(file, "utf8") },
    new wp.NoOperationTraceWriter());
  const template = await wp.convertWorkflowTemplate(parsed.context, parsed.value, fileProvider,
    { fetchReusableWorkflowDepth: 1 });
  const errors = [...parsed.context.errors.getErrors().map((e) => e.message), ...(template.errors ?? []).map((e) => e.Message)];
  if (errors.length > 0) throw new Error(`${args.workflow}: ${errors.join("; ")}`);

  const sha = args.sha ?? git("rev-parse", "HEAD");
  const ref = args.ref ?? "refs/heads/main";
  const runsDir = path.join(args.state, "runs");
  fs.mkdirSync(runsDir, { recursive: true });
  const runId = args.runId ?? String(1000 + fs.readdirSync(runsDir).length);
  const run = { dir: path.join(runsDir, runId), jobCount: 0 };
  fs.rmSync(run.dir, { recursive: true, force: true });
  fs.mkdirSync(run.dir, { recursive: true });
  // gh answers from the state folder (tools/workflows/gh-local.mjs).
  fs.mkdirSync(path.join(args.state, "bin"), { recursive: true });
  fs.writeFileSync(path.join(args.state, "bin", "gh"), `#!/bin/sh\nexec node ${JSON.stringify(path.join(here, "gh-local.mjs"))} "$@"\n`,
    { mode: 0o755 });
  const payload = args.payload ?? {};
  payload.repository = { full_name: "infermark-ci/catalog", default_branch: "main", ...(payload.repository ?? {}) };
  run.eventPath = path.join(run.dir, "event.json");
  fs.writeFileSync(run.eventPath, JSON.stringify(payload, null, 2));
  const workflowName = text(field(parsed.value, "name")) ?? args.workflow;
  const pr = payload.pull_request;
  const github = {
    event_name: args.event, event: payload, sha: pr ? pr.head.sha : sha, ref: pr ? `refs/pull/${pr.number}/merge` : ref,
    ref_name: pr ? `${pr.number}/merge` : ref.replace(/^refs\/(heads|tags)\//, ""), head_ref: pr?.head.ref,
    base_ref: pr?.base.ref, repository: payload.repository.full_name, repository_owner: payload.repository.full_name.split("/")[0],
    run_id: runId, run_number: runId, run_attempt: "1", workflow: workflowName,
    workflow_ref: `${payload.repository.full_name}/${args.workflow}@${ref}`, workflow_sha: sha,
    server_url: "https://github.com", api_url: "https://api.github.com", actor: "infermark-ci", token: "local-token",
    workspace: "", action_path: "",
  };
  // workflow_dispatch inputs: those given, else their defaults.
  const inputs = { ...(args.inputs ?? {}) };
  for (const { key, value } of field(field(field(parsed.value, "on"), args.event), "inputs") ?? []) {
    const name = text(key);
    if (inputs[name] === undefined && field(value, "default") !== undefined) inputs[name] = evaluate(field(value, "default"), {});
  }
  run.workflowEnv = {};
  const scope = { github, vars: args.vars, secrets: { GITHUB_TOKEN: "local-token", ...args.secrets }, inputs, env: {} };
  run.workflowEnv = Object.fromEntries(Object.entries(evaluate(field(parsed.value, "env"), { ...scope, status: { success: true } }) ?? {})
    .map(([k, v]) => [k, asText(v)]));
  const jobs = await runJobs(run, field(parsed.value, "jobs"), scope, "");
  const conclusion = jobs.some((j) => j.result === "failure") ? "failure" : "success";
  const record = { id: runId, workflow: workflowName, path: args.workflow, event: args.event,
    head_branch: pr ? pr.head.ref : ref.replace(/^refs\/heads\//, ""), head_sha: github.sha, attempt: 1, conclusion };
  fs.writeFileSync(path.join(run.dir, "run.json"), JSON.stringify(record, null, 2));
  fs.writeFileSync(path.join(run.dir, "report.json"), JSON.stringify({ ...record, jobs }, null, 2));
  console.log(`run ${runId} (${workflowName}, ${args.event}): ${conclusion}`);
  process.exit(conclusion === "success" ? 0 : 1);
}

main().catch((e) => {
  console.error(`run-workflow: ${e.stack ?? e}`);
  process.exit(2);
});
