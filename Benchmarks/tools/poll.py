#!/usr/bin/env python3
"""The poll(2) backend (the one macOS uses) against epoll, on the same release build.

Both servers run at once (`--poller epoll` and `--poller poll`); each load runs on one then the
other, the order swapped each round, medians reported. The loads: GET /_mock/health over 10, 100
and 1,000 keep-alive connections, then over 10 connections while 1,000 idle ones stay open (poll
scans every watched descriptor on each wait, epoll only the ready ones). Called by
Benchmarks/poll.sh after the release build.

    poll.py --binary PATH [--seconds 5] [--rounds 2] [--out FILE]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import log, memory_kb, raise_fd_limit, run_wrk, status_of  # noqa: E402

PORTS = {"epoll": 18180, "poll": 18181}
TARGET = "/_mock/health"
LOADS = [  # (name, wrk connections, idle connections held open meanwhile)
    ("10 connections", 10, 0),
    ("100 connections", 100, 0),
    ("1,000 connections", 1000, 0),
    ("10 busy + 1,000 idle connections", 10, 1000),
]


def start(binary, port, *flags):
    """mock-backend on loopback with extra flags, once it answers."""
    process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", str(port), "--quiet", *flags],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"mock-backend {' '.join(flags)} exited: {process.stderr.read().decode()}")
        if status_of(port, TARGET) == 200:
            return process
        time.sleep(0.01)
    raise RuntimeError(f"mock-backend {' '.join(flags)} did not answer within 60 s")


def idle(port, count):
    """`count` open connections that have sent one request and read its answer."""
    held = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.sendall(f"GET {TARGET} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())  # a loopback name, as /_mock wants
        connection.recv(4096)
        held.append(connection)
    return held


def measure(binary, seconds, rounds):
    servers = {name: start(binary, port, "--poller", name) for name, port in PORTS.items()}
    try:
        results = {}
        for label, connections, idle_count in LOADS:
            log(f"  {label}")
            held = [c for port in PORTS.values() for c in idle(port, idle_count)]
            threads = min(2, connections)
            for name, port in PORTS.items():  # warm-up
                run_wrk(port, TARGET, [], 1, threads, connections)
            runs = {name: [] for name in PORTS}
            for number in range(rounds):
                order = list(PORTS) if number % 2 == 0 else list(reversed(PORTS))
                for name in order:
                    result = run_wrk(PORTS[name], TARGET, [], seconds, threads, connections)
                    log(f"    round {number + 1} {name:5s} {result['rps']:10.0f} req/s  p99 {result['p99_ms']:.2f} ms")
                    runs[name].append(result)
            for connection in held:
                connection.close()
            results[label] = {name: {"rps": statistics.median(r["rps"] for r in runs[name]),
                                     "p99_ms": statistics.median(r["p99_ms"] for r in runs[name]),
                                     "errors": sum(r["socket_errors"] + r["non_2xx"] for r in runs[name]),
                                     "rounds": runs[name]} for name in PORTS}
        peak = {name: round(memory_kb([process.pid], "VmHWM") / 1024, 1) for name, process in servers.items()}
        return {"loads": results, "peak_rss_mb": peak, "seconds": seconds, "rounds": rounds,
                "cores": os.cpu_count(), "load_average": os.getloadavg()[0]}
    finally:
        for process in servers.values():
            process.terminate()
            process.wait(timeout=10)


def markdown_table(results):
    lines = ["| load | epoll req/s (p99 ms) | poll req/s (p99 ms) | poll / epoll |", "|---|---:|---:|---:|"]
    for label, entry in results["loads"].items():
        a, b = entry["epoll"], entry["poll"]
        lines.append(f"| {label} | {a['rps']:,.0f} ({a['p99_ms']:.2f}) | {b['rps']:,.0f} ({b['p99_ms']:.2f}) | "
                     f"{b['rps'] / a['rps']:.2f} |")
    peak = results["peak_rss_mb"]
    lines.append(f"| peak RSS, MB | {peak['epoll']:,.1f} | {peak['poll']:,.1f} | {peak['poll'] / peak['epoll']:.2f} |")
    return "\n".join(lines)


def run_from_command_line(measure, table, seconds, rounds):
    """A side benchmark's command line (`--binary PATH [--seconds N] [--rounds N] [--out FILE]`):
    measures, prints the Markdown table, writes the results as JSON."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--seconds", type=int, default=seconds)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--out")
    args = parser.parse_args()
    raise_fd_limit()
    results = measure(args.binary, args.seconds, args.rounds)
    print(table(results))
    if args.out:
        with open(args.out, "w") as file:
            json.dump(results, file, indent=2)
            file.write("\n")

if __name__ == "__main__":
    run_from_command_line(measure, markdown_table, seconds=5, rounds=2)
