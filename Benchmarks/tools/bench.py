#!/usr/bin/env python3
"""Runs the issue-9 benchmark: mock-backend against Hummingbird 2, FlyingFox and nginx.

Called by Benchmarks/run.sh after the builds; needs wrk and nginx on PATH. Every server runs on
loopback beside wrk. Writes the results as JSON; report.py turns them into the table, chart and doc.
"""
import argparse
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

PORTS = {"mock-backend": 18080, "hummingbird": 18081, "flyingfox": 18082, "nginx": 18083}
SERVERS = list(PORTS)
ANCHORS = ["hummingbird", "flyingfox"]
LOGIN_BODY = b"email=a@a.com&password=test123"
PRODUCTS_TARGET = "/products?loginToken=668961808.772846"
ANSWERS = {
    # name: (target, needs the bearer token)
    "threads": ("/api/threads", True),
    "products": (PRODUCTS_TARGET, False),
    "tiny": ("/_mock/health", False),
}


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def http_get(port, target, headers=None, timeout=5.0):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{target}", headers=headers or {})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return answer.status, answer.read()


def status_of(port, target):
    """The status of one GET over a fresh connection, or None while nothing listens."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            # localhost: /_mock answers only under a loopback name or address (docs/admin.md#who-may-call-it)
            connection.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
            head = connection.recv(64)
            match = re.match(rb"HTTP/1\.[01] (\d{3})", head)
            return int(match.group(1)) if match else None
    except OSError:
        return None


def raise_fd_limit(wanted=65536):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def memory_kb(pids, field):
    """VmHWM (peak) or VmRSS (now) summed over pids, in KiB."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


class Servers:
    """Starts and stops the four servers; mock-backend first, since its login token feeds the anchors."""

    def __init__(self, root, work):
        self.root = root
        self.work = work
        self.processes = {}
        self.token = None
        self.mock_binary = os.path.join(root, ".build/release/mock-backend")
        bench_bin = os.path.join(root, "Benchmarks/.build/release")
        self.anchor_binaries = {name: os.path.join(bench_bin, f"{name}-anchor") for name in ANCHORS}

    def command(self, name):
        if name == "mock-backend":
            # As a user runs it: the shipped seed, the journal at its default, no console line per request.
            return [self.mock_binary, "--host", "127.0.0.1", "--port", str(PORTS[name]), "--quiet",
                    "--max-connections-per-address", "1000000"]  # the idle test opens 10,000 from one address
        if name == "nginx":
            return ["nginx", "-p", self.work, "-c", os.path.join(self.work, "nginx.conf")]
        return [self.anchor_binaries[name], "--port", str(PORTS[name]), "--seed", os.path.join(self.root, "Seed"),
                "--token", self.token or "none"]

    def start(self, name):
        """Starts one server; returns the milliseconds from spawn to its first 200 answer."""
        begin = time.perf_counter()
        process = subprocess.Popen(self.command(name), cwd=self.root, stdout=subprocess.DEVNULL,
                                   stderr=open(os.path.join(self.work, f"{name}.err"), "ab"))
        self.processes[name] = process
        deadline = begin + 30
        while time.perf_counter() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}; see {self.work}/{name}.err")
            if status_of(PORTS[name], "/_mock/health") == 200:
                return (time.perf_counter() - begin) * 1000
            time.sleep(0.0005)
        raise RuntimeError(f"{name} did not answer within 30 s")

    def pids(self, name):
        """The server's own process, plus nginx's workers."""
        pid = self.processes[name].pid
        children = []
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as listing:
                children = [int(child) for child in listing.read().split()]
        except FileNotFoundError:
            pass
        return [pid] + children

    def stop(self, name):
        process = self.processes.pop(name, None)
        if process and process.poll() is None:
            process.send_signal(signal.SIGQUIT if name == "nginx" else signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        # Wait for the port to be free again.
        for _ in range(200):
            if status_of(PORTS[name], "/_mock/health") is None:
                return
            time.sleep(0.05)

    def stop_all(self):
        for name in list(self.processes):
            self.stop(name)

    def login(self):
        request = urllib.request.Request(f"http://127.0.0.1:{PORTS['mock-backend']}/api/login", data=LOGIN_BODY,
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            self.token = json.loads(answer.read())["token"]

    def start_all(self):
        """Starts every server (mock-backend first, for the token); returns start-up times in ms."""
        times = {"mock-backend": self.start("mock-backend")}
        self.login()
        for name in ANCHORS + ["nginx"]:
            times[name] = self.start(name)
        return times


def write_static_site(work, servers, token):
    """nginx serves mock-backend's own answer bytes as static files: the practical ceiling."""
    static = os.path.join(work, "static")
    os.makedirs(static, exist_ok=True)
    port = PORTS["mock-backend"]
    bodies = {}
    for answer, (target, needs_token) in ANSWERS.items():
        headers = {"Authorization": f"BEARER {token}"} if needs_token else {}
        status, body = http_get(port, target, headers)
        assert status == 200, (answer, status)
        with open(os.path.join(static, f"{answer}.json"), "wb") as file:
            file.write(body)
        bodies[answer] = body
    locations = "\n".join(
        f"        location = {ANSWERS[answer][0].split('?')[0]} {{ default_type \"application/json; charset=utf-8\"; "
        f"alias {static}/{answer}.json; }}" for answer in ANSWERS)
    config = f"""
worker_processes auto;
worker_rlimit_nofile 65536;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 20000; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 600s;
    client_body_temp_path {work}/tmp-body;
    proxy_temp_path {work}/tmp-proxy;
    fastcgi_temp_path {work}/tmp-fastcgi;
    uwsgi_temp_path {work}/tmp-uwsgi;
    scgi_temp_path {work}/tmp-scgi;
    server {{
        listen 127.0.0.1:{PORTS['nginx']};
{locations}
    }}
}}
"""
    with open(os.path.join(work, "nginx.conf"), "w") as file:
        file.write(config)
    return bodies


def parse_wrk(output):
    def milliseconds(text):
        number, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
        return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))}
    for percentile in ("50", "99"):
        match = re.search(rf"^\s+{percentile}%\s+(\S+)", output, re.M)
        result[f"p{percentile}_ms"] = milliseconds(match.group(1)) if match else None
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    result["non_2xx"] = int(bad.group(1)) if bad else 0
    result["socket_errors"] = sum(map(int, errors.groups())) if errors else 0
    return result


