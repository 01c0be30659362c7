# Shell helpers shared by the scripts that drive a running mock-backend (sourced, not run).

# wait_until_up URL: polls URL for up to 10 s until it answers 2xx.
wait_until_up() {
    for _ in $(seq 50); do
        curl -sf "$1" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}

# json_field SUBSCRIPT CURL-ARGUMENTS…: one value of the JSON answer, SUBSCRIPT in Python syntax (["id"]).
json_field() {
    field=$1
    shift
    curl -sf "$@" | python3 -c "import json, sys; print(json.load(sys.stdin)$field)"
}
