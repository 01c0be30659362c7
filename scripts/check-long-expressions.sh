#!/usr/bin/env bash
# Fails when an expression in Sources/ or Tests/ takes the type checker longer than the limit, so an
# expression that Swift 6.0, or a slower laptop, would give up on ("unable to type-check this
# expression in reasonable time") is caught. Reports the slowest one.
#   scripts/check-long-expressions.sh                 fresh build here (.build-longexpr), limit 300 ms
#   scripts/check-long-expressions.sh 150             another limit, in ms
#   scripts/check-long-expressions.sh --log FILE [N]  reads a build log made with the flags below
#                                                     (scripts/check-old-toolchains.sh, Swift 6.0)
# The build is made afresh in its own scratch folder, so the normal .build is left alone and every
# file is type-checked (an incremental build would skip unchanged ones). Swift 6.3 type-checks far
# faster than 6.0 (the expressions 6.0 took 5 s on, 6.3 took under 25 ms), so the 6.0 build's log
# is the one that matters; this build adds the compiler CI uses.
set -euo pipefail
cd "$(dirname "$0")/.."
log=
if [ "${1:-}" = --log ]; then
    log=$2
    shift 2
fi
limit=${1:-300}

if [ -z "$log" ]; then
    scratch=.build-longexpr
    log=$scratch/long-expressions.log
    echo "check-long-expressions: fresh build in $scratch, every expression's type-check time (limit $limit ms)"
    rm -rf "$scratch"
    mkdir -p "$scratch"
    # A 1 ms threshold makes the compiler report nearly every expression with its time; the limit
    # is applied here, so the report can name the slowest one even when all pass.
    if ! swift build --build-tests --scratch-path "$scratch" \
        -Xswiftc -Xfrontend -Xswiftc -warn-long-expression-type-checking=1 >"$log" 2>&1; then
        grep -E "error:" "$log" | awk '!seen[$0]++' | head -n 20 || true
        echo "check-long-expressions: FAILED: the build failed (whole log: $log)"
        exit 1
    fi
fi

# "/path/Sources/File.swift:12:5: warning: expression took 312ms to type-check (limit: 1ms)"
timings=$(grep -E "warning: expression took [0-9]+ms to type-check" "$log" \
    | sed -E 's/^(.*):[0-9]+: warning: expression took ([0-9]+)ms.*/\2 \1/' \
    | sed -E 's#^([0-9]+) .*/((Sources|Tests)/)#\1 \2#' | grep -E "^[0-9]+ (Sources|Tests)/" | sort -rn | awk '!seen[$2]++' || true)
count=$(printf '%s' "$timings" | grep -c . || true)
slowest=$(printf '%s\n' "$timings" | awk 'NR == 1 && NF == 2 { print $1 " ms, " $2 }')
over=$(printf '%s\n' "$timings" | awk -v limit="$limit" 'NF == 2 && $1 > limit { print "  " $1 " ms  " $2 }')
echo "check-long-expressions: $count expressions took 1 ms or more; the slowest: ${slowest:-none}"
if [ -n "$over" ]; then
    echo "check-long-expressions: FAILED: over $limit ms; break these into separate statements:"
    printf '%s\n' "$over"
    exit 1
fi
echo "check-long-expressions: passed, none over $limit ms"
