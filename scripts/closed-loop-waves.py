#!/usr/bin/env python3
"""Per-wave TTFT of a fixed-length closed-loop run, rebuilt from `fleetcast simulate --chrome-trace`.

usage: closed-loop-waves.py TRACE.json CLIENTS NUM_REQUESTS OUTPUT_TOKENS [--steps]

Take the trace over the whole run (`--trace-window 0:100000`). Each step's `output_tokens - decode_sequences` is the
number of prompts whose prefill completed in it (their first token); with fixed lengths, FCFS admission and no
preemption the n-th first token belongs to the n-th arrival, and a request whose first token came in step s finishes
in step s + OUTPUT_TOKENS - 1, when its client sends the next request. Prints the mean TTFT of each wave of CLIENTS
arrival ranks, of the default window (the middle 80% of arrivals) and of the ranks past the first wave; --steps also
lists every step that prefilled (when, how many prompts, prefill tokens, decodes, duration), which shows the groups.
"""
import json
import sys


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    trace, clients, total, osl = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    events = json.load(open(trace))
    events = events["traceEvents"] if isinstance(events, dict) else events
    steps = sorted((e for e in events if e.get("name") == "step" and e.get("ph") == "X"), key=lambda e: e["ts"])
    arrival = [0.0] * clients  # arrival time by rank: every client sends at t = 0
    first = []  # first-token time by rank
    finishing = {}  # step index -> requests finishing at its end
    listing = []
    for i, s in enumerate(steps):
        a = s["args"]
        end = (s["ts"] + s["dur"]) / 1e6
        done = a["output_tokens"] - a["decode_sequences"]
        if a["prefill_tokens"] > 0:
            listing.append((i, s["ts"] / 1e6, done, a["prefill_tokens"], a["decode_sequences"], s["dur"] / 1e3))
        for _ in range(done):
            first.append(end)
            finishing[i + osl - 1] = finishing.get(i + osl - 1, 0) + 1
        for _ in range(finishing.get(i, 0)):
            if len(arrival) < total:
                arrival.append(end)
    ttft = [1e3 * (first[k] - arrival[k]) for k in range(min(len(first), len(arrival)))]
    lo, hi = int(0.1 * total), total - int(0.1 * total)
    mean = lambda x: sum(x) / len(x)
    print(f"{len(ttft)} requests; default window ranks [{lo},{hi}): mean TTFT {mean(ttft[lo:hi]):.1f} ms; "
          f"ranks [{clients},{hi}) (first wave left out): {mean(ttft[clients:hi]):.1f} ms")
    for w in range((len(ttft) + clients - 1) // clients):
        x = ttft[w * clients:(w + 1) * clients]
        print(f"wave {w} (ranks {w * clients}-{w * clients + len(x) - 1}): mean {mean(x):8.1f}  min {min(x):8.1f}  "
              f"max {max(x):8.1f} ms")
    if "--steps" in argv:
        for row in listing:
            print("step %d at %.3f s: %d prefills completed, %d prefill tokens, %d decodes, %.1f ms" % row)


if __name__ == "__main__":
    main(sys.argv)
