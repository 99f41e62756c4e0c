#!/usr/bin/env python3
"""Mutation-based differential cases for infermark's master-config and runners.yaml validation.

Starting from real entries of tests/fixtures/inferencex/configs/*.yaml, this writes a few hundred
small single-entry master-config files (and runners.yaml variants), each breaking (or keeping) one
rule, into tests/fixtures/validation-parity/. Every case gets the verdict of InferenceX's own
validator (utils/matrix_logic/validation.py, which is NOT part of this repository: pass its folder
with --reference, default ../shared/reference/inferencex/utils/matrix_logic). tests/catalog/validation_parity_test.cpp then
checks that infermark's catalog readers reach the same verdict.

Mutations that fall under infermark's deliberate differences are not generated (lax coercion of
"4"/true/4.0 to integers, non-booleans accepted for booleans, duplicate mapping keys). A few cases
where infermark deliberately disagrees are kept and marked with `deliberate` (their `ours` field is
infermark's expected verdict).

    python3 tests/parity/mutate_configs.py [--reference DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "fixtures" / "inferencex" / "configs"
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "validation-parity"
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference" / "inferencex" / "utils" / "matrix_logic"

DELETE = object()  # marker value: remove the key at a path

# --- helpers ------------------------------------------------------------------------------------


def get_at(doc: Any, path: tuple) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def set_at(doc: Any, path: tuple, value: Any) -> None:
    parent = get_at(doc, path[:-1])
    if value is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


def rename_key(mapping: dict, old: str, new: str) -> dict:
    """A copy of `mapping` with `old` renamed to `new`, keeping key order."""
    return {(new if k == old else k): v for k, v in mapping.items()}


def trim(entry: dict, search_space: int = 2) -> dict:
    """Keeps the first scenario item of each kind and at most `search_space` points in it."""
    entry = copy.deepcopy(entry)
    for kind in ("fixed-seq-len", "agentic-coding"):
        items = entry["scenarios"].get(kind)
        if items:
            items[:] = items[:1]
            items[0]["search-space"] = items[0]["search-space"][:search_space]
    return entry


def dump(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=160, allow_unicode=True)


# --- cases --------------------------------------------------------------------------------------


class Cases:
    """Collects cases; each is a YAML text with its kind, category and rule."""

    def __init__(self) -> None:
        self.items: list[dict] = []

    def add(self, category: str, rule: str, text: str, kind: str = "master", deliberate: str | None = None,
            ours: bool | None = None) -> None:
        self.items.append({"category": category, "rule": rule, "text": text, "kind": kind,
                           "deliberate": deliberate, "ours": ours})

    def entry(self, category: str, rule: str, key: str, base: dict, *edits: tuple[tuple, Any],
              fn: Callable[[dict], None] | None = None, **extra: Any) -> None:
        """Adds a single-entry master config: `base` with `edits` ((path, value) pairs) applied."""
        doc = copy.deepcopy(base)
        for path, value in edits:
            set_at(doc, path, value)
        if fn is not None:
            fn(doc)
        self.add(category, rule, dump({key: doc}), **extra)

    def text(self, category: str, rule: str, key: str, base: dict, old: str, new: str, **extra: Any) -> None:
        """Adds a case made by replacing the first `old` in the dumped YAML with `new`."""
        text = dump({key: base})
        if old not in text:
            raise SystemExit(f"mutate_configs: '{old}' not found for case '{rule}'")
        self.add(category, rule, text.replace(old, new, 1), **extra)


def load_bases() -> dict[str, tuple[str, dict]]:
    merged: dict[str, dict] = {}
    for name in ("amd-master.yaml", "nvidia-master.yaml"):
        with open(CONFIGS / name, encoding="utf-8") as f:
            merged.update(yaml.safe_load(f))
    picks = {
        "sn_range": ("dsr1-fp4-mi355x-sglang", 2),
        "sn_mixed": ("qwen3.5-fp4-b200-sglang-mtp", 3),
        "mn_top": ("qwen3.5-fp8-mi355x-sglang-disagg", 1),
        "mn_entry_xfer": ("qwen3.5-fp4-gb300-dynamo-sglang", 2),
        "mn_entry_router": ("dsr1-fp8-b200-dynamo-sglang", 2),
        "ag_sn_dram": ("kimik3-fp4-mi355x-vllm-agentic-mtp", 2),
        "ag_sn_router": ("dsv4-fp4-mi355x-vllm-agentic-mtp", 2),
        "ag_sn_dcp": ("kimik3-fp4-b300-vllm-agentic-dspark", 2),
        "ag_mn_entry_router": ("dsv4-fp4-gb300-dynamo-vllm-agentic-mtp-disagg", 2),
        "ag_mn_dram": ("dsv4-fp4-mi355x-sglang-disagg-agentic-hicache-mtp", 1),
        "ag_mn_agg_pp": ("kimik3-fp4-b200-dynamo-vllm-agentic", 1),
        "ag_mn_pcp": ("glm5.2-fp8-h200-dynamo-sglang-agentic-mtp-2p2d", 1),
    }
    return {name: (key, trim(merged[key], n)) for name, (key, n) in picks.items()}


FIXED = ("scenarios", "fixed-seq-len", 0)
AGENTIC = ("scenarios", "agentic-coding", 0)
SS0 = FIXED + ("search-space", 0)
SS1 = FIXED + ("search-space", 1)
AG0 = AGENTIC + ("search-space", 0)
AG1 = AGENTIC + ("search-space", 1)
ROUTER = {"name": "sglang-router", "version": "0.3.2"}


def top_level_cases(c: Cases, bases: dict) -> None:
    cat = "top-level"
    for name in ("sn_range", "mn_top", "ag_sn_dram", "ag_mn_dram"):
        key, base = bases[name]
        c.entry(cat, f"unchanged {name} entry", key, base)
        for field in ("image", "model", "model-prefix", "precision", "framework", "runner", "multinode", "scenarios"):
            c.entry(cat, f"{name}: remove required '{field}'", key, base, ((field,), DELETE))
        c.entry(cat, f"{name}: unknown top-level field", key, base, (("foo",), "bar"))
        c.entry(cat, f"{name}: 'hardware' at top level", key, base, (("hardware",), "mi355x"))
    key, base = bases["sn_range"]
    for field, value, rule in (
        ("image", 123, "image is an integer"),
        ("model", None, "model is null"),
        ("model-prefix", ["dsr1"], "model-prefix is a list"),
        ("precision", {"a": 1}, "precision is a mapping"),
        ("runner", 8, "runner is an integer"),
        ("framework", True, "framework is a boolean"),
        ("precision", 8.5, "precision is a float"),
    ):
        c.entry(cat, rule, key, base, ((field,), value))
    c.entry(cat, "model is an empty string (str has no min length)", key, base, (("model",), ""))
    c.entry(cat, "runner is an empty string on a non-agentic entry", key, base, (("runner",), ""))
    c.entry(cat, "image is an empty string", key, base, (("image",), ""))
    c.entry(cat, "dp-attn at top level", key, base, (("dp-attn",), True))
    c.entry(cat, "tp at top level", key, base, (("tp",), 8))
    c.entry(cat, "multinode null", key, base, (("multinode",), None))
    c.entry(cat, "disagg true on single-node", key, base, (("disagg",), True))
    c.entry(cat, "disagg false on single-node", key, base, (("disagg",), False))
    c.entry(cat, "disagg null on single-node", key, base, (("disagg",), None))
    c.entry(cat, "single-node entry switched to multinode: true", key, base, (("multinode",), True))
    c.entry(cat, "key with '*'", "dsr1-*-sglang", base)
    c.entry(cat, "key with '?' (only '*' is reserved)", "dsr1-?-sglang", base)
    c.entry(cat, "key with trailing '*'", "dsr1-fp4*", base)
    key, base = bases["mn_top"]
    c.entry(cat, "multinode entry switched to multinode: false", key, base, (("multinode",), False))
    c.entry(cat, "multinode: disagg null", key, base, (("disagg",), None))
    c.entry(cat, "multinode: disagg removed (default false)", key, base, (("disagg",), DELETE))
    c.entry(cat, "multinode: kv-p2p-transfer empty string", key, base, (("kv-p2p-transfer",), ""))
    c.entry(cat, "multinode: kv-p2p-transfer integer", key, base, (("kv-p2p-transfer",), 5))
    c.entry(cat, "multinode: kv-p2p-transfer list", key, base, (("kv-p2p-transfer",), ["mori"]))
    c.entry(cat, "multinode: 'hardware' at top level", key, base, (("hardware",), "mi355x"))


def scenario_cases(c: Cases, bases: dict) -> None:
    cat = "scenarios"
    key, base = bases["sn_range"]
    fixed = base["scenarios"]["fixed-seq-len"]
    c.entry(cat, "scenarios null", key, base, (("scenarios",), None))
    c.entry(cat, "scenarios is a list", key, base, (("scenarios",), []))
    c.entry(cat, "scenarios empty mapping", key, base, (("scenarios",), {}))
    c.entry(cat, "fixed-seq-len empty list", key, base, (("scenarios",), {"fixed-seq-len": []}))
    c.entry(cat, "fixed-seq-len null", key, base, (("scenarios",), {"fixed-seq-len": None}))
    c.entry(cat, "fixed-seq-len null and agentic-coding empty", key, base,
            (("scenarios",), {"fixed-seq-len": None, "agentic-coding": []}))
    c.entry(cat, "unknown scenario next to fixed-seq-len", key, base, (("scenarios", "long-context"), fixed))
    c.entry(cat, "only an unknown scenario", key, base, (("scenarios",), {"long-context": fixed}))
    c.entry(cat, "fixed-seq-len is a mapping", key, base, (("scenarios", "fixed-seq-len"), fixed[0]))
    c.entry(cat, "agentic-coding empty list next to fixed-seq-len (non-cluster runner)", key, base,
            (("scenarios", "agentic-coding"), []))
    c.entry(cat, "agentic-coding null next to fixed-seq-len", key, base, (("scenarios", "agentic-coding"), None))
    c.entry(cat, "fixed-seq-len item is a scalar", key, base, (FIXED, 8192))
    c.entry(cat, "fixed-seq-len item is a list", key, base, (FIXED, [8192, 1024]))
    c.entry(cat, "two fixed-seq-len items with the same isl/osl", key, base,
            (("scenarios", "fixed-seq-len"), fixed + fixed))
    for field in ("isl", "osl", "search-space"):
        c.entry(cat, f"fixed-seq-len: remove '{field}'", key, base, (FIXED + (field,), DELETE))
    c.entry(cat, "fixed-seq-len: unknown field", key, base, (FIXED + ("max-model-len",), 10000))
    c.entry(cat, "isl float 1024.5", key, base, (FIXED + ("isl",), 1024.5))
    c.entry(cat, "isl non-numeric string", key, base, (FIXED + ("isl",), "8k"))
    c.entry(cat, "isl null", key, base, (FIXED + ("isl",), None))
    c.entry(cat, "isl 0 (no bound)", key, base, (FIXED + ("isl",), 0))
    c.entry(cat, "osl negative (no bound)", key, base, (FIXED + ("osl",), -1))
    c.entry(cat, "search-space empty list", key, base, (FIXED + ("search-space",), []))
    c.entry(cat, "search-space null", key, base, (FIXED + ("search-space",), None))
    c.entry(cat, "search-space is a mapping", key, base, (FIXED + ("search-space",), {"tp": 8}))
    c.entry(cat, "search-space entry is a scalar", key, base, (SS0, 8))
    c.entry(cat, "search-space entry is a list", key, base, (SS0, [8]))
    c.entry(cat, "search-space entry null", key, base, (SS0, None))
    key, base = bases["mn_top"]
    c.entry(cat, "multinode: scenarios empty", key, base, (("scenarios",), {}))
    c.entry(cat, "multinode: unknown scenario", key, base,
            (("scenarios", "long-context"), base["scenarios"]["fixed-seq-len"]))
    c.entry(cat, "multinode: fixed-seq-len unknown field", key, base, (FIXED + ("foo",), 1))
    c.entry(cat, "multinode: isl float", key, base, (FIXED + ("isl",), 8192.5))
    key, base = bases["ag_sn_dram"]
    c.entry(cat, "agentic: agentic-coding empty list only", key, base, (("scenarios",), {"agentic-coding": []}))
    c.entry(cat, "agentic: agentic-coding null only", key, base, (("scenarios",), {"agentic-coding": None}))
    c.entry(cat, "agentic: search-space empty", key, base, (AGENTIC + ("search-space",), []))
    c.entry(cat, "agentic: search-space missing", key, base, (AGENTIC + ("search-space",), DELETE))
    c.entry(cat, "agentic: agentic-coding item is a scalar", key, base, (AGENTIC, 1))
    c.entry(cat, "agentic: unknown field 'duration' in agentic config", key, base, (AGENTIC + ("duration",), 3600))
    c.entry(cat, "agentic: unknown field in agentic config", key, base, (AGENTIC + ("foo",), 1))
    c.entry(cat, "agentic: fixed-seq-len next to agentic-coding", key, base,
            (("scenarios", "fixed-seq-len"), bases["sn_range"][1]["scenarios"]["fixed-seq-len"]))


def single_node_entry_cases(c: Cases, bases: dict) -> None:
    cat = "sn-entry"
    key, base = bases["sn_range"]  # entries: tp 4 / tp 8, conc 4..64
    for value, rule in ((DELETE, "remove tp"), (4.5, "tp float 4.5"), ("four", "tp non-numeric string"),
                        (None, "tp null"), ([4], "tp list"), ({"v": 4}, "tp mapping")):
        c.entry(cat, rule, key, base, (SS0 + ("tp",), value))
    c.entry(cat, "tp 0 (no bound)", key, base, (SS0 + ("tp",), 0))
    c.entry(cat, "tp negative (no bound)", key, base, (SS0 + ("tp",), -8))
    for field in ("pp", "dcp-size", "pcp-size"):
        for value, rule in ((0, "0"), (-1, "negative"), (True, "true"), (False, "false"), ("2", "string '2'"),
                            (2.0, "float 2.0"), (None, "null")):
            c.entry(cat, f"{field} {rule} (strict int > 0)", key, base, (SS0 + (field,), value))
    c.entry(cat, "pp 2", key, base, (SS0 + ("pp",), 2))
    c.entry(cat, "pcp-size 2", key, base, (SS0 + ("pcp-size",), 2))
    c.entry(cat, "dcp-size 3 with tp 4 (not divisible)", key, base, (SS0 + ("dcp-size",), 3))
    c.entry(cat, "dcp-size 8 with tp 4 (not divisible)", key, base, (SS0 + ("dcp-size",), 8))
    c.entry(cat, "dcp-size 2 with tp 4", key, base, (SS0 + ("dcp-size",), 2))
    c.entry(cat, "dcp-size 4 with tp 4", key, base, (SS0 + ("dcp-size",), 4))
    c.entry(cat, "dcp-size 8 with tp 8 on the second entry", key, base, (SS1 + ("dcp-size",), 8))
    c.entry(cat, "dcp-size 3 with tp 0", key, base, (SS0 + ("tp",), 0), (SS0 + ("dcp-size",), 3))
    c.entry(cat, "dcp-size 3 with tp 4 and conc-start > conc-end", key, base, (SS0 + ("dcp-size",), 3),
            (SS0 + ("conc-start",), 128))
    c.entry(cat, "ep null", key, base, (SS0 + ("ep",), None))
    c.entry(cat, "ep 0", key, base, (SS0 + ("ep",), 0))
    c.entry(cat, "ep float 4.5", key, base, (SS0 + ("ep",), 4.5))
    c.entry(cat, "ep non-numeric string", key, base, (SS0 + ("ep",), "all"))
    c.entry(cat, "dp-attn null", key, base, (SS0 + ("dp-attn",), None))
    c.entry(cat, "dp-attn true", key, base, (SS0 + ("dp-attn",), True))
    c.entry(cat, "dp-attn non-boolean string 'maybe'", key, base, (SS0 + ("dp-attn",), "maybe"))
    c.entry(cat, "dp-attn 2", key, base, (SS0 + ("dp-attn",), 2))
    c.entry(cat, "dp-attn list", key, base, (SS0 + ("dp-attn",), [True]))
    for value, valid in (("mtp", True), ("draft_model", True), ("none", True), ("MTP", False), ("eagle", False),
                         (None, False), (1, False), ("", False)):
        c.entry(cat, f"spec-decoding {value!r}", key, base, (SS0 + ("spec-decoding",), value))
    for field, value in (("foo", 1), ("kv-p2p-transfer", "nixl"), ("kv-offloading", "none"),
                         ("hicache-ratio", 0.5), ("conc", 4), ("prefill", {"num-worker": 1}), ("hardware", "b200"),
                         ("num-worker", 1), ("isl", 1024), ("disagg", False), ("multinode", False)):
        c.entry(cat, f"unknown field '{field}' in single-node entry", key, base, (SS0 + (field,), value))
    c.entry(cat, "non-string key in search-space entry", key, base, (SS0 + (1,), "x"))
    c.entry(cat, "non-string key in top-level entry", key, base, ((2,), "x"))
    key, base = bases["sn_mixed"]
    c.entry(cat, "unchanged sn_mixed entry (range and list entries)", key, base)
    c.entry(cat, "sn_mixed: third entry spec-decoding draft_model", key, base,
            (FIXED + ("search-space", 2, "spec-decoding"), "draft_model"))


def concurrency_cases(c: Cases, bases: dict) -> None:
    cat = "conc"
    for name, entry_path in (("sn_range", SS0), ("mn_top", SS0), ("ag_sn_dram", AG0), ("ag_mn_dram", AG0)):
        key, base = bases[name]

        def conc(start=DELETE, end=DELETE, lst=DELETE, _p=entry_path):
            return ((_p + ("conc-start",), start), (_p + ("conc-end",), end), (_p + ("conc-list",), lst))

        def add(rule, *edits, _key=key, _base=base, _name=name, _p=entry_path):
            doc = copy.deepcopy(_base)
            e = get_at(doc, _p)
            for k in ("conc-start", "conc-end", "conc-list"):
                e.pop(k, None)
            for path, value in edits:
                if value is not DELETE:
                    set_at(doc, path, value)
            c.entry(cat, f"{_name}: {rule}", _key, doc)

        add("range 4..64", *conc(4, 64))
        add("list [4, 8]", *conc(lst=[4, 8]))
        add("conc-start > conc-end", *conc(64, 4))
        add("conc-start == conc-end", *conc(8, 8))
        add("conc-start 0", *conc(0, 64))
        add("conc-end 0", *conc(4, 0))
        add("conc-start negative", *conc(-4, 64))
        add("both range and list", *conc(4, 64, [4, 8]))
        add("neither range nor list", *conc())
        add("lone conc-start with list (list wins)", *conc(start=4, lst=[4, 8]))
        add("lone conc-end with list (list wins)", *conc(end=64, lst=[4, 8]))
        add("lone conc-start 0 with list (start ignored)", *conc(start=0, lst=[4, 8]))
        add("lone conc-start without list", *conc(start=4))
        add("lone conc-end without list", *conc(end=64))
        add("lone conc-start with empty list", *conc(start=4, lst=[]))
        add("empty list next to range (range wins)", *conc(4, 64, []))
        add("empty list next to reversed range", *conc(64, 4, []))
        add("empty list alone", *conc(lst=[]))
        add("null list next to range", *conc(4, 64, None))
        add("null list alone", *conc(lst=None))
        add("null conc-start with conc-end and list", *conc(None, 64, [4]))
        add("null conc-start and conc-end", *conc(None, None))
        add("list with 0", *conc(lst=[0, 4]))
        add("list with negative", *conc(lst=[4, -8]))
        add("list unordered with duplicates", *conc(lst=[16, 4, 4, 8]))
        add("list with float 4.5", *conc(lst=[4.5]))
        add("list with null item", *conc(lst=[4, None]))
        add("list with non-numeric string", *conc(lst=["many"]))
        add("list with nested list", *conc(lst=[[4]]))
        add("conc-list scalar", *conc(lst=8))
        add("conc-list mapping", *conc(lst={"a": 4}))
        add("conc-start float 4.5", *conc(4.5, 64))
        add("conc-end non-numeric string", *conc(4, "max"))
        add("conc-start list", *conc([4], 64))
        add("range with negative list (both)", *conc(4, 64, [-1]))
        add("lone conc-start with list containing 0", *conc(start=4, lst=[0]))


def multinode_entry_cases(c: Cases, bases: dict) -> None:
    cat = "mn-entry"
    key, base = bases["mn_top"]
    pre, dec = SS0 + ("prefill",), SS0 + ("decode",)
    c.entry(cat, "remove prefill", key, base, (pre, DELETE))
    c.entry(cat, "remove decode", key, base, (dec, DELETE))
    c.entry(cat, "prefill null", key, base, (pre, None))
    c.entry(cat, "prefill list", key, base, (pre, []))
    c.entry(cat, "decode scalar", key, base, (dec, 1))
    for field in ("num-worker", "tp", "ep", "dp-attn"):
        c.entry(cat, f"prefill: remove required '{field}'", key, base, (pre + (field,), DELETE))
        c.entry(cat, f"decode: remove required '{field}'", key, base, (dec + (field,), DELETE))
    for field, value in (("batch-size", 64), ("max-num-tokens", 8192), ("spec-decoding", "mtp"), ("foo", 1),
                         ("kv-p2p-transfer", "mori"), ("router", ROUTER)):
        c.entry(cat, f"unknown field '{field}' in prefill worker", key, base, (pre + (field,), value))
    c.entry(cat, "worker tp float", key, base, (pre + ("tp",), 4.5))
    c.entry(cat, "worker num-worker non-numeric string", key, base, (pre + ("num-worker",), "one"))
    c.entry(cat, "worker num-worker 0 (no bound)", key, base, (dec + ("num-worker",), 0))
    c.entry(cat, "worker ep null", key, base, (pre + ("ep",), None))
    c.entry(cat, "worker dp-attn null", key, base, (pre + ("dp-attn",), None))
    c.entry(cat, "worker dp-attn 'maybe'", key, base, (pre + ("dp-attn",), "maybe"))
    for field in ("pp", "dcp-size", "pcp-size"):
        for value, rule in ((0, "0"), (True, "true"), ("2", "string '2'"), (None, "null"), (-2, "negative")):
            c.entry(cat, f"worker {field} {rule}", key, base, (pre + (field,), value))
        c.entry(cat, f"worker {field} 1 (explicit default)", key, base, (dec + (field,), 1))
    c.entry(cat, "worker pp 2", key, base, (pre + ("pp",), 2))
    prefill_tp = get_at(base, pre + ("tp",))
    c.entry(cat, f"worker dcp-size 3 with tp {prefill_tp}", key, base, (pre + ("dcp-size",), 3))
    c.entry(cat, f"worker dcp-size 2 with tp {prefill_tp}", key, base, (pre + ("dcp-size",), 2))
    c.entry(cat, "decode dcp-size 16 with tp 8", key, base, (dec + ("tp",), 8), (dec + ("dcp-size",), 16))
    c.entry(cat, "hardware on prefill only", key, base, (pre + ("hardware",), "mi355x"))
    c.entry(cat, "hardware on decode only", key, base, (dec + ("hardware",), "mi355x"))
    c.entry(cat, "hardware on both", key, base, (pre + ("hardware",), "mi355x"), (dec + ("hardware",), "mi300x"))
    c.entry(cat, "hardware empty on both", key, base, (pre + ("hardware",), ""), (dec + ("hardware",), ""))
    c.entry(cat, "hardware on prefill, null on decode", key, base, (pre + ("hardware",), "mi355x"),
            (dec + ("hardware",), None))
    c.entry(cat, "hardware null on both", key, base, (pre + ("hardware",), None), (dec + ("hardware",), None))
    c.entry(cat, "hardware integer on both", key, base, (pre + ("hardware",), 355), (dec + ("hardware",), 355))
    c.entry(cat, "hardware on prefill only and bad conc", key, base, (pre + ("hardware",), "x"),
            (SS0 + ("conc-list",), [0]))
    c.entry(cat, "additional-settings string", key, base, (pre + ("additional-settings",), "PREFILL_NODES=1"))
    c.entry(cat, "additional-settings integer item", key, base, (pre + ("additional-settings",), [1]))
    c.entry(cat, "additional-settings null item", key, base, (pre + ("additional-settings",), [None]))
    c.entry(cat, "additional-settings empty", key, base, (pre + ("additional-settings",), []))
    c.entry(cat, "additional-settings null", key, base, (pre + ("additional-settings",), None))
    c.entry(cat, "additional-settings mapping item", key, base, (pre + ("additional-settings",), [{"A": 1}]))
    for field, value in (("tp", 8), ("ep", 1), ("dp-attn", False), ("pp", 1), ("kv-offloading", "none"),
                         ("hardware", "mi355x"), ("foo", 1), ("isl", 8192)):
        c.entry(cat, f"unknown field '{field}' in multinode entry", key, base, (SS0 + (field,), value))
    for value in ("mtp", "none", "MTP", None, "eagle"):
        c.entry(cat, f"multinode spec-decoding {value!r}", key, base, (SS0 + ("spec-decoding",), value))
    c.entry(cat, "spec-decoding removed (default none)", key, base, (SS0 + ("spec-decoding",), DELETE))
    c.entry(cat, "single-node style entry in multinode config", key, base,
            (SS0, {"tp": 8, "conc-start": 4, "conc-end": 64}))


def component_cases(c: Cases, bases: dict) -> None:
    cat = "components"
    for name, router_path in (("mn_top", ("router",)), ("mn_entry_router", SS0 + ("router",)),
                              ("ag_sn_router", AG1 + ("router",))):
        key, base = bases[name]
        for rule, value in (
            ("router extra key", {"name": "r", "version": "1", "image": "x"}),
            ("router empty name", {"name": "", "version": "1"}),
            ("router empty version", {"name": "r", "version": ""}),
            ("router version 'image:…'", {"name": "r", "version": "image:lmsysorg/sglang:v0.5"}),
            ("router version 'image:' only", {"name": "r", "version": "image:"}),
            ("router version 'Image:x' (case-sensitive prefix)", {"name": "r", "version": "Image:x"}),
            ("router version containing 'image:' later", {"name": "r", "version": "v1-image:x"}),
            ("router missing version", {"name": "r"}),
            ("router missing name", {"version": "1"}),
            ("router version null", {"name": "r", "version": None}),
            ("router version float", {"name": "r", "version": 1.5}),
            ("router version integer", {"name": "r", "version": 3}),
            ("router name integer", {"name": 7, "version": "1"}),
            ("router is a string", "sglang-router"),
            ("router is a list", [ROUTER]),
            ("router empty mapping", {}),
            ("router null", None),
            ("router valid other", {"name": "vllm-router", "version": "0.1.14"}),
        ):
            c.entry(cat, f"{name}: {rule}", key, base, (router_path, value))
    key, base = bases["ag_sn_dram"]
    backend = AG1 + ("kv-offload-backend",)
    for rule, value in (
        ("backend with version", {"name": "lmcache", "version": "0.4.5"}),
        ("backend version null", {"name": "lmcache", "version": None}),
        ("backend version empty", {"name": "lmcache", "version": ""}),
        ("backend version 'image:…'", {"name": "lmcache", "version": "image:lmcache/vllm:0.4"}),
        ("backend version float", {"name": "lmcache", "version": 0.4}),
        ("backend extra key", {"name": "lmcache", "path": "/x"}),
        ("backend empty name", {"name": ""}),
        ("backend missing name", {"version": "1"}),
        ("backend name null", {"name": None}),
        ("backend is a string", "lmcache"),
        ("backend empty mapping", {}),
    ):
        c.entry(cat, f"ag_sn_dram: {rule}", key, base, (backend, value))


def scope_cases(c: Cases, bases: dict) -> None:
    cat = "scope"
    key, base = bases["sn_range"]
    c.entry(cat, "single-node: top-level router", key, base, (("router",), ROUTER))
    c.entry(cat, "single-node: entry router", key, base, (SS0 + ("router",), ROUTER))
    c.entry(cat, "single-node: router top-level and in entry", key, base, (("router",), ROUTER),
            (SS1 + ("router",), ROUTER))
    c.entry(cat, "single-node: top-level router null and entry router", key, base, (("router",), None),
            (SS1 + ("router",), ROUTER))
    c.entry(cat, "single-node: top-level kv-p2p-transfer", key, base, (("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "single-node: top-level kv-p2p-transfer null", key, base, (("kv-p2p-transfer",), None))
    key, base = bases["mn_top"]  # top router + top transfer, disagg
    c.entry(cat, "multinode: entry router while top-level router", key, base, (SS0 + ("router",), ROUTER))
    c.entry(cat, "multinode: entry router null while top-level router", key, base, (SS0 + ("router",), None))
    c.entry(cat, "multinode: entry transfer while top-level transfer", key, base,
            (SS0 + ("kv-p2p-transfer",), "mori"))
    c.entry(cat, "multinode: entry transfer null while top-level transfer", key, base,
            (SS0 + ("kv-p2p-transfer",), None))
    c.entry(cat, "multinode: disagg true without any transfer", key, base, (("kv-p2p-transfer",), DELETE))
    c.entry(cat, "multinode: disagg true, top-level transfer null", key, base, (("kv-p2p-transfer",), None))
    c.entry(cat, "multinode: disagg false without any transfer", key, base, (("kv-p2p-transfer",), DELETE),
            (("disagg",), False))
    c.entry(cat, "multinode: disagg removed without any transfer", key, base, (("kv-p2p-transfer",), DELETE),
            (("disagg",), DELETE))
    c.entry(cat, "multinode: transfer moved into the entry", key, base, (("kv-p2p-transfer",), DELETE),
            (SS0 + ("kv-p2p-transfer",), "mori"))
    c.entry(cat, "multinode: entry transfer empty string", key, base, (("kv-p2p-transfer",), DELETE),
            (SS0 + ("kv-p2p-transfer",), ""))
    c.entry(cat, "multinode: entry transfer integer", key, base, (("kv-p2p-transfer",), DELETE),
            (SS0 + ("kv-p2p-transfer",), 3))
    c.entry(cat, "multinode: router moved into the entry", key, base, (("router",), DELETE),
            (SS0 + ("router",), ROUTER))
    c.entry(cat, "multinode: disagg true, empty search-space, top-level transfer", key, base,
            (FIXED + ("search-space",), []))
    c.entry(cat, "multinode: disagg true, empty search-space, no transfer", key, base,
            (FIXED + ("search-space",), []), (("kv-p2p-transfer",), DELETE))
    c.entry(cat, "multinode: disagg false, empty search-space, no transfer", key, base,
            (FIXED + ("search-space",), []), (("kv-p2p-transfer",), DELETE), (("disagg",), False))
    key, base = bases["mn_entry_xfer"]  # transfer per entry, top router, disagg
    c.entry(cat, "unchanged mn_entry_xfer", key, base)
    c.entry(cat, "entry transfer: remove from one of two entries", key, base, (SS1 + ("kv-p2p-transfer",), DELETE))
    c.entry(cat, "entry transfer: null in one of two entries", key, base, (SS1 + ("kv-p2p-transfer",), None))
    c.entry(cat, "entry transfer: plus top-level transfer", key, base, (("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "entry transfer: removed from one, top-level added", key, base,
            (SS1 + ("kv-p2p-transfer",), DELETE), (("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "entry transfer: disagg false, removed from one", key, base, (("disagg",), False),
            (SS1 + ("kv-p2p-transfer",), DELETE))
    c.entry(cat, "entry transfer: top router moved into one entry", key, base, (("router",), DELETE),
            (SS0 + ("router",), ROUTER))
    c.entry(cat, "entry transfer: top router plus an entry router", key, base, (SS1 + ("router",), ROUTER))
    c.entry(cat, "entry transfer: multinode false", key, base, (("multinode",), False), (("disagg",), False))
    key, base = bases["mn_entry_router"]  # router per entry, top transfer
    c.entry(cat, "unchanged mn_entry_router", key, base)
    c.entry(cat, "entry router: plus top-level router", key, base, (("router",), ROUTER))
    c.entry(cat, "entry router: plus top-level router null", key, base, (("router",), None))
    c.entry(cat, "entry router: router removed from one entry", key, base, (SS1 + ("router",), DELETE))
    # A second fixed-seq-len item also counts for the scope rule.
    two = copy.deepcopy(bases["mn_top"][1])
    second = copy.deepcopy(two["scenarios"]["fixed-seq-len"][0])
    second["isl"] = 1024
    second["search-space"][0]["router"] = ROUTER
    two["scenarios"]["fixed-seq-len"].append(second)
    c.entry(cat, "multinode: top router and a router in the second fixed-seq-len item", bases["mn_top"][0], two)


def agentic_cases(c: Cases, bases: dict) -> None:
    cat = "agentic-sn"
    key, base = bases["ag_sn_dram"]  # entry0: kv none; entry1: dram + backend; dram-utilization 0.5
    c.entry(cat, "runner without 'cluster:'", key, base, (("runner",), "mi355x"))
    c.entry(cat, "runner 'cluster:' exactly", key, base, (("runner",), "cluster:"))
    c.entry(cat, "runner 'Cluster:x' (case-sensitive)", key, base, (("runner",), "Cluster:mi355x-amds"))
    c.entry(cat, "runner with 'cluster:' inside", key, base, (("runner",), "mi355x-cluster:amds"))
    c.entry(cat, "runner without 'cluster:' and a bad entry", key, base, (("runner",), "mi355x"),
            (AG0 + ("kv-offloading",), DELETE))
    c.entry(cat, "dram without backend", key, base, (AG1 + ("kv-offload-backend",), DELETE))
    c.entry(cat, "dram with backend null", key, base, (AG1 + ("kv-offload-backend",), None))
    c.entry(cat, "none with backend", key, base, (AG0 + ("kv-offload-backend",), {"name": "lmcache"}))
    c.entry(cat, "backend without kv-offloading", key, base, (AG1 + ("kv-offloading",), DELETE))
    c.entry(cat, "kv-offloading null with backend", key, base, (AG1 + ("kv-offloading",), None))
    c.entry(cat, "single-node entry without kv-offloading", key, base, (AG0 + ("kv-offloading",), DELETE))
    c.entry(cat, "single-node entry kv-offloading null", key, base, (AG0 + ("kv-offloading",), None))
    c.entry(cat, "none with backend null", key, base, (AG0 + ("kv-offload-backend",), None))
    c.entry(cat, "kv-offloading 'cpu'", key, base, (AG0 + ("kv-offloading",), "cpu"))
    c.entry(cat, "kv-offloading 'DRAM'", key, base, (AG1 + ("kv-offloading",), "DRAM"))
    c.entry(cat, "kv-offloading boolean", key, base, (AG0 + ("kv-offloading",), False))
    c.entry(cat, "dram without dram-utilization", key, base, (AGENTIC + ("dram-utilization",), DELETE))
    c.entry(cat, "dram with dram-utilization null", key, base, (AGENTIC + ("dram-utilization",), None))
    c.entry(cat, "no dram entry, dram-utilization removed", key, base, (AGENTIC + ("dram-utilization",), DELETE),
            (AG1 + ("kv-offloading",), "none"), (AG1 + ("kv-offload-backend",), DELETE))
    for value, rule in ((0, "0"), (0.0, "0.0"), (1.5, "1.5"), (-0.5, "-0.5"), (1, "1 (int)"), (1.0, "1.0"),
                        (0.0001, "0.0001"), (float("nan"), ".nan"), (float("inf"), ".inf"),
                        (float("-inf"), "-.inf"), ("high", "non-numeric string"), ([0.5], "list")):
        c.entry(cat, f"dram-utilization {rule}", key, base, (AGENTIC + ("dram-utilization",), value))
    for value, rule in ((0.5, "0.5"), (0, "0"), (-1, "negative"), (1, "1 (int)"), (2.0, "2.0 (no upper bound)"),
                        (float("nan"), ".nan"), (float("inf"), ".inf"), (None, "null"), ("x", "string")):
        c.entry(cat, f"hicache-ratio {rule}", key, base, (AG1 + ("hicache-ratio",), value))
    c.entry(cat, "entry with tp and prefill", key, base, (AG0 + ("prefill",), {"num-worker": 1, "tp": 8, "ep": 1,
                                                                                "dp-attn": False}))
    worker = {"num-worker": 1, "tp": 8, "ep": 1, "dp-attn": False}
    c.entry(cat, "entry with tp, prefill and decode", key, base, (AG0 + ("prefill",), worker),
            (AG0 + ("decode",), worker))
    c.entry(cat, "entry with tp and decode null", key, base, (AG0 + ("decode",), None))
    c.entry(cat, "entry without tp", key, base, (AG0 + ("tp",), DELETE))
    c.entry(cat, "entry with tp null", key, base, (AG0 + ("tp",), None))
    c.entry(cat, "entry with prefill only", key, base, (AG0 + ("tp",), DELETE), (AG0 + ("prefill",), worker))
    c.entry(cat, "prefill/decode entry in a single-node config", key, base, (AG0 + ("tp",), DELETE),
            (AG0 + ("prefill",), worker), (AG0 + ("decode",), worker))
    c.entry(cat, "prefill/decode entry in a single-node config without kv-offloading", key, base,
            (AG0 + ("tp",), DELETE), (AG0 + ("kv-offloading",), DELETE), (AG0 + ("prefill",), worker),
            (AG0 + ("decode",), worker))
    c.entry(cat, "prefill/decode entry with kv-p2p-transfer in a single-node config", key, base,
            (AG0 + ("tp",), DELETE), (AG0 + ("prefill",), worker), (AG0 + ("decode",), worker),
            (AG0 + ("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "tp entry with kv-p2p-transfer in a single-node config", key, base,
            (AG0 + ("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "tp entry with kv-p2p-transfer null in a single-node config", key, base,
            (AG0 + ("kv-p2p-transfer",), None))
    c.entry(cat, "tp entry with kv-p2p-transfer empty in a single-node config", key, base,
            (AG0 + ("kv-p2p-transfer",), ""))
    c.entry(cat, "single-node agentic with top-level kv-p2p-transfer", key, base, (("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "single-node agentic with disagg true", key, base, (("disagg",), True))
    c.entry(cat, "single-node agentic: router top-level and in entry", key, base, (("router",), ROUTER),
            (AG0 + ("router",), ROUTER))
    for field, value in (("pp", 0), ("pp", 2), ("dcp-size", 3), ("dcp-size", 2), ("pcp-size", True),
                         ("pcp-size", 4), ("dcp-size", 16)):
        c.entry(cat, f"tp 8 entry with {field} {value!r}", key, base, (AG0 + (field,), value))
    c.entry(cat, "dcp-size 3 with tp 8 and no kv-offloading", key, base, (AG0 + ("dcp-size",), 3),
            (AG0 + ("kv-offloading",), DELETE))
    for field, value in (("isl", 1024), ("scenario-type", "agentic-coding"), ("duration", 600),
                         ("total-cpu-dram-gb", 100), ("foo", 1), ("disagg", False), ("hardware", "mi355x")):
        c.entry(cat, f"unknown field '{field}' in agentic entry", key, base, (AG0 + (field,), value))
    c.entry(cat, "agentic entry ep float", key, base, (AG0 + ("ep",), 1.5))
    c.entry(cat, "agentic entry dp-attn 'maybe'", key, base, (AG0 + ("dp-attn",), "maybe"))
    c.entry(cat, "agentic entry spec-decoding 'eagle'", key, base, (AG0 + ("spec-decoding",), "eagle"))
    c.entry(cat, "agentic entry tp float", key, base, (AG0 + ("tp",), 8.5))
    c.entry(cat, "agentic: second agentic-coding item without dram-utilization", key, base,
            fn=lambda d: d["scenarios"]["agentic-coding"].append(
                {"search-space": [copy.deepcopy(d["scenarios"]["agentic-coding"][0]["search-space"][1])]}))
    c.entry(cat, "agentic: second agentic-coding item, kv none, no dram-utilization", key, base,
            fn=lambda d: d["scenarios"]["agentic-coding"].append(
                {"search-space": [copy.deepcopy(d["scenarios"]["agentic-coding"][0]["search-space"][0])]}))
    key, base = bases["ag_sn_router"]
    c.entry(cat, "unchanged ag_sn_router", key, base)
    c.entry(cat, "ag_sn_router: router moved to top level", key, base, (AG1 + ("router",), DELETE),
            (("router",), ROUTER))
    c.entry(cat, "ag_sn_router: top-level router added", key, base, (("router",), ROUTER))
    key, base = bases["ag_sn_dcp"]
    c.entry(cat, "unchanged ag_sn_dcp", key, base)
    tp = get_at(base, AG0 + ("tp",))
    c.entry(cat, f"ag_sn_dcp: tp {tp} with dcp-size 3", key, base, (AG0 + ("dcp-size",), 3))
    c.entry(cat, "ag_sn_dcp: dcp-size 0", key, base, (AG0 + ("dcp-size",), 0))

    cat = "agentic-mn"
    key, base = bases["ag_mn_dram"]  # top transfer, disagg, dram + hicache
    pre, dec = AG0 + ("prefill",), AG0 + ("decode",)
    c.entry(cat, "runner without 'cluster:'", key, base, (("runner",), "mi355x-disagg"))
    for field, value in (("pp", 1), ("dcp-size", 1), ("pcp-size", 2), ("pp", 0)):
        c.entry(cat, f"explicit {field} {value!r} on a multinode agentic entry", key, base, (AG0 + (field,), value))
    c.entry(cat, "explicit pp null on a multinode agentic entry", key, base, (AG0 + ("pp",), None))
    c.entry(cat, "worker pp 2 (allowed inside workers)", key, base, (pre + ("pp",), 2), (dec + ("pp",), 2))
    c.entry(cat, "worker dcp-size 3 with tp 8", key, base, (pre + ("dcp-size",), 3))
    c.entry(cat, "tp with prefill/decode", key, base, (AG0 + ("tp",), 8))
    c.entry(cat, "entry-level ep, dp-attn and hicache-ratio (not checked for multinode)", key, base,
            (AG0 + ("ep",), 8), (AG0 + ("dp-attn",), True), (AG0 + ("hicache-ratio",), 0.5))
    c.entry(cat, "entry-level ep float", key, base, (AG0 + ("ep",), 8.5))
    c.entry(cat, "remove decode", key, base, (dec, DELETE))
    c.entry(cat, "remove prefill", key, base, (pre, DELETE))
    c.entry(cat, "decode null", key, base, (dec, None))
    c.entry(cat, "hardware on prefill only", key, base, (pre + ("hardware",), "mi355x"))
    c.entry(cat, "hardware on both", key, base, (pre + ("hardware",), "mi355x"), (dec + ("hardware",), "mi355x"))
    c.entry(cat, "hardware on decode only and explicit pp", key, base, (dec + ("hardware",), "mi355x"),
            (AG0 + ("pp",), 1))
    c.entry(cat, "no kv-offloading and no backend (allowed multinode)", key, base,
            (AG0 + ("kv-offloading",), DELETE), (AG0 + ("kv-offload-backend",), DELETE))
    c.entry(cat, "dram without backend", key, base, (AG0 + ("kv-offload-backend",), DELETE))
    c.entry(cat, "backend without kv-offloading", key, base, (AG0 + ("kv-offloading",), DELETE))
    c.entry(cat, "kv-offloading none with backend", key, base, (AG0 + ("kv-offloading",), "none"))
    c.entry(cat, "dram without dram-utilization", key, base, (AGENTIC + ("dram-utilization",), DELETE))
    c.entry(cat, "dram-utilization 1.5", key, base, (AGENTIC + ("dram-utilization",), 1.5))
    c.entry(cat, "disagg true without transfer", key, base, (("kv-p2p-transfer",), DELETE))
    c.entry(cat, "transfer moved into the entry", key, base, (("kv-p2p-transfer",), DELETE),
            (AG0 + ("kv-p2p-transfer",), "mori"))
    c.entry(cat, "transfer top-level and in the entry", key, base, (AG0 + ("kv-p2p-transfer",), "mori"))
    c.entry(cat, "router top-level and in the entry", key, base, (("router",), ROUTER), (AG0 + ("router",), ROUTER))
    c.entry(cat, "single-node style entry in a multinode config", key, base,
            (AG0, {"tp": 8, "kv-offloading": "none", "conc-list": [1, 2]}))
    c.entry(cat, "single-node style entry without kv-offloading in a multinode config", key, base,
            (AG0, {"tp": 8, "conc-list": [1, 2]}))
    c.entry(cat, "multinode false (entries stay prefill/decode)", key, base, (("multinode",), False),
            (("disagg",), DELETE), (("kv-p2p-transfer",), DELETE))
    c.entry(cat, "multinode false with top-level transfer", key, base, (("multinode",), False),
            (("disagg",), DELETE))
    c.entry(cat, "agentic and fixed-seq-len together", key, base,
            (("scenarios", "fixed-seq-len"), bases["mn_top"][1]["scenarios"]["fixed-seq-len"]))
    c.entry(cat, "fixed entry transfer while top-level transfer, agentic present", key, base,
            (("scenarios", "fixed-seq-len"), copy.deepcopy(bases["mn_top"][1]["scenarios"]["fixed-seq-len"])),
            (("scenarios", "fixed-seq-len", 0, "search-space", 0, "kv-p2p-transfer"), "mori"))
    key, base = bases["ag_mn_entry_router"]  # top transfer, entry routers
    c.entry(cat, "unchanged ag_mn_entry_router", key, base)
    c.entry(cat, "entry routers plus top-level router", key, base, (("router",), ROUTER))
    c.entry(cat, "entry router with 'image:' version", key, base,
            (AG0 + ("router",), {"name": "dynamo-router", "version": "image:nvcr.io/dynamo:1.3"}))
    c.entry(cat, "top transfer removed, transfer in every entry", key, base, (("kv-p2p-transfer",), DELETE),
            (AG0 + ("kv-p2p-transfer",), "nixl"), (AG1 + ("kv-p2p-transfer",), "nixl"))
    c.entry(cat, "top transfer removed, transfer in one of two entries", key, base, (("kv-p2p-transfer",), DELETE),
            (AG0 + ("kv-p2p-transfer",), "nixl"))
    key, base = bases["ag_mn_agg_pp"]  # multinode, disagg false, worker pp 2
    c.entry(cat, "unchanged ag_mn_agg_pp", key, base)
    c.entry(cat, "ag_mn_agg_pp: entry-level pp 2", key, base, (AG0 + ("pp",), 2))
    c.entry(cat, "ag_mn_agg_pp: disagg true without transfer", key, base, (("disagg",), True))
    c.entry(cat, "ag_mn_agg_pp: worker pp 0", key, base, (AG0 + ("decode", "pp"), 0))
    c.entry(cat, "ag_mn_agg_pp: kv-offloading dram without dram-utilization", key, base,
            (AG0 + ("kv-offloading",), "dram"), (AG0 + ("kv-offload-backend",), {"name": "lmcache"}))
    key, base = bases["ag_mn_pcp"]
    c.entry(cat, "unchanged ag_mn_pcp", key, base)
    c.entry(cat, "ag_mn_pcp: worker pcp-size 0", key, base, (AG0 + ("prefill", "pcp-size"), 0))
    c.entry(cat, "ag_mn_pcp: entry-level pcp-size 1", key, base, (AG0 + ("pcp-size",), 1))


def yaml_text_cases(c: Cases, bases: dict) -> None:
    """Cases whose YAML spelling matters: how PyYAML (YAML 1.1) resolves plain scalars."""
    cat = "yaml-scalars"
    key, base = bases["sn_range"]
    c.text(cat, "tp hexadecimal 0x4", key, base, "tp: 4", "tp: 0x4")
    c.text(cat, "tp octal 04", key, base, "tp: 4", "tp: 04")
    c.text(cat, "isl with underscores 8_192", key, base, "isl: 8192", "isl: 8_192")
    c.text(cat, "isl sexagesimal 2:16:32", key, base, "isl: 8192", "isl: 2:16:32")
    c.text(cat, "conc-end +64", key, base, "conc-end: 64", "conc-end: +64")
    c.text(cat, "model-prefix 1e3 (a string in YAML 1.1)", key, base, "model-prefix: dsr1", "model-prefix: 1e3")
    c.text(cat, "model-prefix 1.0e+3 (a float)", key, base, "model-prefix: dsr1", "model-prefix: 1.0e+3")
    c.text(cat, "model-prefix yes (a boolean)", key, base, "model-prefix: dsr1", "model-prefix: yes")
    c.text(cat, "model-prefix 'y' (a string in PyYAML)", key, base, "model-prefix: dsr1", "model-prefix: y")
    c.text(cat, "precision ~ (null)", key, base, "precision: fp4", "precision: ~")
    c.text(cat, "precision 2024-01-01 (a date)", key, base, "precision: fp4", "precision: 2024-01-01")
    c.text(cat, "precision quoted date", key, base, "precision: fp4", "precision: '2024-01-01'")
    c.text(cat, "precision !!str 8", key, base, "precision: fp4", "precision: !!str 8")
    c.text(cat, "tp !!int '4'", key, base, "tp: 4", "tp: !!int '4'")
    c.text(cat, "model-prefix 0o17 (a string in YAML 1.1)", key, base, "model-prefix: dsr1", "model-prefix: 0o17")
    c.text(cat, "tp .5 (a float)", key, base, "tp: 4", "tp: .5")
    c.text(cat, "tp 1e3 (a string in YAML 1.1)", key, base, "tp: 4", "tp: 1e3")
    key, base = bases["mn_top"]
    c.text(cat, "router version unquoted 0.3.2 (a string)", key, base, "version: 0.3.2", "version: 0.3.2")
    c.text(cat, "router version unquoted 1.0 (a float)", key, base, "version: 0.3.2", "version: 1.0")
    c.text(cat, "router version unquoted 2024-05-01 (a date)", key, base, "version: 0.3.2", "version: 2024-05-01")
    c.text(cat, "router version unquoted 012 (an octal int)", key, base, "version: 0.3.2", "version: 012")
    c.text(cat, "router version unquoted 1_2 (an int)", key, base, "version: 0.3.2", "version: 1_2")
    c.text(cat, "router version unquoted 1:2 (sexagesimal int)", key, base, "version: 0.3.2", "version: 1:2")
    c.text(cat, "router version unquoted 0.3.2a (a string)", key, base, "version: 0.3.2", "version: 0.3.2a")
    # Anchors, aliases and merge keys, as hand-written configs use them.
    text = dump({key: base})
    worker = re.compile(r"^( +)prefill:\n((?:\1  .*\n)+)\1decode:\n(?:\1  .*\n)+", re.MULTILINE)
    if worker.search(text) is None:
        raise SystemExit("mutate_configs: no prefill/decode block in the anchor base")
    c.add(cat, "decode is an alias of prefill",
          worker.sub(lambda m: f"{m[1]}prefill: &worker\n{m[2]}{m[1]}decode: *worker\n", text, count=1))
    merge = lambda extra: worker.sub(  # noqa: E731
        lambda m: f"{m[1]}prefill: &worker\n{m[2]}{m[1]}decode:\n{m[1]}  <<: *worker\n{m[1]}  num-worker: 2\n"
        + "".join(f"{m[1]}  {line}\n" for line in extra), text, count=1)
    c.add(cat, "decode merges prefill (<<) and overrides num-worker", merge([]))
    c.add(cat, "decode merges prefill and adds an unknown field", merge(["batch-size: 8"]))
    c.add(cat, "decode merges prefill and overrides tp with a float", merge(["tp: 4.5"]))


def root_cases(c: Cases, bases: dict) -> None:
    cat = "root"
    key, base = bases["sn_range"]
    c.add(cat, "master file is a list", dump([{key: base}]))
    c.add(cat, "master file is a scalar", "just-a-string\n")
    c.add(cat, "master file is empty", "# nothing here\n")
    c.add(cat, "entry value null", f"{key}:\n")
    c.add(cat, "entry value a list", dump({key: [base]}))
    c.add(cat, "entry value a string", dump({key: "see other file"}))
    c.add(cat, "integer config key", dump({123: base}))
    c.add(cat, "two YAML documents", dump({key: base}) + "---\n" + dump({key + "-b": base}))
    c.add(cat, "explicit document markers", "---\n" + dump({key: base}) + "...\n")
    c.add(cat, "two entries, second invalid", dump({key: base, key + "-b": {**base, "tp": 4}}))
    c.add(cat, "two valid entries", dump({key: base, key + "-b": base}))


def runner_cases(c: Cases) -> None:
    cat = "runners"
    with open(CONFIGS / "runners.yaml", encoding="utf-8") as f:
        full = yaml.safe_load(f)
    labels = {k: v[:2] for k, v in list(full["labels"].items())[:3]}
    hardware = dict(list(full["hardware"].items())[:2])
    base = {"labels": labels, "hardware": hardware}
    first_label, first_hw = next(iter(labels)), next(iter(hardware))

    def add(rule: str, doc: Any) -> None:
        c.add(cat, rule, dump(doc), kind="runners")

    def edit(rule: str, fn: Callable[[dict], None]) -> None:
        doc = copy.deepcopy(base)
        fn(doc)
        add(rule, doc)

    add("unchanged trimmed runners", base)
    add("labels only (hardware defaults to {})", {"labels": labels})
    add("hardware missing labels", {"hardware": hardware})
    add("file is a list", [base])
    c.add(cat, "file is empty", "# empty\n", kind="runners")
    for rule, value in (("labels a list", [first_label]), ("labels a string", "h100"), ("labels null", None),
                        ("labels empty mapping", {}), ("labels an integer", 3)):
        edit(rule, lambda d, v=value: d.__setitem__("labels", v))
    for rule, value in (("label value a string", "h100-cw_00"), ("label value null", None),
                        ("label value a mapping", {"a": "b"}), ("label value empty list", []),
                        ("label value integer item", ["h100-cw_00", 7]), ("label value null item", [None]),
                        ("label value nested list item", [["h100-cw_00"]]), ("label value boolean item", [True]),
                        ("label value mapping item", [{"name": "x"}]), ("label value float item", [1.5]),
                        ("label value integer", 5)):
        edit(rule, lambda d, v=value: d["labels"].__setitem__(first_label, v))
    edit("label value empty string item", lambda d: d["labels"].__setitem__(first_label, [""]))
    edit("integer label key", lambda d: d["labels"].__setitem__(123, ["x"]))
    edit("boolean label key", lambda d: d["labels"].__setitem__(True, ["x"]))
    edit("empty label key", lambda d: d["labels"].__setitem__("", ["x"]))
    edit("duplicate runner names in a label", lambda d: d["labels"].__setitem__(first_label, ["a", "a"]))
    edit("label key with spaces", lambda d: d["labels"].__setitem__("my label", ["x"]))
    edit("unknown top-level key", lambda d: d.__setitem__("clusters", {"a": ["b"]}))
    edit("unknown top-level key null", lambda d: d.__setitem__("notes", None))
    for rule, value in (("hardware null", None), ("hardware a list", []), ("hardware empty mapping", {}),
                        ("hardware a string", "x")):
        edit(rule, lambda d, v=value: d.__setitem__("hardware", v))
    for rule, fn in (
        ("hardware entry null", lambda h: h.__setitem__(first_hw, None)),
        ("hardware entry a list", lambda h: h.__setitem__(first_hw, [8])),
        ("hardware entry empty", lambda h: h.__setitem__(first_hw, {})),
        ("gpus-per-node 0", lambda h: h[first_hw].__setitem__("gpus-per-node", 0)),
        ("gpus-per-node negative", lambda h: h[first_hw].__setitem__("gpus-per-node", -8)),
        ("gpus-per-node float 8.5", lambda h: h[first_hw].__setitem__("gpus-per-node", 8.5)),
        ("gpus-per-node string 'eight'", lambda h: h[first_hw].__setitem__("gpus-per-node", "eight")),
        ("gpus-per-node null", lambda h: h[first_hw].__setitem__("gpus-per-node", None)),
        ("gpus-per-node missing", lambda h: h[first_hw].pop("gpus-per-node")),
        ("available-cpu-dram-mib 0", lambda h: h[first_hw].__setitem__("available-cpu-dram-mib", 0)),
        ("available-cpu-dram-mib missing", lambda h: h[first_hw].pop("available-cpu-dram-mib")),
        ("available-cpu-dram-mib float 1.5", lambda h: h[first_hw].__setitem__("available-cpu-dram-mib", 1.5)),
        ("available-cpu-dram-mib 1", lambda h: h[first_hw].__setitem__("available-cpu-dram-mib", 1)),
        ("unknown hardware key", lambda h: h[first_hw].__setitem__("gpus", 8)),
        ("unknown hardware key total-cpu-dram-gb", lambda h: h[first_hw].__setitem__("total-cpu-dram-gb", 100)),
        ("hardware label not in labels", lambda h: h.__setitem__("cluster:unknown",
                                                                 {"available-cpu-dram-mib": 1, "gpus-per-node": 1})),
        ("integer hardware key", lambda h: h.__setitem__(42, {"available-cpu-dram-mib": 1, "gpus-per-node": 1})),
    ):
        edit(rule, lambda d, f=fn: f(d["hardware"]))
    text = dump(base)
    m = re.search(r"available-cpu-dram-mib: (\d+)", text)
    assert m is not None
    value = int(m.group(1))
    grouped = text.replace(m.group(0), f"available-cpu-dram-mib: {value:_}", 1)
    c.add(cat, "available-cpu-dram-mib with underscores", grouped, kind="runners")
    c.add(cat, "available-cpu-dram-mib .nan", text.replace(m.group(0), "available-cpu-dram-mib: .nan", 1),
          kind="runners")


def deliberate_cases(c: Cases, bases: dict) -> None:
    """Inputs where infermark deliberately disagrees with the reference (recorded, verdict pinned)."""
    cat = "deliberate"
    snake = "pydantic populate_by_name accepts the Python field name; the generator then reads the " \
            "dash spelling and fails (KeyError) or ignores the field, so infermark rejects it"
    key, base = bases["sn_range"]
    c.entry(cat, "snake_case model_prefix instead of model-prefix", key, rename_key(base, "model-prefix",
                                                                                   "model_prefix"),
            deliberate=snake, ours=False)
    doc = copy.deepcopy(base)
    doc["scenarios"]["fixed-seq-len"][0]["search-space"][0] = rename_key(
        rename_key(get_at(doc, SS0), "conc-start", "conc_start"), "conc-end", "conc_end")
    c.entry(cat, "snake_case conc_start/conc_end in a search-space entry", key, doc, deliberate=snake, ours=False)
    doc = copy.deepcopy(base)
    doc["scenarios"] = rename_key(doc["scenarios"], "fixed-seq-len", "fixed_seq_len")
    c.entry(cat, "snake_case fixed_seq_len scenario", key, doc, deliberate=snake, ours=False)
    c.entry(cat, "tp 2**70 (beyond 64-bit)", key, base, (SS0 + ("tp",), 2 ** 70),
            deliberate="infermark keeps integers in 64 bits; Python ints are unbounded", ours=False)
    lax = "pydantic's lax mode coerces numeric strings and booleans to floats; infermark wants a number, " \
          "as it does for integers (YAML 1.1 reads 1e-3 as a string)"
    key, base = bases["ag_sn_dram"]
    for value, rule in (("1e-3", "plain 1e-3 (a string in YAML 1.1)"), ("0.5", "quoted '0.5'"), (True, "true")):
        c.entry(cat, f"dram-utilization {rule}", key, base, (AGENTIC + ("dram-utilization",), value),
                deliberate=lax, ours=False)
    c.entry(cat, "hicache-ratio quoted '0.5'", key, base, (AG1 + ("hicache-ratio",), "0.5"), deliberate=lax,
            ours=False)
    with open(CONFIGS / "runners.yaml", encoding="utf-8") as f:
        full = yaml.safe_load(f)
    hw_key, hw = next(iter(full["hardware"].items()))
    c.add(cat, "snake_case gpus_per_node in runners hardware",
          dump({"labels": {"h100": ["h100-cw_00"]}, "hardware": {hw_key: rename_key(hw, "gpus-per-node",
                                                                                    "gpus_per_node")}}),
          kind="runners", deliberate=snake, ours=False)


# --- reference verdicts -------------------------------------------------------------------------


def reference_verdict(validation: Any, path: Path, kind: str) -> tuple[bool, str]:
    try:
        if kind == "master":
            validation.load_config_files([str(path)])
        else:
            validation.load_runner_file(str(path))
    except Exception as e:  # pylint: disable=broad-except  # any failure is an "invalid" verdict
        text = str(e).replace(str(path.parent) + "/", "")  # no machine-specific paths in the fixture
        lines = [line.strip() for line in text.splitlines() if line.strip() and "errors.pydantic.dev" not in line]
        message = " | ".join(lines[1:4] if len(lines) > 1 else lines)
        return False, f"{type(e).__name__}: {message}"[:300]
    return True, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                        help="folder holding InferenceX's validation.py (default: ../shared/reference/inferencex/utils/matrix_logic)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args()
    if not (args.reference / "validation.py").is_file():
        print(f"mutate_configs: no validation.py in {args.reference}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(args.reference))
    validation = importlib.import_module("validation")

    bases = load_bases()
    c = Cases()
    top_level_cases(c, bases)
    scenario_cases(c, bases)
    single_node_entry_cases(c, bases)
    concurrency_cases(c, bases)
    multinode_entry_cases(c, bases)
    component_cases(c, bases)
    scope_cases(c, bases)
    agentic_cases(c, bases)
    yaml_text_cases(c, bases)
    root_cases(c, bases)
    runner_cases(c)
    deliberate_cases(c, bases)

    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    counters: dict[str, int] = {}
    records = []
    for case in c.items:
        counters[case["category"]] = counters.get(case["category"], 0) + 1
        name = f"{case['category']}-{counters[case['category']]:03d}.yaml"
        path = args.out / name
        path.write_text(f"# {case['rule']}\n{case['text']}", encoding="utf-8")
        valid, error = reference_verdict(validation, path, case["kind"])
        record = {"file": name, "kind": case["kind"], "valid": valid, "rule": case["rule"]}
        if error:
            record["reference_error"] = error
        if case["deliberate"]:
            record["deliberate"] = case["deliberate"]
            record["ours"] = case["ours"]
        records.append(record)
    with open(args.out / "verdicts.jsonl", "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    valid = sum(r["valid"] for r in records)
    print(f"{len(records)} cases ({valid} valid, {len(records) - valid} invalid) in {args.out}")
    for category, count in counters.items():
        print(f"  {category}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
