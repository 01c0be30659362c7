#!/usr/bin/env bash
# The quick attacks of docs/reliability.md#attacks-and-what-they-cost-now, a few seconds each, for
# CI. Each script starts its own server (BINARY, default the debug build) on a free port read from
# its banner, stops it on exit, and fails if the server dies or a second client at another address
# is not served at the end.
#   scripts/attack-quick.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/debug/mock-backend}
[[ -x "$binary" ]] || { echo "no $binary: build it first"; exit 1; }
scripts/attack-silent-connections.py "$binary" --seconds 5
scripts/attack-slow-post.py "$binary" --seconds 5
scripts/attack-connection-flood.py "$binary" --seconds 5
scripts/attack-big-bodies.py "$binary" --connections 40 -- --memory-budget 33554432
scripts/attack-pipelining.py "$binary" --connections 100 --requests 1000
scripts/attack-pipelining.py "$binary" --connections 100 --requests 1000 -- --poller poll
scripts/attack-slow-readers.py "$binary" --connections 20 --items 4 -- --memory-budget 33554432
scripts/attack-costly-bodies.py "$binary" --seconds 5 --mib 4
