#!/usr/bin/env bash
# docs/performance.md and its chart are written by Benchmarks/tools/report.py from the saved results:
# a hand edit of the page, or a change to the generator that was not run, shows up here as a diff
# instead of being lost (or coming back) at the next benchmark run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 Benchmarks/tools/report.py Benchmarks/results/latest.json "$out" > /dev/null
for file in performance.md performance.svg; do
    if ! diff -u "docs/$file" "$out/$file"; then
        echo "docs/$file is not what Benchmarks/tools/report.py writes from Benchmarks/results/: edit the generator, then rerun it" >&2
        exit 1
    fi
done
echo "docs/performance.md and docs/performance.svg match Benchmarks/tools/report.py"
