#!/usr/bin/env python3
"""Client-added timing error of one `infermark bench serve --save-detailed` run against the
built-in engine's `--emission-log` of the same run.

For every streamed chunk the client recorded (`chunk_ns`, taken at socket read, or the kernel's
arrival time) and the engine logged (`send_ns`, just before the write that carried it), both on
the host's monotonic clock:
  arrival error = client chunk time - engine send time   (what the client adds to TTFT/E2EL)
  ITL error     = client gap - engine gap                 (what the client adds to each ITL)
  TTFT error    = the arrival error of each request's first chunk
Requests are joined on the response id; events carrying tokens are matched to chunks in order.

Usage: timing_error.py DETAILED.jsonl EMISSION.jsonl   (prints one JSON object)
"""
import json
import sys


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def engine_sends(emission_path):
    """Request id -> send times (ns) of its token-carrying events, in event order."""
    sends = {}
    with open(emission_path) as f:
        for line in f:
            e = json.loads(line)
            if e["tokens"] > 0:
                sends.setdefault(e["request"], []).append((e["event"], e["send_ns"]))
    return {request: [t for _, t in sorted(events)] for request, events in sends.items()}


def main(detailed_path, emission_path):
    sends = engine_sends(emission_path)
    arrival, itl, ttft, unmatched, requests, receiving = [], [], [], 0, 0, 0
    with open(detailed_path) as f:
        for line in f:
            r = json.loads(line)
            requests += 1
            chunks = r["chunk_ns"]
            if chunks:
                receiving += 1
            engine = sends.get(r["response_id"], [])
            if len(engine) != len(chunks):
                unmatched += 1
            n = min(len(engine), len(chunks))
            if n > 0:
                ttft.append(chunks[0] - engine[0])
            for k in range(n):
                arrival.append(chunks[k] - engine[k])
                if k > 0:
                    itl.append((chunks[k] - chunks[k - 1]) - (engine[k] - engine[k - 1]))

    def summary(values):
        if not values:
            return None
        us = sorted(v / 1e3 for v in values)
        return {
            "count": len(us),
            "p50_us": round(percentile(us, 50), 1),
            "p99_us": round(percentile(us, 99), 1),
            "max_us": round(us[-1], 1),
            "p99_abs_us": round(percentile(sorted(abs(v) for v in us), 99), 1),
        }

    print(json.dumps({
        "requests": requests,
        "requests_receiving_tokens": receiving,
        "requests_not_matched_one_to_one": unmatched,
        "arrival_error": summary(arrival),
        "itl_error": summary(itl),
        "ttft_error": summary(ttft),
    }))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
