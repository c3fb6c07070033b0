#!/bin/sh
# A stand-in for the fleetcast CLI in gui_runner: FAKE_MODE picks what it does.
#   ok      progress lines on stderr (1/4 .. 4/4), copies $FAKE_REPORT to the -o path (or, for a sweep, $FAKE_SWEEP
#           to OUT/TAG/results.jsonl), exit 0
#   fail    one progress line, then the CLI's kind of error message, exit 2
#   slow    one progress line, then waits (until SIGTERM, or for ever when FAKE_IGNORE_TERM=1)
#   crash   one progress line, then kills itself with SIGSEGV
out="" tag="" dir=""
[ "$1" = "sweep" ] && tag="$4"
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    --out) dir="$2"; shift ;;
  esac
  shift
done
case "$FAKE_MODE" in
  ok)
    for d in 1 2 3 4; do echo "{\"phase\": \"simulate\", \"done\": $d, \"total\": 4, \"sim_time_s\": $d.5}" >&2; done
    echo "summary on stdout"
    if [ -n "$tag" ]; then mkdir -p "$dir/$tag" && cp "$FAKE_SWEEP" "$dir/$tag/results.jsonl"; else cp "$FAKE_REPORT" "$out"; fi
    exit 0 ;;
  fail)
    echo '{"phase": "simulate", "done": 0, "total": 10}' >&2
    echo "fleetcast: error: tiny.json: field 'deployment.replica.tp' = 3: must divide the deployment's 8 GPUs" >&2
    exit 2 ;;
  slow)
    [ "$FAKE_IGNORE_TERM" = 1 ] && trap '' TERM
    echo '{"phase": "simulate", "done": 1, "total": 100}' >&2
    while :; do sleep 0.05; done ;;
  crash)
    echo '{"phase": "simulate", "done": 1, "total": 100}' >&2
    kill -SEGV $$ ;;
esac
exit 64
