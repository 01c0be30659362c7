"""Chromium driven over the DevTools protocol (--remote-debugging-pipe), for the browser checks:
scripts/check-live-journal.py and scripts/check-har-import.py."""
import base64
import fcntl
import json
import os
import subprocess


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe: JSON messages ended by a NUL
    byte, commands on the child's fd 3, answers and events on its fd 4."""

    def __init__(self, arguments):
        to_child_read, self.to_child = os.pipe()
        self.from_child, from_child_write = os.pipe()

        def map_fds():
            # Out of the way first, so neither lands on the other's target number.
            high_read, high_write = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_read, from_child_write))
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        # close_fds would close 3 and 4 after map_fds; Python's own descriptors are close-on-exec anyway.
        self.process = subprocess.Popen(arguments + ["--remote-debugging-pipe"], close_fds=False, preexec_fn=map_fds,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_read)
        os.close(from_child_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def _read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_child, 65536)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open_page(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def type_and_enter(self, selector, text):
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                                 "windowsVirtualKeyCode": 13, "text": "\r" if kind == "keyDown" else ""})

    def screenshot(self, path, clip=None):
        options = {"format": "png"}
        if clip:
            options.update(clip=dict(clip, scale=1), captureBeyondViewport=True)
        data = self.send("Page.captureScreenshot", options)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except RuntimeError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
