#!/usr/bin/env bash
# Scale benchmark: does a request about one row cost the same with 10 rows as with 100,000, in
# every API? Builds mock-backend in release mode, writes two seed folders (Benchmarks/tools/
# scale_seed.py: 10 vs 100,000 rows in every table of every API), and for each measures start-up,
# RSS and short wrk runs of a read and a write per API on both in turn (Benchmarks/tools/scale.py),
# and start-up with the shipped Seed/.
# Prints a Markdown table and writes Benchmarks/results/scale.json. About 6 minutes.
# Settings: SCALE_SECONDS (5 per run), SCALE_ROUNDS (2), SCALE_LARGE (100000), SCALE_PORT (18090: the
# small server, the large one on the next port), SCALE_STARTUP_ONLY=1 (time the start-ups and each
# API's memory again, keeping the request runs of the last scale.json).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }

echo "building mock-backend (release)" >&2
swift build -c release 2>&1 | grep -E "error|warning: |Build complete" | tail -n 3 >&2

work="$(mktemp -d /tmp/mock-scale-XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "writing seeds" >&2
python3 Benchmarks/tools/scale_seed.py Seed "$work/small" 10
python3 Benchmarks/tools/scale_seed.py Seed "$work/large" "${SCALE_LARGE:-100000}"
python3 Benchmarks/tools/scale.py --binary .build/release/mock-backend --shipped Seed --small "$work/small" \
    --large "$work/large" --seconds "${SCALE_SECONDS:-5}" --rounds "${SCALE_ROUNDS:-2}" --out Benchmarks/results/scale.json \
    ${SCALE_STARTUP_ONLY:+--startup-only}
