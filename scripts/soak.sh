#!/bin/sh
# Soak test (issue 10): wrk drives a release build of mock-backend with a mix of reads and paced
# writes on all five APIs (scripts/soak.lua), then checks that
#   1. no request failed: no socket error, no non-2xx answer, no answer that failed its body check;
#   2. every acknowledged write is in the exported state, and nothing else was added
#      (acknowledged <= added <= sent; the difference is the last request of each connection,
#      cut off when wrk stopped);
#   3. ids are unique in every API's exported state;
#   4. RSS did not grow after warm-up beyond what the added records need (rule below).
# Prints PASS or FAIL and exits non-zero on failure.
#
# Usage: scripts/soak.sh [MINUTES]      (default: $SOAK_MINUTES, else 10; decimals allowed)
# Environment: SOAK_CONNECTIONS (wrk threads = connections, default 8), SOAK_WRITE_RATE (writes
# per second over all APIs, default 100), SOAK_PORT (default: a free port), SOAK_KEEP=1 keeps the
# work directory.
#
# Bounded: loopback only (the server listens on 127.0.0.1), a fixed number of connections, writes
# paced so the store grows by at most SOAK_WRITE_RATE records a second, and the server is stopped
# on exit.
#
# RSS rule: RSS is sampled when warm-up ends (after 1 minute, or a third of runs shorter than
# 3 minutes) and right after wrk stops, before any state export. The growth between the two may
# not exceed 16 MiB of slack plus 2 KiB per record added after warm-up. Records legitimately grow
# the store (measured: about 500 bytes each with their strings and indexes; the budget leaves room
# for arrays that double their capacity). A leak on the request path would scale with requests
# instead, which outnumber records about 200-500 to 1 at the default write rate, so leaking as
# little as ~10 bytes per request breaks the rule.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib/mock-server.sh

minutes=${1:-${SOAK_MINUTES:-10}}
connections=${SOAK_CONNECTIONS:-8}
write_rate=${SOAK_WRITE_RATE:-100}
seconds=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60); if (s < 30) s = 30; print s }')
warmup=$(( seconds >= 180 ? 60 : seconds / 3 ))

if ! command -v wrk >/dev/null 2>&1; then
    echo "== installing wrk"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get install -y wrk >/dev/null
fi

echo "== release build"
swift build -c release --product mock-backend 2>&1 | grep -E "error|warning:" || true

work=$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")
port=${SOAK_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
base="http://127.0.0.1:$port"
.build/release/mock-backend --host 127.0.0.1 --port "$port" --quiet --otp-code 123456 >"$work/server.log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    [ -n "${sampler:-}" ] && kill "$sampler" 2>/dev/null || true
    [ "${SOAK_KEEP:-0}" = 1 ] && echo "work directory: $work" || rm -rf "$work"
}
trap cleanup EXIT INT TERM

wait_until_up "$base/_mock/state/threads" || { echo "mock-backend did not start"; cat "$work/server.log"; exit 1; }

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$server/status"; }
export_states() {
    for api in threads otp wsuv internproducts cse118; do
        curl -sf "$base/_mock/state/$api" >"$work/$1-$api.json"
    done
}

echo "== setting up accounts and targets on $base"
threads_token=$(json_field '["token"]' -X POST "$base/api/login" -d 'email=a@a.com&password=test123')
threads_thread=$(json_field '["thread"]["thread_id"]' -X POST "$base/api/thread/add" \
    -H "Authorization: BEARER $threads_token" -d 'title=Soak')
cse118_token=$(json_field '["accessToken"]' -X POST "$base/api/v2/login" -d '{"email":"sslug@ucsc.edu","password":"1234567"}')
cse118_workspace=$(json_field '["id"]' -X POST "$base/api/v2/workspace" -H "Authorization: Bearer $cse118_token" -d '{"name":"Soak"}')
cse118_channel=$(json_field '["id"]' -X POST "$base/api/v2/workspace/$cse118_workspace/channel" \
    -H "Authorization: Bearer $cse118_token" -d '{"name":"Soak"}')
cse118_student_workspace=$(json_field '[0]["id"]' "$base/api/v2/workspace" -H "Authorization: Bearer $cse118_token")
cse118_student_channel=$(json_field '[0]["id"]' "$base/api/v2/workspace/$cse118_student_workspace/channel" \
    -H "Authorization: Bearer $cse118_token")
wsuv_session=$(json_field '["session_token"]' -X POST "$base/cgi-bin/login.cgi" -d 'username=alice&password=wonderland')
ip_token=$(json_field '["loginToken"]' "$base/login?username=admin&password=1234")
export_states before

echo "== wrk: $connections connections, ${seconds}s, $write_rate writes/s, warm-up ${warmup}s (server pid $server)"
( while sleep 5; do echo "$(date +%s) $(rss_kib)"; done ) >"$work/rss.txt" 2>/dev/null &
sampler=$!
wrk -t "$connections" -c "$connections" -d "${seconds}s" --timeout 10s -s scripts/soak.lua "$base" -- \
    "dir=$work" "threads=$connections" "write_rate=$write_rate" \
    "threads_token=$threads_token" "threads_thread=$threads_thread" \
    "cse118_token=$cse118_token" "cse118_channel=$cse118_channel" "cse118_workspace=$cse118_workspace" \
    "cse118_student_workspace=$cse118_student_workspace" "cse118_student_channel=$cse118_student_channel" \
    "wsuv_session=$wsuv_session" "otp_token=seed_token_alex_rivera_000000001" "ip_token=$ip_token" \
    >"$work/wrk.txt" 2>&1 &
wrk_pid=$!
sleep "$warmup"
rss_warm=$(rss_kib)
export_states warm
wait "$wrk_pid" || { cat "$work/wrk.txt"; echo "FAIL: wrk exited with an error"; exit 1; }
rss_end=$(rss_kib)
kill "$sampler" 2>/dev/null || true
sampler=""
export_states after

grep -vE "^SOAK" "$work/wrk.txt"
python3 scripts/soak-check.py "$work" "$rss_warm" "$rss_end"
