#!/usr/bin/env bash
# DeepInfer's launch sweeps (../shared/REFERENCE.md section 1) through `fleetcast sweep`, as DeepInfer's
# `run_sweep.sh decode ce-128k 131072 3 0.75` and `run_sweep.sh prefill pe-128k 131072` run them: decode over
# requests per DP rank (MTP next-n 3 at acceptance 0.75) on deepinfer-decode-gb200, prefill over tokens per GPU per
# step on deepinfer-prefill-gb200, both at 131,072 tokens of context. Writes OUT_DIR/ce-128k and OUT_DIR/pe-128k
# (results.jsonl, pareto.svg), prints predicted against read-off figures, and checks that the predictions are the
# ones docs/ACCURACY.md records (exit 1 if not). An interrupted run picks up where it stopped.
# Usage: scripts/deepinfer-sweep.sh [OUT_DIR]   (default: sweeps; FLEETCAST=path to the binary; JOBS=workers)
set -euo pipefail
cd "$(dirname "$0")/.."
fleetcast=${FLEETCAST:-build/cli/fleetcast}
out=${1:-sweeps}
jobs=${JOBS:-2}
context=131072

"$fleetcast" sweep decode ce-128k "$context" 3 0.75 --points 8,64,256 --out "$out" -j "$jobs" >/dev/null
"$fleetcast" sweep prefill pe-128k "$context" --batches 4096,16384,65536 --out "$out" -j "$jobs" >/dev/null

# chart, point, read-off throughput, read-off latency; the point's steady_state figures from results.jsonl; the
# ACCURACY.md row for the same chart and point. Rounded as ACCURACY.md writes them: throughput to a token/s,
# decode speed to 0.1 tok/s/user, prefill step to 0.1 ms.
awk -v decode="$out/ce-128k/results.jsonl" -v prefill="$out/pe-128k/results.jsonl" '
  function figure(line, key,    ss) {
    ss = substr(line, index(line, "\"steady_state\":"))
    if (!match(ss, "\"" key "\":[-0-9.eE+]+")) return "nan"
    return substr(ss, RSTART + length(key) + 3, RLENGTH - length(key) - 3) + 0
  }
  function number(text) { gsub(/[^0-9.]/, "", text); return text + 0 }
  BEGIN {
    # Read-offs (REFERENCE.md section 1): requests per rank -> output tok/s/GPU, tok/s/user;
    # tokens per GPU per step -> input tok/s/GPU, ms per step.
    split("8 2600 325 64 15500 248 256 26000 103", d, " ")
    split("4096 60000 68 16384 81000 200 65536 89000 730", p, " ")
    for (i = 1; i <= 9; i += 3) {
      read_tput["decode", d[i]] = d[i + 1]; read_lat["decode", d[i]] = d[i + 2]
      read_tput["prefill", p[i]] = p[i + 1]; read_lat["prefill", p[i]] = p[i + 2]
    }
    while ((getline line < decode) > 0) {
      n = figure(line, "requests_per_rank"); order[++count] = "decode" SUBSEP n
      tput["decode", n] = figure(line, "output_tokens_per_s_per_gpu"); lat["decode", n] = figure(line, "tokens_per_s_per_user")
    }
    while ((getline line < prefill) > 0) {
      n = figure(line, "tokens_per_rank"); order[++count] = "prefill" SUBSEP n
      tput["prefill", n] = figure(line, "input_tokens_per_s_per_gpu"); lat["prefill", n] = 1000 * figure(line, "mean_step_s")
    }
    FS = "|"
  }
  # ACCURACY.md rows: | chart | point | predicted | read off | error | predicted | read off | error |
  $2 ~ /^ (decode|prefill) $/ {
    chart = $2; gsub(/ /, "", chart); point = $3; sub(/^ */, "", point); sub(/ .*/, "", point); gsub(/,/, "", point)
    doc_tput[chart, point] = number($4); doc_lat[chart, point] = $7; sub(/^ */, "", doc_lat[chart, point])
    sub(/ .*/, "", doc_lat[chart, point])
  }
  END {
    printf "%-8s %8s %12s %12s %8s %12s %12s %8s  %s\n", "chart", "point", "predicted", "read-off", "error",
           "predicted", "read-off", "error", "ACCURACY.md"
    printf "%-8s %8s %25s %8s %25s\n", "", "", "tokens/s per GPU", "", "tok/s/user or ms/step"
    bad = 0
    for (i = 1; i <= count; i++) {
      split(order[i], k, SUBSEP); c = k[1]; n = k[2]
      t = tput[c, n]; l = lat[c, n]; rt = read_tput[c, n]; rl = read_lat[c, n]
      same = sprintf("%.0f", t) == sprintf("%.0f", doc_tput[c, n]) && sprintf("%.1f", l) == sprintf("%.1f", doc_lat[c, n])
      if (!same) bad = 1
      printf "%-8s %8d %12.0f %12.0f %+7.1f%% %12.1f %12.1f %+7.1f%%  %s\n", c, n, t, rt, 100 * (t - rt) / rt, l, rl,
             100 * (l - rl) / rl, same ? "same" : sprintf("DIFFERS (%s, %s)", doc_tput[c, n], doc_lat[c, n])
    }
    if (count != 6) { print "expected 6 points, found " count; bad = 1 }
    exit bad
  }' docs/ACCURACY.md
echo "wrote $out/ce-128k and $out/pe-128k (results.jsonl, pareto.svg)"
