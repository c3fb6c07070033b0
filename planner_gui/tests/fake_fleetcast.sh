#!/bin/sh
# A stand-in for the fleetcast CLI in gui_runner: FAKE_MODE picks what it does.
#   ok      progress lines on stderr (1/4 .. 4/4), copies $FAKE_REPORT to the -o path (or, for a sweep, $FAKE_SWEEP
#           to OUT/TAG/results.jsonl; for a plan, $FAKE_PLAN to the -o path), exit 0
#   fail    one progress line, then the CLI's kind of error message, exit 2
#   slow    one progress line, then waits (until SIGTERM, or for ever when FAKE_IGNORE_TERM=1)
#   crash   one progress line, then kills itself with SIGSEGV
# FAKE_ARGS, when set, is a file that gets the arguments, one a line (tests check what the app asked for).
[ -n "$FAKE_ARGS" ] && printf '%s\n' "$@" > "$FAKE_ARGS"
out="" tag="" dir="" command="$1"
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
    if [ "$command" = plan ]; then cp "$FAKE_PLAN" "$out"; exit 0; fi
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
