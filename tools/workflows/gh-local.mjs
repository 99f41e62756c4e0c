// A stand-in for the `gh` CLI inside run-workflow.mjs: GitHub's API is not reachable from a test,
// so the few calls the shipped workflows make are answered from the runs that run-workflow.mjs
// recorded under $GH_LOCAL_STATE: `gh run list` (runs of a workflow on a branch, newest first),
// `gh run download` (an artifact of an earlier run) and `gh pr comment` (kept as
// $GH_LOCAL_STATE/pulls/<number>/comments/<n>.md). Anything else fails, naming what was asked.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const state = process.env.GH_LOCAL_STATE;
if (!state) {
  console.error("gh (local stand-in): GH_LOCAL_STATE is not set");
  process.exit(2);
}
const argv = process.argv.slice(2);

function options(list) {
  const opts = { _: [] };
  for (let i = 0; i < list.length; ++i) {
    const a = list[i];
    if (a === "--edit-last") opts.editLast = true;
    else if (a.startsWith("-")) opts[a.replace(/^-+/, "")] = list[++i];
    else opts._.push(a);
  }
  return opts;
}

function runs() {
  const dir = path.join(state, "runs");
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir)
    .map((id) => path.join(dir, id, "run.json"))
    .filter((f) => fs.existsSync(f))
    .map((f) => JSON.parse(fs.readFileSync(f, "utf8")))
    .sort((a, b) => Number(b.id) - Number(a.id));
}

function print(value, jq) {
  const text = JSON.stringify(value);
  if (!jq) {
    console.log(text);
    return;
  }
  const r = spawnSync("jq", ["-r", jq], { input: text, encoding: "utf8" });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exit(r.status ?? 1);
}

const [group, command, ...rest] = argv;
const o = options(rest);
if (group === "run" && command === "list") {
  const fields = (o.json ?? "databaseId").split(",");
  const found = runs()
    .filter((r) => !o.workflow || r.workflow === o.workflow || r.path.endsWith(`/${o.workflow}`))
    .filter((r) => !o.branch || r.head_branch === o.branch)
    .filter((r) => !o.status || r.conclusion === o.status || (o.status === "completed" && r.conclusion))
    .slice(0, Number(o.limit ?? 20))
    .map((r) => {
      const all = { databaseId: Number(r.id), attempt: r.attempt, conclusion: r.conclusion, headBranch: r.head_branch,
        headSha: r.head_sha, event: r.event, workflowName: r.workflow, status: "completed" };
      return Object.fromEntries(fields.map((f) => [f, all[f] ?? null]));
    });
  print(found, o.jq);
} else if (group === "run" && command === "download") {
  const artifact = path.join(state, "runs", o._[0] ?? "", "artifacts", o.n ?? o.name ?? "");
  if (!o._[0] || !(o.n || o.name) || !fs.existsSync(artifact)) {
    console.error(`gh (local stand-in): no artifact '${o.n ?? o.name}' in run ${o._[0]}`);
    process.exit(1);
  }
  const target = path.resolve(o.D ?? o.dir ?? ".");
  fs.mkdirSync(target, { recursive: true });
  fs.cpSync(artifact, target, { recursive: true });
} else if (group === "pr" && command === "comment") {
  const dir = path.join(state, "pulls", String(o._[0]), "comments");
  fs.mkdirSync(dir, { recursive: true });
  const existing = fs.readdirSync(dir).sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
  const body = fs.readFileSync(o["body-file"], "utf8");
  if (o.editLast) {
    if (existing.length === 0) {
      console.error("no comments found for current user");
      process.exit(1);
    }
    fs.writeFileSync(path.join(dir, existing[existing.length - 1]), body);
  } else {
    fs.writeFileSync(path.join(dir, `${existing.length + 1}.md`), body);
  }
} else {
  console.error(`gh (local stand-in): '${argv.join(" ")}' is not emulated`);
  process.exit(2);
}