def run_wrk(port, target, headers, seconds, threads, connections):
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    for header in headers:
        command += ["-H", header]
    command.append(f"http://127.0.0.1:{port}{target}")
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return parse_wrk(output)


def summarize(rounds):
    summary = {"rounds": rounds}
    for key in ("rps", "p50_ms", "p99_ms"):
        values = [entry[key] for entry in rounds if entry[key] is not None]
        summary[key] = statistics.median(values) if values else None
    summary["non_2xx"] = sum(entry["non_2xx"] for entry in rounds)
    summary["socket_errors"] = sum(entry["socket_errors"] for entry in rounds)
    return summary


def load_rounds(servers, target, headers, args, connection_close=False):
    """Warm-up, then `rounds` rounds; the server order rotates each round so none always goes first."""
    extra = ["Connection: close"] if connection_close else []
    for name in SERVERS:
        run_wrk(PORTS[name], target, headers + extra, args.warmup, args.threads, args.connections)
    rounds = {name: [] for name in SERVERS}
    for number in range(args.rounds):
        order = SERVERS[number % len(SERVERS):] + SERVERS[:number % len(SERVERS)]
        for name in order:
            result = run_wrk(PORTS[name], target, headers + extra, args.seconds, args.threads, args.connections)
            log(f"    round {number + 1} {name:13s} {result['rps']:10.0f} req/s  p50 {result['p50_ms']:.2f} ms  "
                f"p99 {result['p99_ms']:.2f} ms")
            rounds[name].append(result)
    summaries = {}
    for name in SERVERS:
        summaries[name] = summarize(rounds[name])
        summaries[name]["peak_rss_mb"] = round(memory_kb(servers.pids(name), "VmHWM") / 1024, 1)
    return summaries


