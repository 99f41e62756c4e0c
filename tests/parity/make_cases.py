#!/usr/bin/env python3
"""Records matrix parity cases for tests/matrix/parity_test.cpp.

Builds a few hundred argument lists for `full-sweep` and `test-config` that exercise every flag and
the ways flags interact. Runs InferenceX's generate_sweep_configs.py (the reference) on each one and
writes one JSON object per line to tests/fixtures/matrix-parity/cases.jsonl:

    {"args": [...], "rc_ok": bool, "rows": N, "sha256": "<sha256 of stdout, trailing whitespace
     stripped>", "category": "...", "ref_error": "<last stderr line, when the reference failed>"}

Every path in the arguments is relative to tests/fixtures/inferencex (configs/..., the seed under
../golden-matrix/), and the reference runs with that folder as its working directory. The C++ test
runs `infermark matrix <args> --format json` from the same folder and compares.

The reference script is not part of this repository; the copy at InferenceX 843c6254f lives in
../shared/reference/inferencex/ beside the source tree (the default), or point --reference at one:

    python3 tests/parity/make_cases.py --reference /path/to/utils/matrix_logic/generate_sweep_configs.py

It needs Python 3.11 with pydantic 2 and PyYAML. Case generation is deterministic (fixed seed);
--list prints the argument lists without running anything. The cli-argparse cases cover how
argparse reads command lines (option prefixes, repeated options, values starting with '-', int()).
On two cores a full run takes about 15 minutes.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKDIR = REPO / "tests" / "fixtures" / "inferencex"
DEFAULT_OUT = REPO / "tests" / "fixtures" / "matrix-parity" / "cases.jsonl"
DEFAULT_REFERENCE = REPO.parent / "shared" / "reference" / "inferencex" / "utils" / "matrix_logic" / "generate_sweep_configs.py"

MASTER = ["configs/amd-master.yaml", "configs/nvidia-master.yaml"]
SEED = "../golden-matrix/seed-minimaxm3-fp4-mi355x-vllm.yaml"
RUNNERS = ["--runner-config", "configs/runners.yaml"]

EVAL_MODES = [[], ["--no-evals"], ["--evals-only"], ["--all-evals"], ["--all-evals", "--evals-only"]]
NODE_MODES = [[], ["--single-node"], ["--multi-node"], ["--single-node", "--multi-node"]]
SCENARIOS = [
    ["--scenario-type", "fixed-seq-len"],
    ["--scenario-type", "agentic-coding"],
    ["--scenario-type", "fixed-seq-len", "agentic-coding"],
    ["--scenario-type", "agentic-coding", "fixed-seq-len"],
]


def deprecated_files() -> list[str]:
    return sorted(f"configs/deprecated/{p.name}" for p in (WORKDIR / "configs" / "deprecated").glob("*.yaml"))


def load_catalog(files: list[str]) -> dict:
    merged: dict = {}
    for name in files:
        merged.update(yaml.safe_load((WORKDIR / name).read_text()))
    return merged


def runner_labels() -> dict:
    return yaml.safe_load((WORKDIR / "configs" / "runners.yaml").read_text())["labels"]


def sample_keys(catalog: dict) -> list[str]:
    """One key per kind of config: single/multi node, fixed/agentic, router and transfer scopes."""
    picks: dict[str, str] = {}
    for key, cfg in catalog.items():
        scenarios = cfg["scenarios"]
        kind = (
            "multi" if cfg.get("multinode") else "single",
            "agentic" if "agentic-coding" in scenarios else "fixed",
            "disagg" if cfg.get("disagg") else "agg",
            "mtp" if "mtp" in key else "plain",
        )
        picks.setdefault("/".join(kind), key)
    return list(picks.values())


def full_sweep(files: list[str], *flags: list[str] | str, runner_config: bool = True) -> list[str]:
    args = ["full-sweep"]
    for flag in flags:
        args += [flag] if isinstance(flag, str) else flag
    args += ["--config-files", *files]
    return args + (RUNNERS if runner_config else [])


def test_config(files: list[str], keys: list[str], *flags: list[str] | str, runner_config: bool = True) -> list[str]:
    args = ["test-config", "--config-keys", *keys]
    for flag in flags:
        args += [flag] if isinstance(flag, str) else flag
    args += ["--config-files", *files]
    return args + (RUNNERS if runner_config else [])


def build_cases() -> list[tuple[str, list[str]]]:
    catalog = load_catalog(MASTER)
    labels = runner_labels()
    catalog_runners = sorted({cfg["runner"] for cfg in catalog.values()})
    frameworks = sorted({cfg["framework"] for cfg in catalog.values()})
    keys = sample_keys(catalog)
    cases: list[tuple[str, list[str]]] = []

    def add(category: str, args: list[str]) -> None:
        cases.append((category, args))

    # --- full-sweep over the whole catalog -------------------------------------------------------
    for evals in EVAL_MODES:
        for nodes in NODE_MODES:
            add("fs-evals-nodes", full_sweep(MASTER, evals, nodes))
    add("fs-evals-nodes", full_sweep(MASTER, runner_config=False))
    add("fs-evals-nodes", full_sweep(MASTER, "--no-evals", runner_config=False))
    add("fs-evals-nodes", full_sweep(list(reversed(MASTER))))
    add("fs-evals-nodes", full_sweep(list(reversed(MASTER)), "--all-evals"))
    # Argument errors of the eval flags.
    add("fs-errors", full_sweep(MASTER, "--no-evals", "--evals-only"))
    add("fs-errors", full_sweep(MASTER, "--no-evals", "--all-evals"))
    add("fs-errors", full_sweep(MASTER, "--evals-only", "--no-evals", "--all-evals"))

    for scenario in SCENARIOS[:3]:
        for evals in EVAL_MODES:
            add("fs-scenario", full_sweep(MASTER, scenario, evals))
    add("fs-scenario", full_sweep(MASTER, SCENARIOS[3]))
    for nodes in NODE_MODES[1:3]:
        for scenario in SCENARIOS[:2]:
            add("fs-scenario", full_sweep(MASTER, scenario, nodes, "--all-evals"))
    add("fs-errors", full_sweep(MASTER, "--scenario-type", "agentic"))

    node_filters = ["amds", "mi355x", "amds_0", "_0", "slurm", "nv_0", "cluster", "cluster:", "zzz", "dgxc",
                    "b300-nv", "h200-dgxc-slurm_1", "-", "mi355x-amds_06"]
    for index, node_filter in enumerate(node_filters):
        add("fs-node-filter", full_sweep(MASTER, ["--runner-node-filter", node_filter]))
        add("fs-node-filter", full_sweep(MASTER, ["--runner-node-filter", node_filter],
                                         "--all-evals" if index % 2 else "--no-evals"))
    # An empty filter filters nothing (the reference tests it for truth).
    add("fs-node-filter", full_sweep(MASTER, ["--runner-node-filter", ""], ["--model-prefix", "dsv4-fp4-mi355x"]))
    add("fs-node-filter", full_sweep(MASTER, ["--runner-node-filter", ""], "--all-evals"))
    for node_filter in ["amds", "nv_0", "dgxc"]:
        add("fs-node-filter", full_sweep(MASTER, ["--runner-node-filter", node_filter], "--evals-only"))
        add("fs-node-filter", full_sweep(MASTER, ["--runner-node-filter", node_filter], SCENARIOS[1],
                                         "--evals-only"))
        add("fs-node-filter", full_sweep(MASTER, [f"--runner-node-filter={node_filter}"], "--multi-node"))

    prefixes = [["dsv4"], ["qwen3.5"], ["dsr1"], ["glm5"], ["kimik3"], ["minimaxm3"], ["d"], ["dsr1-fp8"],
                ["qwen3.5-fp4-b300"], ["zzz"], ["dsv4", "dsr1"], ["glm5.1", "glm5.2", "kimik2.6"],
                ["dsv4", "dsv4-fp4"], ["minimaxm3-fp4-gb200"]]
    for index, prefix in enumerate(prefixes):
        add("fs-model-prefix", full_sweep(MASTER, ["--model-prefix", *prefix]))
        add("fs-model-prefix", full_sweep(MASTER, ["--model-prefix", *prefix],
                                          "--all-evals" if index % 2 else "--evals-only"))
    add("fs-model-prefix", full_sweep(MASTER, ["--model-prefix", ""], ["--precision", "fp8"]))

    for precision in [["fp4"], ["fp8"], ["fp4", "fp8"], ["bf16"], ["fp8", "bf16"]]:
        add("fs-precision", full_sweep(MASTER, ["--precision", *precision]))
        add("fs-precision", full_sweep(MASTER, ["--precision", *precision], "--all-evals"))

    for framework in frameworks:
        add("fs-framework", full_sweep(MASTER, ["--framework", framework]))
    for framework in [["sglang", "vllm"], ["dynamo-vllm", "dynamo-sglang"], ["nonexistent"], ["vllm", "trt", "atom"]]:
        add("fs-framework", full_sweep(MASTER, ["--framework", *framework]))
        add("fs-framework", full_sweep(MASTER, ["--framework", *framework], "--evals-only"))

    for runner in catalog_runners[::3]:
        add("fs-runner-type", full_sweep(MASTER, ["--runner-type", runner]))
    for runner in catalog_runners[1::3]:
        add("fs-runner-type", full_sweep(MASTER, ["--runner-type", runner], "--evals-only"))
    unused = sorted(set(labels) - set(catalog_runners))
    for runner in unused[:2]:
        add("fs-runner-type", full_sweep(MASTER, ["--runner-type", runner]))
    for runners in [["mi355x", "mi355x-disagg"], ["b200", "b200-multinode", "cluster:b200-dgxc"],
                    ["cluster:gb200-nv", "cluster:gb300-nv"]]:
        add("fs-runner-type", full_sweep(MASTER, ["--runner-type", *runners]))
        add("fs-runner-type", full_sweep(MASTER, ["--runner-type", *runners], "--all-evals"))
    add("fs-runner-type", full_sweep(MASTER, ["--runner-type", "cluster:mi355x-amds"],
                                     ["--runner-node-filter", "amds_0"]))
    add("fs-runner-type", full_sweep(MASTER, ["--runner-type", "mi355x-disagg"], ["--runner-node-filter", "amds"],
                                     "--all-evals"))
    add("fs-errors", full_sweep(MASTER, ["--runner-type", "h300"]))
    add("fs-errors", full_sweep(MASTER, ["--runner-type", "b200", "nope", "h300"]))
    add("fs-errors", full_sweep(MASTER, ["--runner-type", "mi355x-amds_00"]))

    for seq in [["1k1k"], ["8k1k"], ["1k1k", "8k1k"]]:
        add("fs-seq-lens", full_sweep(MASTER, ["--seq-lens", *seq]))
        add("fs-seq-lens", full_sweep(MASTER, ["--seq-lens", *seq], "--all-evals"))
        add("fs-seq-lens", full_sweep(["configs/deprecated/amd-1k1k-master.yaml"], ["--seq-lens", *seq]))
    add("fs-errors", full_sweep(MASTER, ["--seq-lens", "1k8k"]))

    for step in ["2", "3", "4", "10", "100"]:
        add("fs-step-size", full_sweep(MASTER, ["--step-size", step]))
        add("fs-step-size", full_sweep(MASTER, ["--step-size", step], "--no-evals"))
        if step in ("3", "10"):
            add("fs-step-size", full_sweep(["configs/deprecated/nvidia-1k1k-master.yaml"], ["--step-size", step]))
    add("fs-step-size", full_sweep(MASTER, ["--step-size", "3"], SCENARIOS[1], "--all-evals"))
    add("fs-step-size", full_sweep(MASTER, ["--step-size", "4"], "--multi-node", "--all-evals"))
    for step in ["1", "0", "-2"]:
        add("fs-errors", full_sweep(MASTER, ["--step-size", step]))
    add("fs-errors", full_sweep(MASTER, ["--step-size", "two"]))

    for low in ["0", "1", "3", "16", "100", "1000", "100000"]:
        add("fs-conc", full_sweep(MASTER, ["--min-conc", low]))
    for high in ["0", "1", "3", "16", "100", "1000"]:
        add("fs-conc", full_sweep(MASTER, ["--max-conc", high]))
    for low, high in [("1", "1"), ("4", "100"), ("16", "16"), ("5", "7"), ("64", "64"), ("0", "0"), ("0", "10"),
                      ("3", "3"), ("256", "256"), ("100", "200"), ("2", "1000000"), ("-5", "8"), ("33", "47")]:
        add("fs-conc", full_sweep(MASTER, ["--min-conc", low, "--max-conc", high]))
        if low in ("4", "16", "5", "0", "-5", "33"):
            add("fs-conc", full_sweep(MASTER, ["--min-conc", low, "--max-conc", high], "--all-evals"))
    for flags in [["--min-conc", "16"], ["--max-conc", "16"], ["--min-conc", "0"], ["--max-conc", "0"],
                  ["--min-conc", "5", "--max-conc", "50"]]:
        for scenario in SCENARIOS[:2]:
            add("fs-conc", full_sweep(MASTER, flags, scenario, "--evals-only"))
        add("fs-conc", full_sweep(MASTER, flags, "--multi-node", "--no-evals"))
        add("fs-conc", full_sweep(MASTER, flags, ["--step-size", "3"], "--single-node"))
    for low, high in [("8", "2"), ("100", "10"), ("1", "0")]:
        add("fs-errors", full_sweep(MASTER, ["--min-conc", low, "--max-conc", high]))

    for max_tp in ["0", "1", "2", "4", "8", "-1"]:
        add("fs-tp-ep", full_sweep(MASTER, ["--max-tp", max_tp]))
    for max_ep in ["0", "1", "2", "4", "8", "16", "-1"]:
        add("fs-tp-ep", full_sweep(MASTER, ["--max-ep", max_ep]))
        if max_ep in ("1", "4", "8"):
            add("fs-tp-ep", full_sweep(MASTER, ["--max-ep", max_ep], "--all-evals"))
    for max_tp, max_ep in [("4", "4"), ("8", "1"), ("2", "8"), ("0", "8"), ("8", "0")]:
        add("fs-tp-ep", full_sweep(MASTER, ["--max-tp", max_tp, "--max-ep", max_ep]))
        if max_tp == "0" or max_ep == "0":  # agentic rows ignore both
            add("fs-tp-ep", full_sweep(MASTER, ["--max-tp", max_tp, "--max-ep", max_ep], SCENARIOS[1]))
    add("fs-tp-ep", full_sweep(["configs/deprecated/nvidia-1k1k-master.yaml"], ["--max-tp", "4", "--max-ep", "2"]))
    add("fs-tp-ep", full_sweep(["configs/deprecated/amd-1k1k-master.yaml"], ["--max-ep", "1"], "--evals-only"))

    # --- full-sweep over each deprecated file and the seed ---------------------------------------
    for index, name in enumerate(deprecated_files()):
        add("fs-deprecated", full_sweep([name]))
        add("fs-deprecated", full_sweep([name], EVAL_MODES[1 + index % 4]))
    for flags in [[], ["--no-evals"], ["--evals-only"], ["--all-evals"], ["--all-evals", "--evals-only"],
                  ["--seq-lens", "8k1k", "--min-conc", "4", "--max-conc", "100"], ["--step-size", "3"],
                  ["--runner-node-filter", "amds_0"], ["--max-tp", "4"], ["--max-ep", "2"], ["--multi-node"],
                  ["--min-conc", "1000"], ["--max-conc", "1"], ["--scenario-type", "agentic-coding"]]:
        add("fs-seed", full_sweep([SEED], flags))
    add("fs-files", full_sweep(["configs/deprecated/amd-1k1k-master.yaml", "configs/deprecated/nvidia-1k1k-master.yaml"]))
    add("fs-files", full_sweep(["configs/deprecated/nvidia-glm5-glm5.1-master.yaml",
                                "configs/deprecated/amd-glm5-glm5.1-master.yaml"], "--all-evals"))
    add("fs-files", full_sweep([SEED, "configs/deprecated/nvidia-minimaxm3-8k1k-master.yaml"]))
    add("fs-errors", full_sweep(["configs/deprecated/amd-1k1k-master.yaml",
                                 "configs/deprecated/amd-minimaxm3-8k1k-master.yaml"]))
    add("fs-errors", full_sweep([*MASTER, "configs/amd-master.yaml"]))
    add("fs-errors", full_sweep(["configs/missing-master.yaml"]))
    add("fs-errors", full_sweep(["configs/runners.yaml"]))
    add("fs-errors", full_sweep(MASTER, runner_config=False) + ["--runner-config", "configs/amd-master.yaml"])
    add("fs-errors", full_sweep(MASTER, runner_config=False) + ["--runner-config", "configs/missing-runners.yaml"])

    # --- test-config -----------------------------------------------------------------------------
    for index, key in enumerate(keys):
        for evals in EVAL_MODES[:4] if index % 2 else [[], ["--evals-only"], ["--all-evals"]]:
            add("tc-keys", test_config(MASTER, [key], evals))
        add("tc-keys", test_config(MASTER, [key], SCENARIOS[index % 2], EVAL_MODES[4]))
    globs = ["*", "dsv4*", "*mi355x*", "dsr1-fp?-*", "[dq]*", "*-[!s]*", "qwen3.5-fp[48]-b300-*", "*agentic*",
             "*disagg", "?sv4-fp4-gb300-dynamo-*", "[^d]*", "*[0-9]-agg", "*-mtp?", "kimik3-fp4-gb[23]00-*",
             "*[]*", "[]]*", "*[!a-z0-9.-]*", "glm5.?-*", "*-fp8-h[12]00-*", "*[-]agg", "*[[:digit:]]*",
             "dsr1-fp8-mi300x-sglan\\g*", "dsr1-fp4-[a-c]200-*", "*[!]-mtp", "qwen3.5-fp?-[!bgh]*"]
    for pattern in globs:
        add("tc-glob", test_config(MASTER, [pattern]))
    for pattern in globs[:8]:
        add("tc-glob", test_config(MASTER, [pattern], "--all-evals"))
    for pattern in ["*", "*agentic*", "*disagg", "dsv4*"]:
        add("tc-glob", test_config(MASTER, [pattern], "--evals-only"))
        add("tc-glob", test_config(MASTER, [pattern], "--all-evals", "--evals-only"))
    for pattern in ["zzz*", "dsr1-fp?-zzz", "[xyz]*", "*[z-a]*"]:
        add("tc-errors", test_config(MASTER, [pattern]))

    conc_lists = [["1"], ["64"], ["1", "64"], ["4", "8", "16", "32"], ["3"], ["99999"], ["16", "256", "512"],
                  ["64", "1"], ["8", "8"]]
    for conc in conc_lists:
        add("tc-conc", test_config(MASTER, ["*"], ["--conc", *conc]))
        add("tc-conc", test_config(MASTER, [keys[0], keys[-1]], ["--conc", *conc], "--evals-only"))
    for conc in conc_lists[1:4]:
        add("tc-conc", test_config(MASTER, ["*agentic*"], ["--conc", *conc], "--all-evals"))
        add("tc-conc", test_config(MASTER, ["*disagg*"], ["--conc", *conc], "--all-evals"))

    for node_filter in ["mi355x", "amds", "amds_0", "cluster:", "cluster:gb200-nv", "nv", "zzz", "dgxc-slurm_1",
                        "mi355x-disagg", "b200", "-", "h200"]:
        add("tc-node-filter", test_config(MASTER, ["*"], ["--runner-node-filter", node_filter]))
        add("tc-node-filter", test_config(MASTER, ["*"], ["--runner-node-filter", node_filter], "--all-evals"))
    add("tc-node-filter", test_config(MASTER, ["dsv4-fp4-mi355x*"], ["--runner-node-filter", ""]))
    for node_filter in ["mi355x", "cluster:"]:
        for key in keys[:4]:
            add("tc-node-filter", test_config(MASTER, [key], ["--runner-node-filter", node_filter], "--evals-only"))

    for seq in [["1k1k"], ["8k1k"], ["8k1k", "1k1k"]]:
        add("tc-seq-lens", test_config(MASTER, ["*"], ["--seq-lens", *seq]))
        add("tc-seq-lens", test_config(["configs/deprecated/amd-1k1k-master.yaml"], ["*"], ["--seq-lens", *seq]))
    add("tc-errors", test_config(MASTER, ["*"], ["--seq-lens", "2k1k"]))

    for scenario in SCENARIOS:
        add("tc-scenario", test_config(MASTER, ["*"], scenario))
        add("tc-scenario", test_config(MASTER, ["*"], scenario, "--all-evals"))
        add("tc-scenario", test_config(MASTER, keys, scenario, "--evals-only"))

    add("tc-multi-keys", test_config(MASTER, keys))
    add("tc-multi-keys", test_config(MASTER, list(reversed(keys))))
    add("tc-multi-keys", test_config(MASTER, [keys[0], keys[0]]))
    add("tc-multi-keys", test_config(MASTER, ["dsv4*", "dsv4-fp4*", "*mtp"]))
    add("tc-multi-keys", test_config(MASTER, ["*mtp", "dsv4*"], "--all-evals"))
    add("tc-multi-keys", test_config(MASTER, [keys[2], "*", keys[1]], "--no-evals"))
    add("tc-multi-keys", test_config(MASTER, ["*agentic*", "*agentic-mtp"], "--evals-only"))

    add("tc-errors", test_config(MASTER, ["no-such-key"]))
    add("tc-errors", test_config(MASTER, [keys[0], "no-such-key"]))
    add("tc-errors", test_config(MASTER, ["dsr1-fp[48]-h200-sglang"]))
    add("tc-errors", test_config(MASTER, [keys[0]], ["--step-size", "3"]))
    add("tc-errors", test_config(MASTER, [keys[0]], ["--runner-type", "mi355x"]))
    add("tc-errors", test_config(MASTER, [keys[0]], "--no-evals", "--evals-only"))
    add("tc-errors", test_config(MASTER, [keys[0]], "--no-evals", "--all-evals"))
    add("tc-errors", test_config(MASTER, [keys[0]], ["--conc", "x"]))
    add("tc-conc", test_config(MASTER, ["dsr1*"], ["--conc", "0"]))
    add("tc-conc", test_config(MASTER, ["dsr1*"], ["--conc", "-4", "8"]))
    add("tc-errors", ["test-config", "--config-files", *MASTER])

    for index, name in enumerate(deprecated_files()):
        add("tc-deprecated", test_config([name], ["*"]))
        if index % 2:
            add("tc-deprecated", test_config([name], ["*"], "--all-evals"))
    for flags in [[], ["--no-evals"], ["--evals-only"], ["--all-evals"], ["--conc", "1", "64"],
                  ["--runner-node-filter", "mi355x"], ["--seq-lens", "1k1k"]]:
        add("tc-seed", test_config([SEED], ["minimaxm3-fp4-mi355x-vllm"], flags))
    add("tc-seed", test_config([SEED], ["minimaxm3*"], ["--conc", "4", "64"], ["--runner-node-filter", "amds_0"]))
    add("tc-files", test_config(["configs/deprecated/amd-minimaxm3-8k1k-master.yaml"],
                                ["minimaxm3-fp4-mi355x-vllm*"], ["--conc", "1", "64"],
                                ["--runner-node-filter", "amds_0"]))

    add_random_cases(add, catalog, labels, keys)
    return cases


def add_random_cases(add, catalog: dict, labels: dict, keys: list[str]) -> None:
    """Seeded random mixes of every flag, for interactions the lists above do not reach."""
    rng = random.Random(0x1F3A)
    prefixes = sorted({key.split("-")[0] for key in catalog}) + ["dsv4-fp4", "qwen3.5-fp8", "d"]
    frameworks = sorted({cfg["framework"] for cfg in catalog.values()})
    runners = sorted({cfg["runner"] for cfg in catalog.values()})
    node_filters = ["amds", "mi355x", "_0", "nv_0", "slurm", "dgxc", "cluster:", "zzz", "1"]
    files_choices = [MASTER] * 6 + [[name] for name in deprecated_files()] + [[SEED]]

    def maybe(p: float) -> bool:
        return rng.random() < p

    for _ in range(35):
        flags: list[str] = []
        flags += rng.choice(EVAL_MODES)
        if maybe(0.3):
            flags += ["--runner-node-filter", rng.choice(node_filters)]
        if maybe(0.3):
            flags += rng.choice(SCENARIOS)
        if maybe(0.35):
            flags += ["--model-prefix", *rng.sample(prefixes, rng.randint(1, 3))]
        if maybe(0.25):
            flags += ["--precision", *rng.sample(["fp4", "fp8"], rng.randint(1, 2))]
        if maybe(0.25):
            flags += ["--framework", *rng.sample(frameworks, rng.randint(1, 3))]
        if maybe(0.2):
            flags += ["--runner-type", *rng.sample(runners, rng.randint(1, 3))]
        if maybe(0.25):
            flags += ["--seq-lens", *rng.sample(["1k1k", "8k1k"], rng.randint(1, 2))]
        if maybe(0.3):
            flags += ["--step-size", str(rng.choice([2, 3, 4, 5, 10]))]
        low = high = None
        if maybe(0.35):
            low = rng.choice([0, 1, 2, 4, 8, 16, 24, 64, 128, 300])
            flags += ["--min-conc", str(low)]
        if maybe(0.35):
            high = rng.choice([0, 1, 4, 16, 32, 50, 128, 256, 1024])
            if low is not None and high < low:
                high = low
            flags += ["--max-conc", str(high)]
        if maybe(0.2):
            flags += ["--max-tp", str(rng.choice([0, 1, 2, 4, 8]))]
        if maybe(0.2):
            flags += ["--max-ep", str(rng.choice([0, 1, 2, 4, 8, 16]))]
        flags += rng.choice(NODE_MODES)
        add("fs-random", full_sweep(rng.choice(files_choices), flags))

    all_keys = sorted(catalog)
    patterns = ["*", "dsv4*", "*agentic*", "*disagg*", "*mtp", "qwen3.5-*", "*-gb[23]00-*", "?sr1-*"]
    for _ in range(20):
        chosen = rng.sample(all_keys, rng.randint(1, 3))
        if maybe(0.5):
            chosen.append(rng.choice(patterns))
        flags = []
        flags += rng.choice(EVAL_MODES)
        if maybe(0.35):
            flags += ["--runner-node-filter", rng.choice(node_filters)]
        if maybe(0.3):
            flags += rng.choice(SCENARIOS)
        if maybe(0.35):
            flags += ["--conc", *[str(c) for c in rng.sample([1, 2, 4, 8, 16, 32, 64, 128, 256, 512], 3)]]
        if maybe(0.25):
            flags += ["--seq-lens", *rng.sample(["1k1k", "8k1k"], rng.randint(1, 2))]
        add("tc-random", test_config(MASTER, chosen, flags))


def cli_pending_cases() -> list[tuple[str, list[str]]]:
    """argparse behaviour the CLI reproduces: prefixes, repeated options, dash values, int()."""
    cases = [
        # Unambiguous prefixes of long options are accepted.
        full_sweep(MASTER, ["--prec", "fp8"]),
        full_sweep(MASTER, ["--model", "dsv4-fp4-mi355x"]),
        # A repeated option replaces the earlier value (nargs='+' lists too); nothing accumulates.
        full_sweep(MASTER, ["--precision", "fp4", "--precision", "fp8"]),
        full_sweep(MASTER, ["--scenario-type", "fixed-seq-len", "--scenario-type", "agentic-coding"]),
        full_sweep(MASTER, ["--model-prefix", "dsr1", "--model-prefix", "qwen3.5"]),
        full_sweep(MASTER, ["--runner-node-filter", "amds", "--runner-node-filter", "nv_0"]),
        full_sweep(MASTER, ["--step-size", "3", "--step-size", "4"]),
        full_sweep(MASTER, ["--min-conc", "4", "--min-conc", "8"]),
        ["full-sweep", "--config-files", MASTER[0], "--config-files", MASTER[1]],
        full_sweep(MASTER, runner_config=False)
        + ["--runner-config", "configs/missing.yaml", "--runner-config", "configs/runners.yaml"],
        test_config(MASTER, ["dsr1*"], ["--conc", "4", "--conc", "8"]),
        test_config(MASTER, ["dsr1*"], ["--config-keys", "qwen*"]),
        # A value that starts with '-' (and is not a number) is taken for an option: an error.
        full_sweep(MASTER, ["--runner-node-filter", "-amds"]),
        # type=int is Python's int(): decimal only, '_' separators allowed, leading zeros still decimal.
        full_sweep(MASTER, ["--min-conc", "0x10"]),
        full_sweep(MASTER, ["--min-conc", "1_0"]),
        full_sweep(MASTER, ["--min-conc", "010"]),
        test_config(MASTER, ["dsr1*"], ["--conc", "010"]),
    ]
    return [("cli-argparse", args) for args in cases]


def run_reference(reference: Path, args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, str(reference), *args], cwd=WORKDIR, capture_output=True, text=True)
    ok = proc.returncode == 0
    out = proc.stdout.rstrip()
    record = {
        "args": args,
        "rc_ok": ok,
        "rows": len(json.loads(out)) if ok else 0,
        "sha256": hashlib.sha256(out.encode()).hexdigest() if ok else "",
    }
    if not ok:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        # The exception (or argparse) line: the last line that is not pydantic's help link.
        for line in reversed(lines):
            if "errors.pydantic.dev" not in line:
                record["ref_error"] = line.strip()[:200]
                break
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                        help="InferenceX utils/matrix_logic/generate_sweep_configs.py")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="print the argument lists, run nothing")
    options = parser.parse_args()

    cases: list[tuple[str, list[str]]] = []
    seen: set[tuple[str, ...]] = set()
    for category, args in build_cases() + cli_pending_cases():
        if tuple(args) not in seen:
            seen.add(tuple(args))
            cases.append((category, args))
    if options.list:
        for category, args in cases:
            print(category, json.dumps(args))
        return 0
    if not options.reference.is_file():
        parser.error(f"reference script not found: {options.reference}")

    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        records = list(pool.map(lambda case: run_reference(options.reference, case[1]), cases))
    options.out.parent.mkdir(parents=True, exist_ok=True)
    with options.out.open("w") as out:
        for (category, _), record in zip(cases, records):
            record["category"] = category
            out.write(json.dumps(record) + "\n")
    failed = sum(not r["rc_ok"] for r in records)
    print(f"{len(records)} cases ({failed} failing in the reference) -> {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
