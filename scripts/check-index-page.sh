#!/usr/bin/env bash
# The index page in a real browser: headless Chromium loads http://127.0.0.1:PORT/, the visible text
# must name every API, a seeded account and a journal row with its reason, and screenshots at
# projector and phone size go to .build/index-page/ for a person to look at. Then the live journal
# with an admin token (scripts/check-live-journal.py), and the journal's HAR imported by DevTools' own
# HAR importer (scripts/check-har-import.py). Installs Chromium from Debian if missing.
# --update-docs: also write the live journal's screenshot to docs/index-page.png (the README's).
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/index-page
mkdir -p "$out"
docs_screenshot=()
if [ "${1:-}" = "--update-docs" ]; then docs_screenshot=(--docs-screenshot docs/index-page.png); fi

if ! command -v chromium >/dev/null; then
    echo "installing chromium (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi

swift build --product mock-backend >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
binary="$(swift build --show-bin-path)/mock-backend"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" --host 127.0.0.1 --port "$port" --quiet --otp-code 123456 >"$out/server.log" 2>&1 &
server=$!
profile=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$profile"' EXIT

base="http://127.0.0.1:$port"
for _ in $(seq 50); do
    curl -fsS "$base/_mock/health" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fsS "$base/_mock/health" >/dev/null

# A few course requests, so the journal has rows.
curl -sS -o /dev/null -d 'email=a@a.com&password=test123' "$base/api/login"
curl -sS -o /dev/null "$base/api/threads"
curl -sS -o /dev/null "$base/~cs458/cgi-bin/get-tweets.cgi"
curl -sS -o /dev/null "$base/login?username=nobody&password=x"

browse() {
    timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$profile" --force-device-scale-factor=1 "$@" "$base/" 2>/dev/null
}

browse --dump-dom >"$out/dom.html"
# The visible text: the DOM without the style sheet and tags, entities decoded.
python3 - "$out/dom.html" >"$out/text.txt" <<'EOF'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
dom = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", dom)
dom = re.sub(r"</?(span|wbr|code|strong|a)\b[^>]*>", "", dom)  # inline: no word break
print(html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))))
EOF

failed=0
expect() {
    if grep -qF -- "$1" "$out/text.txt"; then
        echo "ok    visible: $1"
    else
        echo "FAIL  not visible: $1"
        failed=1
    fi
}
# Every served API's title, as the start-up banner prints it ("threads         UNC Charlotte …").
apis=$(curl -fsS "$base/_mock/health" | python3 -c 'import json, sys; print(" ".join(json.load(sys.stdin)["apis"]))')
for api in $apis; do
    title=$(sed -n "s/^$api  *//p" "$out/server.log" | head -1)
    if [ -z "$title" ]; then echo "FAIL  no title for $api in the banner"; failed=1; continue; fi
    expect "$title"
done
expect "http://127.0.0.1:$port/api/"
expect "http://10.0.2.2:$port/api/"
expect "a@a.com"
expect "test123"
expect "POST /api/login 200 threads"
expect "GET /api/threads 401 threads Authorization header missing"
expect "GET /login?username=nobody&password=x"

browse --screenshot="$out/projector.png" --window-size=1280,900
browse --screenshot="$out/phone.png" --window-size=390,844
for shot in projector phone; do
    if [ -s "$out/$shot.png" ]; then echo "ok    screenshot $out/$shot.png"; else echo "FAIL  no $shot screenshot"; failed=1; fi
done

scripts/check-live-journal.py "$binary" "$out" "${docs_screenshot[@]}" || failed=1
scripts/check-har-import.py "$binary" "$out" || failed=1

if [ "$failed" -ne 0 ]; then
    echo "index page check FAILED (page text in $out/text.txt)"
    exit 1
fi
echo "index page check passed"