def idle_connections(servers, name, count):
    """RSS with `count` idle keep-alive connections open, and how fast a new request is answered meanwhile."""
    port = PORTS[name]
    pids = servers.pids(name)
    baseline = memory_kb(pids, "VmRSS")
    request = b"GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n"
    sockets = []
    failures = 0
    begin = time.perf_counter()
    for _ in range(count):
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=10)
            connection.sendall(request)
            sockets.append(connection)
        except OSError:
            failures += 1
    # Each connection served one request, so it is a real keep-alive connection, now idle.
    for connection in sockets:
        try:
            if not connection.recv(4096):
                failures += 1
        except OSError:
            failures += 1
    opened_seconds = time.perf_counter() - begin
    time.sleep(2)
    rss_now = memory_kb(pids, "VmRSS")
    latencies = []
    for _ in range(20):
        start = time.perf_counter()
        status = status_of(port, "/_mock/health")
        latencies.append((time.perf_counter() - start) * 1000)
        if status != 200:
            failures += 1
    still_open = 0
    for connection in sockets:
        try:
            connection.sendall(request)
            if connection.recv(4096):
                still_open += 1
        except OSError:
            pass
        connection.close()
    return {
        "connections": count,
        "failed": failures,
        "still_open_after": still_open,
        "open_seconds": round(opened_seconds, 2),
        "baseline_rss_mb": round(baseline / 1024, 1),
        "rss_mb": round(rss_now / 1024, 1),
        "kb_per_connection": round((rss_now - baseline) / count, 2),
        "new_request_median_ms": round(statistics.median(latencies), 2),
        "new_request_max_ms": round(max(latencies), 2),
    }


def machine():
    def first(path, key):
        try:
            with open(path) as file:
                for line in file:
                    if line.startswith(key):
                        return line.split(":", 1)[1].strip()
        except OSError:
            return None

    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.splitlines()
    nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    return {
        "nproc": os.cpu_count(),
        "cpu": first("/proc/cpuinfo", "model name"),
        "memory": first("/proc/meminfo", "MemTotal"),
        "kernel": platform.release(),
        "swift": swift[0] if swift else None,
        "wrk": wrk[0].split("[")[0].strip() if wrk else None,
        "nginx": nginx.replace("nginx version: ", ""),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--idle", type=int, default=10000)
    parser.add_argument("--startups", type=int, default=5)
    args = parser.parse_args()
    raise_fd_limit()  # inherited by the servers, too

    work = tempfile.mkdtemp(prefix="mock-bench-")
    os.chmod(work, 0o755)  # nginx's workers run as nobody and read the static files from here
    servers = Servers(args.root, work)
    results = {"machine": machine(), "settings": {key: value for key, value in vars(args).items()
                                                  if key not in ("root", "out")}}
    try:
        log("== start-up: spawn to first 200 answer")
        startups = {name: [] for name in SERVERS}
        servers.start("mock-backend")
        servers.login()
        write_static_site(work, servers, servers.token)
        servers.stop_all()
        for _ in range(args.startups):
            for name, milliseconds in servers.start_all().items():
                startups[name].append(milliseconds)
            servers.stop_all()
        results["startup_ms"] = {name: round(statistics.median(values), 1) for name, values in startups.items()}
        log("   ", results["startup_ms"])

        results["keepalive"] = {}
        results["body_bytes"] = {}
        for answer, (target, needs_token) in ANSWERS.items():
            log(f"== {answer}: GET {target}, keep-alive")
            # Fresh processes per answer, so peak RSS belongs to this answer's load.
            servers.start_all()
            headers = [f"Authorization: BEARER {servers.token}"] if needs_token else []
            sizes = {}
            for name in SERVERS:
                status, body = http_get(PORTS[name], target, dict(h.split(": ", 1) for h in headers))
                assert status == 200, (name, answer, status)
                sizes[name] = len(body)
            results["body_bytes"][answer] = sizes
            results["keepalive"][answer] = load_rounds(servers, target, headers, args)
            servers.stop_all()

        log("== tiny answer, a new connection per request (Connection: close)")
        servers.start_all()
        results["connection_close"] = load_rounds(servers, ANSWERS["tiny"][0], [], args, connection_close=True)
        servers.stop_all()

        log(f"== {args.idle} idle keep-alive connections")
        results["idle"] = {}
        for name in SERVERS:
            servers.start_all()
            results["idle"][name] = idle_connections(servers, name, args.idle)
            log("   ", name, results["idle"][name])
            # A fresh set for the next server, so leftover sockets cost nobody else.
            servers.stop_all()
            time.sleep(1)
    finally:
        servers.stop_all()
        shutil.rmtree(work, ignore_errors=True)

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as file:
        json.dump(results, file, indent=2)
        file.write("\n")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
