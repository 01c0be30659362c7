#!/usr/bin/env bash
# The issue-9 benchmark in one command: mock-backend against Hummingbird 2, FlyingFox and nginx.
# Installs wrk and nginx (Debian packages) if missing, builds everything in release mode, runs the
# load (Benchmarks/tools/bench.py), then writes Benchmarks/results/latest.json, docs/performance.svg
# and docs/performance.md (Benchmarks/tools/report.py). Takes about 13 minutes on 2 cores, the last
# two for the poll(2) backend against epoll (Benchmarks/tools/poll.py, also alone as poll.sh) and
# the threads list with and without --clock/--random-seed (Benchmarks/tools/fixture.py).
# Settings: ROUND_SECONDS (5), ROUNDS (3), WARMUP_SECONDS (2), IDLE_CONNECTIONS (10000),
# POLL_SECONDS (5), POLL_ROUNDS (2), FIXTURE_SECONDS (3), FIXTURE_ROUNDS (6).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    # Debian starts an installed nginx on port 80; the benchmark runs its own, so stop that one.
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    if [[ " ${missing[*]} " == *" nginx "* ]] && [ -f /run/nginx.pid ]; then
        $sudo kill -QUIT "$(cat /run/nginx.pid)" || true
    fi
fi
export PATH="$PATH:/usr/sbin"

echo "building mock-backend (release)" >&2
swift build -c release 2>&1 | grep -E "error|warning: |Compiling|Build complete" | tail -n 3 >&2
echo "building the anchors (release)" >&2
swift build -c release --package-path Benchmarks 2>&1 | grep -E "error|Build complete" | tail -n 3 >&2

mkdir -p Benchmarks/results
python3 Benchmarks/tools/bench.py --root "$root" --out Benchmarks/results/latest.json \
    --seconds "${ROUND_SECONDS:-5}" --rounds "${ROUNDS:-3}" --warmup "${WARMUP_SECONDS:-2}" \
    --idle "${IDLE_CONNECTIONS:-10000}"
python3 Benchmarks/tools/poll.py --binary .build/release/mock-backend --seconds "${POLL_SECONDS:-5}" \
    --rounds "${POLL_ROUNDS:-2}" --out Benchmarks/results/poll.json
python3 Benchmarks/tools/fixture.py --binary .build/release/mock-backend --seconds "${FIXTURE_SECONDS:-3}" \
    --rounds "${FIXTURE_ROUNDS:-6}" --out Benchmarks/results/fixture.json
python3 Benchmarks/tools/report.py Benchmarks/results/latest.json
