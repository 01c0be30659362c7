#!/usr/bin/env python3
"""The index page's live journal in headless Chromium, driven over the DevTools protocol.

A server started with an admin token; the page loaded; a wrong token typed (the page must say it
was refused), then the right one; requests made by a client after that must appear in the page
without a reload, with their reasons; rows are coloured by outcome (an error answered with 200 is
an error) and open to their request and response on a click; the status filter must narrow the rows; after a restart of
the server (ids from 1 again) the new run's requests must appear; the page's own polls must leave
no console line. Every read waits for what it expects (polling), up to a deadline.

usage: check-live-journal.py BINARY OUT_DIR [--docs-screenshot FILE]
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from devtools import DevTools  # noqa: E402

TOKEN = "classroom-7f3a"
DEADLINE_S = 30


failures = []


def check(ok, what, detail=""):
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok or not detail else f" ({detail})"))
    if not ok:
        failures.append(what)
    return ok


def wait_for(page, expression, what):
    """Polls `expression` until it is truthy; its last value goes into the failure message."""
    deadline = time.monotonic() + DEADLINE_S
    value = None
    while time.monotonic() < deadline:
        value = page.evaluate(expression)
        if value:
            return check(True, what)
        time.sleep(0.2)
    return check(False, what, f"still {json.dumps(value)[:400]} after {DEADLINE_S} s")


def fetch(base, path, method="GET", body=None, token=None):
    request = urllib.request.Request(base + path, data=body, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


ROWS = "Array.from(document.querySelectorAll('#journal-rows tbody tr.entry')).map(r => Array.from(r.cells).map(c => c.textContent))"


def row_of(path):
    """The journal row (not its detail row) of the newest request to `path`."""
    return ("Array.from(document.querySelectorAll('#journal-rows tbody tr.entry'))"
            f".find(r => r.cells[2].textContent.startsWith({json.dumps(path)}))")


def has_row(method, path, status, api, reason):
    wanted = json.dumps([method, path, status, api, reason], separators=(",", ":"), ensure_ascii=False)
    return f"{ROWS}.some(cells => JSON.stringify(cells.slice(1)) === {json.dumps(wanted)})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("out")
    parser.add_argument("--docs-screenshot")
    arguments = parser.parse_args()
    # A browser that stops answering must fail the check, not hang CI: SIGALRM ends the run.
    signal.alarm(300)

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(arguments.out, "live-server.log"), "w")

    def start_server():
        started = subprocess.Popen([arguments.binary, "--host", "127.0.0.1", "--port", str(port), "--admin-token", TOKEN],
                                   stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline and started.poll() is None:
            try:
                if fetch(base, "/_mock/health", token=TOKEN)[0] == 200:
                    return started
            except OSError:
                pass
            time.sleep(0.2)
        started.kill()
        sys.exit(f"FAIL  the server did not answer /_mock/health (see {log.name})")

    server = start_server()
    profile = tempfile.TemporaryDirectory()
    page = None
    try:
        fetch(base, "/api/login", "POST", b"email=a@a.com&password=test123")  # before the page: in its first rows
        page = DevTools(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                         f"--user-data-dir={profile.name}", "--force-device-scale-factor=1", "--window-size=1280,900"])
        page.open_page(base + "/")
        wait_for(page, "document.readyState === 'complete' && !document.getElementById('journal-token').hidden",
                 "the page asks for the admin token")

        page.type_and_enter("#journal-token input[name=token]", "not-the-token")
        wait_for(page, "document.getElementById('journal-problem').textContent.includes('The server refused this token')",
                 "a wrong token is refused with a clear message")
        page.evaluate("window.scrollTo(0, document.getElementById('requests').offsetTop - 140)")
        page.screenshot(os.path.join(arguments.out, "live-journal-token.png"))
        page.type_and_enter("#journal-token input[name=token]", TOKEN)
        wait_for(page, "!document.getElementById('journal-live').hidden && document.getElementById('journal-token').hidden",
                 "the right token is taken and the journal is live")
        wait_for(page, has_row("POST", "/api/login", "200", "threads", ""), "a request from before the token is listed")
        page.evaluate("window.sameDocument = 'never reloaded'")

        # A client's requests after the page has loaded: an error with a reason, and a 404 with a hint.
        fetch(base, "/api/threads")
        fetch(base, "/api/thred")
        status, journal = fetch(base, "/_mock/requests?limit=2", token=TOKEN)
        entries = json.loads(journal) if status == 200 else []
        check(len(entries) == 2 and all(entry["reason"] for entry in entries), "the client's requests have reasons", journal)
        for entry in entries:
            wait_for(page, has_row(entry["method"], entry["path"], str(entry["status"]), entry["api"] or "—", entry["reason"]),
                     f"{entry['method']} {entry['path']} {entry['status']} appears without a reload, with its reason")
        check(page.evaluate("window.sameDocument") == "never reloaded", "the page was not reloaded")

        # Outcome colours: InternProducts answers a wrong password 200 {"status":"FAILED",…}.
        status, failed_body = fetch(base, "/login?username=admin&password=wrong")
        check(status == 200 and '"FAILED"' in failed_body, "InternProducts answers a wrong password with 200 FAILED", failed_body)
        wait_for(page, f"(({row_of('/login?username=admin')}) || {{}}).className === 'entry error'",
                 "an error answered with 200 is coloured as an error")
        wait_for(page, f"{row_of('/api/login')}.className === 'entry ok'", "a success is coloured as one")
        stripe = page.evaluate(f"getComputedStyle({row_of('/login?username=admin')}.cells[0]).boxShadow")
        check(stripe != page.evaluate(f"getComputedStyle({row_of('/api/login')}.cells[0]).boxShadow"),
              "the two stripes differ", stripe)
        # A click opens the row to its request and response; the next poll keeps it open.
        page.evaluate(f"{row_of('/login?username=admin')}.click()")
        detail = f"{row_of('/login?username=admin')}.nextElementSibling"
        wait_for(page, f"!{detail}.hidden && {detail}.textContent.includes('GET /login?username=admin&password=wrong')"
                 f" && {detail}.textContent.includes('\"status\": \"FAILED\"')",
                 "a click shows the request and the response body")
        fetch(base, "/api/threads")
        wait_for(page, f"{ROWS}.length === 5 && !{detail}.hidden", "an opened row stays open when new rows come")
        page.evaluate("window.scrollTo(0, document.getElementById('requests').offsetTop - 140)")
        page.screenshot(os.path.join(arguments.out, "live-journal-opened.png"))
        page.evaluate(f"{row_of('/login?username=admin')}.click()")
        wait_for(page, f"{detail}.hidden", "a second click closes it")
        check(page.evaluate("sessionStorage.getItem('mock-backend admin token')") == TOKEN,
              "the token is kept in sessionStorage")
        check(all(TOKEN not in fetch(base, "/", token=token)[1] for token in (None, TOKEN)), "the served HTML never holds the token")

        page.evaluate("(() => { const s = document.querySelector('#journal-filters select[name=status]');"
                      " s.value = '4xx'; s.dispatchEvent(new Event('input', {bubbles: true})); })()")
        wait_for(page, f"{ROWS}.length === 3 && {ROWS}.every(cells => cells[3].startsWith('4'))", "the status filter narrows the rows")
        page.evaluate("(() => { const s = document.querySelector('#journal-filters select[name=status]');"
                      " s.value = ''; s.dispatchEvent(new Event('input', {bubbles: true})); })()")
        wait_for(page, f"{ROWS}.length === 5", "clearing the filter brings every row back")

        # A restart while the page is open: the new run counts ids from 1 again, the page must notice.
        server.terminate()
        server.wait(timeout=10)
        wait_for(page, "document.getElementById('journal-state').textContent.includes('does not answer')",
                 "the page says when the server does not answer")
        server = start_server()
        fetch(base, "/api/messages/1")
        status, journal = fetch(base, "/_mock/requests?limit=1", token=TOKEN)
        entry = json.loads(journal)[0] if status == 200 else {}
        check(entry.get("id") == 1 and entry.get("reason"), "the restarted server's first entry has id 1 and a reason", journal)
        wait_for(page, f"{ROWS}.length === 1 && " + has_row("GET", "/api/messages/1", str(entry.get("status")),
                                                               entry.get("api") or "—", entry.get("reason")),
                 "after the restart the new run's request appears, the old run's rows are gone")
        fetch(base, "/api/login", "POST", b"email=a@a.com&password=test123")
        fetch(base, "/api/threads")
        fetch(base, "/api/thred")
        wait_for(page, f"{ROWS}.length === 4", "and the next requests too")

        page.evaluate("window.scrollTo(0, document.getElementById('requests').offsetTop - 140)")
        shot = os.path.join(arguments.out, "live-journal.png")
        page.screenshot(shot)
        check(os.path.getsize(shot) > 0, f"screenshot {shot}")
        if arguments.docs_screenshot:
            # The journal's card alone, without the run's random port above it.
            clip = page.evaluate("(() => { const card = document.getElementById('requests');"
                                 " return {x: 0, y: card.offsetTop - 24, width: document.documentElement.clientWidth,"
                                 " height: card.offsetHeight + 48}; })()")
            page.screenshot(arguments.docs_screenshot, clip)
            print(f"wrote {arguments.docs_screenshot}")
        page.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        page.evaluate("window.scrollTo(0, document.getElementById('requests').offsetTop - 20)")
        page.screenshot(os.path.join(arguments.out, "live-journal-phone.png"))

        # A clear while the page is open: the cleared rows leave it, the next request comes alone.
        status, _ = fetch(base, "/_mock/requests", "DELETE", token=TOKEN)
        check(status == 204, "DELETE /_mock/requests clears the journal", str(status))
        wait_for(page, f"{ROWS}.length === 0", "after a clear the page drops the cleared rows")
        fetch(base, "/api/thred")
        wait_for(page, f"{ROWS}.length === 1 && {ROWS}[0][2] === '/api/thred'", "and shows the next request alone")
    finally:
        if page:
            page.close()
        if server.poll() is not None:
            check(False, "the server kept running", f"it exited with {server.returncode}; see {log.name}")
        server.terminate()
        server.wait(timeout=10)
        log.close()
        profile.cleanup()

    lines = open(os.path.join(arguments.out, "live-server.log")).read().splitlines()
    polls = [line for line in lines if "/_mock/requests?" in line and "after=" in line and " 200 " in line]
    check(not polls, "the page's polls leave no console line", polls[0] if polls else "")
    if failures:
        sys.exit(f"live journal check FAILED: {len(failures)} problem(s)")
    print("live journal check passed")


if __name__ == "__main__":
    main()
