#!/usr/bin/env bash
# Instructions per request (perf's hardware counter: a count, steadier than seconds on a busy
# machine) and where they go (perf record), for one server and one answer.
#   Benchmarks/tools/profile.sh SERVER ANSWER [COUNT]
# SERVER: mock-backend | hummingbird | flyingfox; ANSWER: threads | products | tiny.
# Needs the release builds of Benchmarks/run.sh and Debian's linux-perf. Warms up with 500 requests,
# then counts COUNT (default 20000) sent over one keep-alive connection, then samples the same load.
# (valgrind 3.19's callgrind dies on a SIGSEGV of its own inside libdispatch with Swift 6.3 binaries.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
server=$1 answer=$2 count=${3:-20000}
port=18090
out="${TMPDIR:-/tmp}/perf-$server-$answer"
case $answer in
    threads) target=/api/threads ;;
    products) target="/products?loginToken=668961808.772846" ;;
    tiny) target=/_mock/health ;;
    *) echo "unknown answer $answer" >&2; exit 2 ;;
esac

wait_up() {  # port pid
    for _ in $(seq 300); do
        curl -fs -o /dev/null "http://127.0.0.1:$1/_mock/health" && return 0
        kill -0 "$2" 2>/dev/null || { echo "server on port $1 exited" >&2; return 1; }
        sleep 0.1
    done
    echo "server on port $1 did not start" >&2; return 1
}
login() {
    curl -fs -d 'email=a@a.com&password=test123' "http://127.0.0.1:$1/api/login" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
token=none
if [ "$server" = mock-backend ]; then
    .build/release/mock-backend --host 127.0.0.1 --port $port --quiet >/dev/null &
    pid=$!; pids+=($pid); wait_up $port $pid
    token=$(login $port)
else
    # mock-backend mints the token the anchors accept, as in bench.py.
    .build/release/mock-backend --host 127.0.0.1 --port 18091 --quiet >/dev/null &
    helper=$!; pids+=($helper); wait_up 18091 $helper
    token=$(login 18091)
    "Benchmarks/.build/release/$server-anchor" --port $port --seed Seed --token "$token" >/dev/null 2>&1 &
    pid=$!; pids+=($pid); wait_up $port $pid
fi
headers=()
[ "$answer" = threads ] && headers=("Authorization: BEARER $token")
client=(python3 Benchmarks/tools/keepalive_client.py $port "$target")
"${client[@]}" 500 "${headers[@]}"
perf stat -x, -e instructions,task-clock -p $pid -o "$out.stat" -- "${client[@]}" "$count" "${headers[@]}"
instructions=$(awk -F, '/instructions/ {print $1}' "$out.stat")
cpu_ms=$(awk -F, '/task-clock/ {print $1}' "$out.stat")
echo "$server $answer: $((instructions / count)) instructions and $(python3 -c "print(round($cpu_ms * 1000 / $count, 1))") µs CPU per request (one connection, $count requests)"
perf record -q -g -p $pid -o "$out.data" -- "${client[@]}" "$count" "${headers[@]}" 2>/dev/null
perf report -i "$out.data" --no-children --percent-limit 1.5 --stdio -g none 2>/dev/null |
    grep -v '^#' | grep -v '^$' | swift demangle --simplified | cut -c1-170 | head -n 25
