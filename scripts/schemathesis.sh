#!/bin/sh
# API fuzzing from the OpenAPI documents (issue 10): schemathesis generates requests from each
# API's document (GET /_mock/openapi/<api>.json), valid ones and ones that break the schema, and
# checks every answer: no 5xx (except WSUV's documented 500s), the status code and the Content-Type
# are documented for the operation, and the body matches the documented schema.
#
# Usage: scripts/schemathesis.sh [API…]        (default: all five)
# Environment: SCHEMATHESIS_EXAMPLES (--max-examples: test cases per operation in the fuzzing
# phase, default 100; the coverage phase adds its own), SCHEMATHESIS_SEED (default 1, so a run is
# reproducible; "random" for a new one each time), SCHEMATHESIS_BUILD (release or debug, default
# release), SCHEMATHESIS_KEEP=1 keeps the work directory (server log, configs, JUnit and HAR reports).
#
# The server listens on 127.0.0.1 only, on a free port, and is stopped on exit. Each API starts
# from its seed (POST /_mock/reset) and is tested with a valid token of a seeded account; half of
# the generated ids, names and passwords are replaced by real ones (schemathesis dictionaries), so
# requests get past 401 and 404 to the successes. After each run, the status codes each operation
# got are printed (scripts/schemathesis-summary.py). Exits non-zero on any failure.
#
# One worker: schemathesis with several workers hits a CPython 3.11 bug (a SystemError from
# ast.parse called in threads, inside Hypothesis), and one is faster here anyway.
set -eu
cd "$(dirname "$0")/.."
. scripts/lib/mock-server.sh

version=4.32.5
examples=${SCHEMATHESIS_EXAMPLES:-100}
seed=${SCHEMATHESIS_SEED:-1}
build=${SCHEMATHESIS_BUILD:-release}
apis=${*:-threads internproducts wsuv cse118 otp}

# Installed in the project's .venv (as scripts/install-test-tools.sh does): Debian's and Homebrew's
# Python refuse a plain `pip install` (PEP 668).
python="$PWD/.venv/bin/python3"
[ -x "$python" ] || python3 -m venv .venv
if ! "$python" -m schemathesis.cli --version 2>/dev/null | grep -qx "python -m schemathesis.cli, version $version"; then
    echo "== installing schemathesis $version into .venv"
    "$python" -m pip install --quiet --disable-pip-version-check "schemathesis==$version"
fi

echo "== $build build"
if ! swift build -c "$build" --product mock-backend >"${TMPDIR:-/tmp}/schemathesis-build.log" 2>&1; then
    grep -E "error" "${TMPDIR:-/tmp}/schemathesis-build.log"
    echo "FAIL: build"
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/schemathesis.XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
".build/$build/mock-backend" --host 127.0.0.1 --port "$port" --quiet --otp-code 123456 >"$work/server.log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    [ "${SCHEMATHESIS_KEEP:-0}" = 1 ] && echo "work directory: $work" || rm -rf "$work"
}
trap cleanup EXIT INT TERM

wait_until_up "$base/_mock/health" || { echo "mock-backend did not start"; cat "$work/server.log"; exit 1; }


# bind DICTIONARY PARAMETER… -- VALUE…: half of the generated values of each PARAMETER
# ("query.name", "body.name", "path.name") are drawn from VALUE… instead, so requests reach
# the answers behind a valid id or password too. Collected in $work/<api>.toml for fuzz.
bind() {
    dictionary=$1
    shift
    while [ "$1" != "--" ]; do
        echo "\"$1\" = { dictionary = \"$dictionary\", probability = 0.5 }" >>"$work/parameters"
        shift
    done
    shift
    values=""
    for value in "$@"; do values="$values${values:+, }\"$value\""; done
    printf '[dictionaries.%s]\nvalues = [%s]\n' "$dictionary" "$values" >>"$work/dictionaries"
}

