#!/usr/bin/env python3
"""Pooled inter-token latencies as a client saw them against the engine's own, for a client whose
records cannot be joined chunk by chunk with the emission log (the reference client keeps no
response id). Both lists pool every gap between successive token-carrying chunks of a request,
so a client that keeps up reproduces the engine's distribution; one that falls behind squeezes
some gaps (chunks read together) and stretches others (chunks read late).

CLIENT is either infermark's `--save-detailed` JSONL (`chunk_ns` per request) or the reference
client's result JSON saved with `--save-detailed` (`itls`, seconds per request).

Usage: itl_distribution.py CLIENT EMISSION.jsonl   (prints one JSON object; times in ms)
"""
import json
import sys

from timing_error import engine_sends, percentile

PERCENTILES = (1, 10, 50, 90, 99, 99.9)


def client_gaps_ms(path):
    gaps = []
    if path.endswith(".jsonl"):
        with open(path) as f:
            for line in f:
                chunks = json.loads(line)["chunk_ns"]
                gaps += [(b - a) / 1e6 for a, b in zip(chunks, chunks[1:])]
    else:
        with open(path) as f:
            for request in json.load(f)["itls"]:
                gaps += [s * 1e3 for s in request]
    return gaps


def engine_gaps_ms(path):
    gaps = []
    for times in engine_sends(path).values():
        gaps += [(b - a) / 1e6 for a, b in zip(times, times[1:])]
    return gaps


def summary(gaps):
    if not gaps:
        return None
    s = sorted(gaps)
    return {"count": len(s), **{f"p{q:g}_ms": round(percentile(s, q), 3) for q in PERCENTILES}}


def main(client_path, emission_path):
    client, engine = summary(client_gaps_ms(client_path)), summary(engine_gaps_ms(emission_path))
    shift = None
    if client and engine:
        shift = {k: round(client[k] - engine[k], 3) for k in client if k.endswith("_ms")}
    print(json.dumps({"client": client, "engine": engine, "client_minus_engine": shift}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
