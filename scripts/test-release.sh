#!/usr/bin/env bash
# Builds dist/mock-backend/ (scripts/release.sh) and tests it the way the Docker image runs it: copied
# alone into an empty folder, started from somewhere else with no Swift toolchain on the PATH and no
# LD_LIBRARY_PATH. Checks: no Swift library is loaded, the seed is found beside the program (also when
# started through the PATH or from PREFIX/bin), --healthcheck, one real request per API, the control
# surface, and a clean exit on SIGTERM (docker stop). Linux only (ldd). Needs curl.
#   scripts/test-release.sh             build, then test
#   scripts/test-release.sh --no-build  test the dist/ already there
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

if [[ "${1:-}" != --no-build ]]; then
    scripts/release.sh
fi
[[ -x dist/mock-backend/mock-backend ]] || { echo "no dist/mock-backend/mock-backend: run scripts/release.sh"; exit 1; }

failures=0
pass() { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
# check NAME ACTUAL PATTERN: ACTUAL must match the extended regular expression PATTERN.
check() {
    if [[ "$2" =~ $3 ]]; then pass "$1"; else fail "$1: got '${2:0:300}', expected /$3/"; fi
}

work=$(mktemp -d)
servers=()
cleanup() {
    local pid
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The package alone in an empty folder; the server runs from another empty folder, so the
# working-directory lookup cannot find the repository's Seed/.
pkg=$work/pkg
cp -R dist/mock-backend "$pkg"
elsewhere=$work/elsewhere
mkdir "$elsewhere"
for dir in "$work" "$(dirname "$work")" /; do
    [[ ! -e "$dir/Seed" ]] || { echo "$dir/Seed exists: the seed lookup test would be meaningless"; exit 1; }
done
binary=$pkg/mock-backend
clean_path=/usr/bin:/bin
# No environment but a PATH without the Swift toolchain (and no LD_LIBRARY_PATH), from $elsewhere;
# the health file of this run's own, not the one of whoever else runs a server as this user.
clean_env=(env -i PATH="$clean_path" HOME="$work" LD_LIBRARY_PATH= MOCK_HEALTH_FILE="$work/health")
run_clean() { (cd "$elsewhere" && exec "${clean_env[@]}" "$@"); }

size=$(wc -c < "$binary" | tr -d ' ')
echo "binary: $size bytes ($(du -sh "$binary" | cut -f1)), seed $(du -sh "$pkg/Seed" | cut -f1)"

echo "== self-contained"
if env -i PATH="$clean_path" sh -c 'command -v swift' >/dev/null; then
    fail "a Swift toolchain is on $clean_path; the test cannot show the program runs without one"
else
    pass "no swift on PATH=$clean_path"
fi
libraries=$(ldd "$binary")
echo "$libraries" | sed 's/^/        /'
swift_libraries=$(echo "$libraries" | grep -Ei 'swift|foundation|dispatch|blocksruntime|icu|xctest' || true)
[[ -z "$swift_libraries" ]] && pass "ldd lists no Swift library" || fail "Swift libraries linked: $swift_libraries"
missing=$(echo "$libraries" | grep 'not found' || true)
[[ -z "$missing" ]] && pass "every library resolves" || fail "missing: $missing"
check "--version" "$(run_clean "$binary" --version)" '^mock-backend [0-9]'

# start_server LOG ARGS…: starts the program (run_clean) in the background, waits for its banner,
# and sets $server_pid and $port (from "listening on port N"). On a busy machine the program may
# take long to start, so the log exists before it does, and the wait is for the line (up to 2 min)
# as long as the program lives.
start_server() {
    local log=$1; shift
    : > "$log"
    # Not through run_clean: $! must be the program itself, not a shell around it.
    (cd "$elsewhere" && exec "${clean_env[@]}" "$@") >> "$log" 2>&1 &
    server_pid=$!
    servers+=("$server_pid")
    for _ in $(seq 1200); do
        port=$(sed -n 's/^listening on port \([0-9]*\).*/\1/p' "$log")
        [[ -n "$port" ]] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "server did not start: $*"; cat "$log"; exit 1
}
# stop_server: SIGTERM, as docker stop sends; the program must exit 0.
stop_server() {
    local status=0
    kill -TERM "$server_pid"
    wait "$server_pid" || status=$?
    [[ $status -eq 0 ]] && pass "SIGTERM: exit 0" || fail "SIGTERM: exit status $status"
}

echo "== seed lookup"
# Beside the program, found through the PATH (argv[0] is then just the name).
start_server "$work/path.log" env PATH="$pkg:$clean_path" mock-backend --port 0 --quiet
check "started through the PATH: Seed/ beside the program" "$(grep '^  seed:' "$work/path.log")" "seed: +$pkg/Seed\$"
stop_server
# The /usr/local layout: PREFIX/bin/mock-backend and PREFIX/share/mock-backend/Seed.
prefix=$work/prefix
mkdir -p "$prefix/bin" "$prefix/share/mock-backend"
cp "$binary" "$prefix/bin/"
cp -R "$pkg/Seed" "$prefix/share/mock-backend/Seed"
start_server "$work/prefix.log" "$prefix/bin/mock-backend" --port 0 --quiet
check "PREFIX/bin finds PREFIX/share/mock-backend/Seed" "$(grep '^  seed:' "$work/prefix.log")" "seed: +$prefix/bin/../share/mock-backend/Seed\$|seed: +$prefix/share/mock-backend/Seed\$"
stop_server

echo "== serving (all APIs, WSUV zone named explicitly: an unknown zone would stop the start)"
start_server "$work/server.log" "$binary" --port 0 --wsuv-tz America/Los_Angeles
base=http://127.0.0.1:$port
check "banner: seed beside the program" "$(grep '^  seed:' "$work/server.log")" "seed: +$pkg/Seed\$"

# request METHOD PATH [curl args…]: prints "STATUS BODY".
request() {
    local method=$1 path=$2; shift 2
    curl -sS --max-time 10 -o "$work/body" -w '%{http_code}' -X "$method" "$base$path" "$@" > "$work/status" || true
    echo "$(cat "$work/status") $(cat "$work/body")"
}
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" <<< "$2"; }

echo "-- healthcheck"
check "--healthcheck URL" "$(run_clean "$binary" --healthcheck "$base"; echo "exit $?")" '^healthy: .*"status":"ok".*exit 0$'
check "--healthcheck without flags (as the image's HEALTHCHECK; PORT is not the server's)" "$(run_clean env PORT=1 "$binary" --healthcheck; echo "exit $?")" 'exit 0$'
check "--healthcheck on a dead port fails" "$(run_clean "$binary" --healthcheck http://127.0.0.1:1 || echo "exit $?")" 'exit 1$'

apis='"threads","internproducts","wsuv"'
[[ -f "$pkg/Seed/cse118.json" ]] && apis+=',"cse118"'
apis+=',"otp"'
check "GET /_mock/health lists every API" "$(request GET /_mock/health)" "^200 \\{\"status\":\"ok\",.*\"apis\":\\[$apis\\]\\}\$"

echo "-- threads"
answer=$(request POST /api/login -d 'email=a@a.com&password=test123')
check "POST /api/login" "$answer" '^200 \{"status":"ok","token":"'
token=$(field token "$answer")
check "GET /api/threads" "$(request GET /api/threads -H "Authorization: BEARER $token")" '^200 \{"status":"ok","threads":\[\{'

echo "-- internproducts"
check "GET /login" "$(request GET '/login?username=admin&password=1234')" '^200 \{"status":"SUCCESS","loginToken":"668961808.772846"\}$'
check "GET /products (seed images inlined)" "$(request GET '/products?loginToken=668961808.772846')" '^200 \{"status":"SUCCESS",.*"image":"iVBORw0KGgo'

echo "-- wsuv"
check "GET get-tweets.cgi" "$(request GET '/~cs458/cgi-bin/get-tweets.cgi')" '^200 \{"tweets":\[\{"tweet_id":1,'
answer=$(request POST /~cs458/cgi-bin/login.cgi -d 'username=alice&password=wonderland')
check "POST login.cgi" "$answer" '^200 \{"session_token":"[0-9a-f]{40}"\}$'
session=$(field session_token "$answer")
before=$(TZ=America/Los_Angeles date '+%Y-%m-%d %H:%M')
check "POST add-tweet.cgi" "$(request POST /~cs458/cgi-bin/add-tweet.cgi -d "username=alice&session_token=$session&tweet=release+test")" '^200 \{"tweet":"release test"\}$'
after=$(TZ=America/Los_Angeles date '+%Y-%m-%d %H:%M')
stamp=$(request GET "/~cs458/cgi-bin/get-tweets.cgi?date=2020" | grep -o '"time_stamp":"[^"]*","tweet":"release test"' | cut -d'"' -f4)
# The zone rules come from the ICU data linked into the program, not from the system's tzdata.
check "new tweet stamped in Pacific time (compared with this machine's tzdata)" "$stamp" "^($before|$after):[0-9]{2}\$"

echo "-- cse118"
if [[ -f "$pkg/Seed/cse118.json" ]]; then
    answer=$(request POST /api/v2/login -H 'Content-Type: application/json' -d '{"email":"sslug@ucsc.edu","password":"1234567"}')
    check "POST /api/v2/login" "$answer" '^200 \{"id":"[0-9a-f-]{36}","name":"Sammy Slug","role":"member","accessToken":"'
    access=$(field accessToken "$answer")
    check "GET /api/v2/workspace" "$(request GET /api/v2/workspace -H "Authorization: Bearer $access")" '^200 \[\{.*"name":"Student Workspace"'
else
    echo "  skip  cse118: this build has no Seed/cse118.json (the API is not merged yet)"
fi

echo "-- otp"
check "POST /api/send_verification_code" "$(request POST /api/send_verification_code -d '{"phone_number":"5305550100"}')" '^200 \{.*"status":"ok"'
code=$(request GET '/_mock/otp/outbox?phone=5305550100' | sed -n 's/^200 \[{"phone":"+15305550100","code":"\([0-9]\{6\}\)".*/\1/p')
check "GET /_mock/otp/outbox has the code" "$code" '^[0-9]{6}$'
answer=$(request POST /api/verify_code -d "{\"e164_phone_number\":\"+15305550100\",\"code\":\"$code\"}")
check "POST /api/verify_code" "$answer" '^200 \{"auth_token":"[^"]+",.*"status":"ok"'
check "POST /api/user" "$(request POST /api/user -H "x-authtoken: $(field auth_token "$answer")")" '^200 \{.*"status":"ok","user":\{'

echo "-- control surface"
check "POST /_mock/reset" "$(request POST /_mock/reset)" "^200 \\{\"reset\":\\[$apis\\]\\}\$"
check "GET /api/threads after reset: old token invalid" "$(request GET /api/threads -H "Authorization: BEARER $token")" '^401 '
check "unknown path: common 404" "$(request GET /nope)" '^404 \{"error":"not_found","path":"/nope"\}$'
stop_server

echo "== flags after the image name (docker run image --port … --admin-token T), the image's PORT=8080 unused"
start_server "$work/flags.log" env PORT=1 "$binary" --port 0 --admin-token T --quiet
check "health file private to the server's user" "$(stat -c %a "$work/health")" '^600$'
check "--healthcheck without flags: the server's port and token" "$(run_clean env PORT=1 "$binary" --healthcheck; echo "exit $?")" '^healthy: .*exit 0$'
stop_server
check "--healthcheck without flags, server stopped" "$(run_clean env PORT=1 "$binary" --healthcheck || echo "exit $?")" 'exit 1$'

echo
if [[ $failures -eq 0 ]]; then
    echo "release test passed: dist/mock-backend/mock-backend, $size bytes"
else
    echo "release test: $failures failure(s)"
    exit 1
fi
