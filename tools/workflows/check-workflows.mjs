// Checks the shipped GitHub Actions workflows and composite actions with GitHub's own parser
// (@actions/workflow-parser): the schema of every key, every ${{ }} expression (syntax, the
// contexts and functions allowed where it stands), the jobs' `needs` graph (unknown jobs, cycles)
// and the calls of local reusable workflows (their inputs and secrets), as github.com would on a
// push. Usage: node check-workflows.mjs REPO_ROOT. Exit 0 when every file parses clean, 1 with one
// line per error otherwise, 2 when there is nothing to check.
import fs from "node:fs";
import { register } from "node:module";
import path from "node:path";

register("./json-hooks.mjs", import.meta.url);
const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import("@actions/workflow-parser");
const { ErrorPolicy } = await import("@actions/workflow-parser/model/convert");
const { parseAction, convertActionTemplate } = await import("@actions/workflow-parser/actions/index");

const root = path.resolve(process.argv[2] ?? ".");
const trace = new NoOperationTraceWriter();

function listFiles(dir, match) {
  if (!fs.existsSync(dir)) return [];
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listFiles(full, match));
    else if (match(entry.name)) found.push(full);
  }
  return found.sort();
}

// Local reusable workflows (`uses: ./.github/workflows/x.yml`) are read from the checkout, so the
// converter checks each call's `with:` and `secrets:` against the callee's `workflow_call`.
const fileProvider = {
  getFileContent: async (ref) => {
    if (!("path" in ref) || "repository" in ref) throw new Error(`remote reusable workflow ${JSON.stringify(ref)}`);
    const file = path.join(root, ref.path);
    return { name: ref.path, content: fs.readFileSync(file, "utf8") };
  },
};

function errorsOf(context, extra = []) {
  return [...context.errors.getErrors().map((e) => e.message), ...extra];
}

async function checkWorkflow(file) {
  const name = path.relative(root, file);
  const parsed = parseWorkflow({ name, content: fs.readFileSync(file, "utf8") }, trace);
  if (parsed.value === undefined) return errorsOf(parsed.context);
  const template = await convertWorkflowTemplate(parsed.context, parsed.value, fileProvider, {
    fetchReusableWorkflowDepth: 1,
    errorPolicy: ErrorPolicy.TryConversion,
  });
  const problems = errorsOf(parsed.context, (template.errors ?? []).map((e) => e.Message));
  if (template.jobs.length === 0) problems.push(`${name}: no jobs`);
  return [...new Set(problems)];
}

async function checkAction(file) {
  const name = path.relative(root, file);
  const parsed = parseAction({ name, content: fs.readFileSync(file, "utf8") }, trace);
  if (parsed.value === undefined) return errorsOf(parsed.context);
  const template = convertActionTemplate(parsed.context, parsed.value);
  const problems = errorsOf(parsed.context);
  if (!template || !template.runs) problems.push(`${name}: no runs section`);
  return [...new Set(problems)];
}

const workflows = listFiles(path.join(root, ".github", "workflows"), (n) => /\.ya?ml$/.test(n));
const actions = listFiles(path.join(root, ".github", "actions"), (n) => /^action\.ya?ml$/.test(n));
if (workflows.length === 0) {
  console.error(`no workflows under ${path.join(root, ".github", "workflows")}`);
  process.exit(2);
}
let failures = 0;
for (const [file, check] of [...workflows.map((f) => [f, checkWorkflow]), ...actions.map((f) => [f, checkAction])]) {
  const problems = await check(file);
  const name = path.relative(root, file);
  if (problems.length === 0) {
    console.log(`ok     ${name}`);
    continue;
  }
  failures += problems.length;
  for (const p of problems) console.log(`ERROR  ${p.startsWith(name) ? p : `${name}: ${p}`}`);
}
console.log(`${workflows.length} workflow(s), ${actions.length} action(s): ${failures === 0 ? "all parse clean" : `${failures} error(s)`}`);
process.exit(failures === 0 ? 0 : 1);