# bind_operations DICTIONARY PARAMETER OPERATION-ID… -- VALUE…: the same for some operations alone,
# whose bindings then replace the general ones (the deletes get victims of their own, so the other
# operations keep their ids).
bind_operations() {
    dictionary=$1
    parameter=$2
    shift 2
    while [ "$1" != "--" ]; do
        printf '[[operations]]\ninclude-operation-id = "%s"\nparameters = { "%s" = { dictionary = "%s", probability = 0.5 } }\n' \
            "$1" "$parameter" "$dictionary" >>"$work/operations"
        shift
    done
    shift
    values=""
    for value in "$@"; do values="$values${values:+, }\"$value\""; done
    printf '[dictionaries.%s]\nvalues = [%s]\n' "$dictionary" "$values" >>"$work/dictionaries"
}

# operation_header OPERATION-ID NAME VALUE: one operation sends another header value (the cse118
# reset as another user, so it does not delete what the other operations work on).
operation_header() {
    printf '[[operations]]\ninclude-operation-id = "%s"\nheaders = { "%s" = "%s" }\n' "$1" "$2" "$3" >>"$work/operations"
}

# fuzz API URL [HEADER-NAME HEADER-VALUE]: one schemathesis run against the API's document, with
# the header (a token) on every request and the bindings made since the last run.
fuzz() {
    api=$1
    url=$2
    {
        [ $# -lt 4 ] || printf 'headers = { "%s" = "%s" }\n' "$3" "$4"
        echo "[parameters]"
        cat "$work/parameters" "$work/dictionaries" "$work/operations"
    } >"$work/$api.toml"
    : >"$work/parameters"
    : >"$work/dictionaries"
    : >"$work/operations"
    seed_option=""
    [ "$seed" = random ] || seed_option="--seed=$seed"
    echo "== $api ($url)"
    curl -sf "$base/_mock/openapi/$api.json" >"$work/$api.json"
    run_status=0
    # From the work directory, where schemathesis keeps its cache.
    (cd "$work" && "$python" -m schemathesis.cli --config-file "$api.toml" run "$api.json" \
        --url "$url" \
        --checks "$checks" \
        --phases examples,coverage,fuzzing --mode all --max-examples "$examples" $seed_option \
        --workers 1 --request-timeout 10 --no-color --output-truncate true --generation-database none \
        --report junit,har --report-dir "report-$api") || run_status=$?
    set -- "$work/report-$api"/har-*.json
    if [ -e "$1" ]; then
        echo "== $api ($url): status codes per operation"
        "$python" scripts/schemathesis-summary.py "$work/$api.json" "$url" "$@"
    fi
    [ "${SCHEMATHESIS_KEEP:-0}" = 1 ] || rm -f "$work/report-$api"/har-*.json
    return "$run_status"
}

: >"$work/parameters"
: >"$work/dictionaries"
: >"$work/operations"
all_checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
failed=""
started=$(date +%s)
for api in $apis; do
    curl -sf -X POST "$base/_mock/reset" >/dev/null
    status=0
    checks=$all_checks
    case $api in
    threads)
        token=$(json_field '["token"]' -X POST "$base/api/login" -d 'email=a@a.com&password=test123')
        bind emails body.email -- a@a.com
        bind passwords body.password -- test123
        # Threads 2 and 3 and message 4 are someone else's (403 on delete); the deletes also get a
        # thread and a message of a@a.com made for them, so the seeded ones stay for the reads.
        auth="Authorization: Bearer $token"
        doomed_thread=$(json_field '["thread"]["thread_id"]' -X POST "$base/api/thread/add" -H "$auth" -d 'title=Doomed')
        doomed_message=$(json_field '["message"]["message_id"]' -X POST "$base/api/message/add" -H "$auth" -d 'thread_id=2&message=Doomed')
        bind threads path.thread_id body.thread_id -- 2 3
        bind_operations doomed_threads path.thread_id \
            getApiThreadDeleteThreadId postApiThreadDeleteThreadId deleteApiThreadDeleteThreadId -- "$doomed_thread" 2
        bind_operations doomed_messages path.message_id \
            getApiMessageDeleteMessageId postApiMessageDeleteMessageId deleteApiMessageDeleteMessageId -- "$doomed_message" 4
        fuzz threads "$base" Authorization "Bearer $token" || status=$?
        ;;
    internproducts)
        bind usernames query.username -- admin
        bind passwords query.password -- 1234
        bind tokens query.loginToken -- 668961808.772846
        fuzz internproducts "$base" || status=$?
        ;;
    wsuv)
        # alice's live token, her tweet 3 and bob's tweet 4, in the query (GET) and the form (POST).
        session=$(json_field '["session_token"]' -X POST "$base/cgi-bin/login.cgi" -d 'username=alice&password=wonderland')
        bind usernames query.username body.username -- alice
        bind passwords query.password body.password -- wonderland
        bind sessions query.session_token body.session_token -- "$session"
        bind tweets query.tweet_id body.tweet_id -- 3 4
        # The real scripts answered 500 to some requests (docs/apis/wsuv-twitter.md): it is documented,
        # so status_code_conformance still catches any other 500.
        checks=${all_checks#not_a_server_error,}
        fuzz wsuv "$base" || status=$?
        ;;
    cse118)
        # Each prefix from the seed. Path ids: sslug's first workspace (a member, not the owner), its
        # first channel and a workspace of sslug's own; the deletes each get a workspace, channel or
        # message made for them. PUT /reset runs as Molly, who has no fixtures.
        for prefix in /api/v2 /api/v1; do
            curl -sf -X POST "$base/_mock/reset/cse118" >/dev/null
            api_base=$base$prefix
            token=$(json_field '["accessToken"]' -X POST "$api_base/login" -d '{"email":"sslug@ucsc.edu","password":"1234567"}')
            auth="Authorization: Bearer $token"
            workspace=$(json_field '[0]["id"]' "$api_base/workspace" -H "$auth")
            channel=$(json_field '[0]["id"]' "$api_base/workspace/$workspace/channel" -H "$auth")
            doomed_workspace=$(json_field '["id"]' -X POST "$api_base/workspace" -H "$auth" -d '{"name":"Doomed"}')
            own_workspace=$(json_field '["id"]' -X POST "$api_base/workspace" -H "$auth" -d '{"name":"Fuzz"}')
            doomed_channel=$(json_field '["id"]' -X POST "$api_base/workspace/$own_workspace/channel" -H "$auth" -d '{"name":"Doomed"}')
            doomed_message=$(json_field '["id"]' -X POST "$api_base/channel/$channel/message" -H "$auth" -d '{"content":"Doomed"}')
            bind emails body.email -- sslug@ucsc.edu
            bind passwords body.password -- 1234567
            bind ids path.id -- "$workspace" "$channel" "$own_workspace"
            bind members query.mid -- 25660a5d-8451-4768-8cda-2c2d91bdbc90
            bind_operations doomed_workspaces path.id deleteWorkspace -- "$doomed_workspace"
            bind_operations doomed_channels path.id deleteChannel -- "$doomed_channel"
            bind_operations doomed_messages path.id deleteMessage -- "$doomed_message"
            molly=$(json_field '["accessToken"]' -X POST "$api_base/login" -d '{"email":"molly@cse118.com","password":"molly"}')
            operation_header reset Authorization "Bearer $molly"
            fuzz cse118 "$api_base" Authorization "Bearer $token" || status=$?
        done
        ;;
    otp)
        # A number that signs up (its code is pending from the start, and is the fixed one),
        # beside the seeded token of Alex Rivera.
        bind phones body.phone_number body.e164_phone_number -- +15305550199
        bind codes body.code -- 123456
        curl -sf -X POST "$base/api/send_verification_code" -d '{"phone_number":"+15305550199"}' >/dev/null
        fuzz otp "$base" x-authtoken seed_token_alex_rivera_000000001 || status=$?
        ;;
    *)
        echo "unknown API: $api" >&2
        status=2
        ;;
    esac
    [ "$status" -eq 0 ] || failed="$failed $api"
done

if ! kill -0 "$server" 2>/dev/null; then
    echo "FAIL: the server died"
    cat "$work/server.log"
    exit 1
fi
echo "== $(($(date +%s) - started)) s for: $apis"
if [ -n "$failed" ]; then
    echo "FAIL:$failed"
    exit 1
fi
echo "PASS"
