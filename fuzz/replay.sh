#!/bin/sh
# Replays the committed corpus (fuzz/corpus/<target>/, regression inputs included) through every
# harness once: no mutation, so it is quick and deterministic. Fails if any input crashes or
# breaks a harness invariant. For CI; the long fuzz runs are fuzz/run.sh.
# Usage: fuzz/replay.sh [target ...]   (default: every target)
set -eu
cd "$(dirname "$0")"
targets=${*:-"request chunked form multipart json cgi"}
./build.sh $targets
export SWIFT_BACKTRACE=enable=no
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in $targets; do
    if ! ".build/$target" -runs=0 -rss_limit_mb=2048 -timeout=10 "corpus/$target" >"$log" 2>&1; then
        cat "$log"
        echo "fuzz corpus replay: $target FAILED"
        exit 1
    fi
    echo "$target: $(ls "corpus/$target" | wc -l) inputs, $(grep -o 'Done [0-9]* runs' "$log")"
done
echo "fuzz corpus replay: all inputs pass"
