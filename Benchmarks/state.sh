#!/usr/bin/env bash
# What --state costs (docs/performance.md, "State file"): the threads list with and without it, POST
# /api/message/add with it on the shipped state and on a 100,000-message one (state files on the disk,
# then on STATE_TMPFS), and start-up with that state, as a clean stop and as a crash leave it. Builds
# mock-backend in release mode, runs Benchmarks/tools/state_bench.py, writes
# Benchmarks/results/state.json. About 3 minutes. Settings: STATE_SECONDS (5), STATE_ROUNDS (2),
# STATE_ROWS (100000), STATE_TMPFS (/dev/shm; empty skips the tmpfs round).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
echo "building mock-backend (release)" >&2
swift build -c release 2>&1 | grep -E "error|warning: |Build complete" | tail -n 3 >&2
python3 Benchmarks/tools/state_bench.py --binary .build/release/mock-backend \
    --seconds "${STATE_SECONDS:-5}" --rounds "${STATE_ROUNDS:-2}" --rows "${STATE_ROWS:-100000}" --tmpfs "${STATE_TMPFS-/dev/shm}" \
    --out Benchmarks/results/state.json
