// Node module hooks: @actions/workflow-parser imports its JSON schemas without an import
// attribute (it is written for bundlers); Node 20 loads a JSON module only with `type: "json"`.
export async function load(url, context, nextLoad) {
  if (url.endsWith(".json")) return nextLoad(url, { ...context, importAttributes: { type: "json" } });
  return nextLoad(url, context);
}
