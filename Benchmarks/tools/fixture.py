#!/usr/bin/env python3
"""The threads list with and without the fixture flags (issue 32), on the same release build.

Two servers run at once, one as a user starts it and one with `--clock 2024-09-01T10:00:00Z
--random-seed 7`; each logs in once, then each round loads `GET /api/threads` with its bearer token
on both at the same time (`wrk -t1 -c32` each), so whatever else a shared machine does meanwhile
both meet it. The figure is the ratio of each round's pair, its median over the rounds, with the
load average before and after. Called by Benchmarks/run.sh; alone, after
`swift build -c release`:

    python3 Benchmarks/tools/fixture.py --binary .build/release/mock-backend --out Benchmarks/results/fixture.json
"""
import json
import os
import statistics
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import LOGIN_BODY, log, run_wrk  # noqa: E402
from poll import run_from_command_line, start  # noqa: E402

TARGET = "/api/threads"
CONNECTIONS = 32  # per server
SERVERS = {  # name: (port, flags)
    "without": (18190, []),
    "with": (18191, ["--clock", "2024-09-01T10:00:00Z", "--random-seed", "7"]),
}


def bearer(port):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/login", data=LOGIN_BODY,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        return f"Authorization: Bearer {json.loads(answer.read())['token']}"


def measure(binary, seconds, rounds):
    load_before = os.getloadavg()[0]
    processes = {name: start(binary, port, *flags) for name, (port, flags) in SERVERS.items()}
    try:
        tokens = {name: bearer(port) for name, (port, _) in SERVERS.items()}
        for name, (port, _) in SERVERS.items():  # warm-up
            run_wrk(port, TARGET, [tokens[name]], 1, 1, CONNECTIONS)
        runs = {name: [] for name in SERVERS}
        with ThreadPoolExecutor(max_workers=len(SERVERS)) as pool:
            for number in range(rounds):
                # Both at once: whatever else the machine does in that second, both servers meet it.
                loads = {name: pool.submit(run_wrk, port, TARGET, [tokens[name]], seconds, 1, CONNECTIONS)
                         for name, (port, _) in SERVERS.items()}
                for name, load in loads.items():
                    result = load.result()
                    log(f"    round {number + 1} {name:7s} {result['rps']:10.0f} req/s  p99 {result['p99_ms']:.2f} ms")
                    runs[name].append(result)
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(timeout=10)
    plain, fixture = (runs[name] for name in SERVERS)
    ratios = [b["rps"] / a["rps"] for a, b in zip(plain, fixture)]
    return {"target": TARGET, "connections": CONNECTIONS, "seconds": seconds, "rounds": rounds, "cores": os.cpu_count(),
            "load_average_before": round(load_before, 2), "load_average_after": round(os.getloadavg()[0], 2),
            "servers": {name: {"flags": flags, "rps": statistics.median(r["rps"] for r in runs[name]),
                               "p99_ms": statistics.median(r["p99_ms"] for r in runs[name]),
                               "errors": sum(r["socket_errors"] + r["non_2xx"] for r in runs[name]),
                               "rounds": runs[name]} for name, (_, flags) in SERVERS.items()},
            "round_ratios": [round(ratio, 3) for ratio in ratios],
            "ratio": round(statistics.median(ratios), 3)}


def markdown_table(results):
    lines = ["| mock-backend | GET /api/threads req/s | p99 ms | errors |", "|---|---:|---:|---:|"]
    for name, entry in results["servers"].items():
        flags = f"`{' '.join(entry['flags'])}`" if entry["flags"] else "the flags"
        lines.append(f"| {name} {flags} | {entry['rps']:,.0f} | {entry['p99_ms']:.2f} | {entry['errors']} |")
    ratios = ", ".join(f"{ratio:.2f}" for ratio in results["round_ratios"])
    lines.append(f"| with / without, median of the rounds ({ratios}) | {results['ratio']:.2f} | | |")
    return "\n".join(lines)


if __name__ == "__main__":
    run_from_command_line(measure, markdown_table, seconds=3, rounds=6)
