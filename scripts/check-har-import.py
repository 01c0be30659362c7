#!/usr/bin/env python3
"""The journal's HAR (GET /_mock/requests.har) imported by Chrome DevTools' own HAR importer.

DevTools imports a HAR only through its Network panel's UI, so this loads the DevTools front end
that Chromium carries (devtools://devtools/bundled/devtools_app.html) in headless Chromium and runs
the code behind that button on the file: HARFormat.HARRoot (which throws on a missing field) and
Importer.requestsFromHARLog. A session through three APIs and a stub with a binary body is made
first; every imported request must carry the entry's method, URL, status, reason, MIME type and
header count, the posted body and the response body (a binary one through base64).

usage: check-har-import.py BINARY OUT_DIR
"""
import base64
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

DEADLINE_S = 30
PIXEL = b"\x89PNG\r\n\x1a\n\x00\xff\xfe"

# Run in the DevTools page with the HAR's text: what the Network panel's import gets from it.
IMPORT = """(async (text) => {
  const HAR = await import('./models/har/har.js');
  const requests = HAR.Importer.Importer.requestsFromHARLog(new HAR.HARFormat.HARRoot(JSON.parse(text)).log);
  const imported = [];
  for (const request of requests) {
    const content = await request.requestContentData();
    imported.push({url: request.url(), method: request.requestMethod, status: request.statusCode,
                   statusText: request.statusText, mimeType: request.mimeType,
                   requestHeaders: request.requestHeaders().length, responseHeaders: request.responseHeaders.length,
                   posted: await request.requestFormData(),
                   body: content.isTextContent ? content.text : content.base64});
  }
  return imported;
})(%s)"""


def fetch(base, path, method="GET", body=None, headers=()):
    request = urllib.request.Request(base + path, data=body, method=method)
    for name, value in headers:
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def main():
    binary, out = sys.argv[1], sys.argv[2]
    # A browser that stops answering must fail the check, not hang CI.
    signal.alarm(180)
    stubs = tempfile.TemporaryDirectory()
    os.mkdir(os.path.join(stubs.name, "bodies"))
    with open(os.path.join(stubs.name, "bodies", "pixel.png"), "wb") as file:
        file.write(PIXEL)
    with open(os.path.join(stubs.name, "pixel.json"), "w") as file:
        json.dump({"request": {"method": "GET", "path": "/pixel.png"},
                   "response": {"status": 200, "headers": {"Content-Type": "image/png"}, "body_file": "bodies/pixel.png"}}, file)

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(out, "har-server.log"), "w")
    server = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", str(port), "--quiet", "--stubs", stubs.name,
                               "--clock", "2024-09-01T10:00:00Z", "--random-seed", "7"], stdout=log, stderr=subprocess.STDOUT)
    profile = tempfile.TemporaryDirectory()
    page = None
    try:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if fetch(base, "/_mock/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        else:
            sys.exit(f"FAIL  the server did not answer /_mock/health (see {log.name})")

        status, body = fetch(base, "/api/login", "POST", b"email=a@a.com&password=test123",
                             [("Content-Type", "application/x-www-form-urlencoded")])
        token = json.loads(body).get("token", "") if status == 200 else ""
        fetch(base, "/api/threads", headers=[("Authorization", f"Bearer {token}")])
        fetch(base, "/api/send_verification_code", "POST", json.dumps({"phone_number": "+15095550123"}).encode(),
              [("Content-Type", "application/json")])
        fetch(base, "/~cs458/cgi-bin/get-tweets.cgi?limit=2")
        fetch(base, "/pixel.png")
        status, har_bytes = fetch(base, "/_mock/requests.har")
        if status != 200:
            sys.exit(f"FAIL  GET /_mock/requests.har answered {status}")
        with open(os.path.join(out, "session.har"), "wb") as file:
            file.write(har_bytes)
        entries = json.loads(har_bytes)["log"]["entries"]

        page = DevTools(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         f"--user-data-dir={profile.name}"])
        page.open_page("devtools://devtools/bundled/devtools_app.html")
        while True:  # the front end loads its modules after the page
            try:
                page.evaluate("import('./models/har/har.js').then(() => true)")
                break
            except RuntimeError:
                if time.monotonic() > deadline + DEADLINE_S:
                    raise
                time.sleep(0.5)
        try:
            imported = page.evaluate(IMPORT % json.dumps(har_bytes.decode()))
        except RuntimeError as error:
            sys.exit(f"FAIL  DevTools' HAR importer refused the file: {str(error).rsplit('): ', 1)[-1]}")
    finally:
        if page:
            page.close()
        server.kill()
        server.wait()

    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    check(len(entries) == 5 and len(imported) == 5, f"DevTools imported {len(imported)} requests of the HAR's {len(entries)}")
    for entry, request in zip(entries, imported):
        wanted = {"url": entry["request"]["url"], "method": entry["request"]["method"], "status": entry["response"]["status"],
                  "statusText": entry["response"]["statusText"], "mimeType": entry["response"]["content"]["mimeType"],
                  "requestHeaders": len(entry["request"]["headers"]), "responseHeaders": len(entry["response"]["headers"]),
                  "posted": entry["request"].get("postData", {}).get("text"),
                  "body": entry["response"]["content"].get("text", "")}
        got = {key: request[key] for key in wanted}
        check(got == wanted, f"{wanted['method']} {wanted['url']} {wanted['status']}: as in the HAR"
              + ("" if got == wanted else f" (DevTools: {json.dumps(got)[:300]}; HAR: {json.dumps(wanted)[:300]})"))
    pixel = entries[-1]["response"]["content"]
    check(pixel.get("encoding") == "base64" and base64.b64decode(imported[-1]["body"]) == PIXEL,
          "the binary body comes through base64 byte for byte")
    check(any(request["posted"] for request in imported), "a posted body reaches DevTools")
    if failures:
        sys.exit(f"HAR import check FAILED (the HAR is in {out}/session.har)")
    print("HAR import check passed")


if __name__ == "__main__":
    main()
