#!/usr/bin/env bash
# Fails when an expression in Sources/ or Tests/ takes the type checker longer than the limit, so an
# expression that Swift 6.0, or a slower laptop, would give up on ("unable to type-check this
# expression in reasonable time") is caught on the compiler CI uses. Reports the slowest one.
#   scripts/check-long-expressions.sh         limit 300 ms
#   scripts/check-long-expressions.sh 150     another limit, in ms
# Builds everything afresh in its own scratch folder (.build-longexpr), so the normal .build is left
# alone and every file is type-checked (an incremental build would skip unchanged ones).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-300}
scratch=.build-longexpr
log=$scratch/long-expressions.log

echo "check-long-expressions: fresh build in $scratch, every expression's type-check time (limit $limit ms)"
rm -rf "$scratch"
mkdir -p "$scratch"
# A 1 ms threshold makes the compiler report nearly every expression with its time; the limit is
# applied here, so the report can name the slowest one even when all pass.
if ! swift build --build-tests --scratch-path "$scratch" \
    -Xswiftc -Xfrontend -Xswiftc -warn-long-expression-type-checking=1 >"$log" 2>&1; then
    grep -E "error:" "$log" | head -n 20
    echo "check-long-expressions: FAILED: the build failed (whole log: $log)"
    exit 1
fi

# "/path/File.swift:12:5: warning: expression took 312ms to type-check (limit: 1ms)"
timings=$(grep -E "warning: expression took [0-9]+ms to type-check" "$log" \
    | sed -E 's/^(.*):[0-9]+: warning: expression took ([0-9]+)ms.*/\2 \1/' \
    | sed "s|$PWD/||" | grep -E "^[0-9]+ (Sources|Tests)/" | sort -u | sort -rn || true)
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
