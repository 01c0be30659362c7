#!/usr/bin/env bash
# The poll(2) backend, the one a Mac runs, against Linux's epoll: same release build, both servers
# at once, GET /_mock/health over 10, 100 and 1,000 keep-alive connections and over 10 beside 1,000
# idle ones (Benchmarks/tools/poll.py). Prints a Markdown table and writes
# Benchmarks/results/poll.json; rerun Benchmarks/tools/report.py to put it in docs/performance.md.
# About 2 minutes. Settings: POLL_SECONDS (5 per run), POLL_ROUNDS (2).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }

echo "building mock-backend (release)" >&2
swift build -c release 2>&1 | grep -E "error|warning: |Build complete" | tail -n 3 >&2
mkdir -p Benchmarks/results
python3 Benchmarks/tools/poll.py --binary .build/release/mock-backend --seconds "${POLL_SECONDS:-5}" \
    --rounds "${POLL_ROUNDS:-2}" --out Benchmarks/results/poll.json
