#!/bin/sh
# Fuzzes one harness for a while, growing fuzz/.work/corpus-<target> from the committed seeds.
# Usage: fuzz/run.sh <target> [seconds=600] [extra libFuzzer flags]
set -eu
cd "$(dirname "$0")"
target=$1
seconds=${2:-600}
shift; [ $# -gt 0 ] && shift
mkdir -p ".work/corpus-$target"
# Swift's own crash reporter would wait for a debugger; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no
exec ".build/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 \
    -artifact_prefix=".work/$target-" -print_final_stats=1 "$@" ".work/corpus-$target" "corpus/$target"
