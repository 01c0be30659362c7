#!/usr/bin/env python3
"""What --state costs: the threads list with and without it, POST /api/message/add with it on a
small and on a 100,000-row state, and start-up with that state. Called by Benchmarks/state.sh.

Servers of a comparison run side by side and each round measures them in turn (the other one first
every other round), so a busy moment of the shared machine hits both; the figures are medians.

    state_bench.py --binary PATH [--seconds 5] [--rounds 2] [--rows 100000] [--out FILE]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import log, parse_wrk, raise_fd_limit, status_of  # noqa: E402

PORTS = iter(range(18620, 18640))
FORM = "application/x-www-form-urlencoded"
ADD_SCRIPT = """
wrk.method = "POST"
wrk.body = "thread_id=2&message=a+message+from+wrk"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
"""


def large_state(binary, rows, path):
    """A --state file whose threads API holds `rows` messages (in the shipped seed's threads, by its
    users) besides the shipped rows; the other APIs as shipped (exported: images inlined)."""
    server = Server(binary, [])
    try:
        state = {name: json.loads(urllib.request.urlopen(f"http://127.0.0.1:{server.port}/_mock/state/{name}").read())
                 for name in ("threads", "internproducts", "wsuv", "cse118", "otp")}
    finally:
        server.stop()
    threads = state["threads"]
    users = [user["user_id"] for user in threads["users"]]
    thread_ids = [thread["thread_id"] for thread in threads["threads"]]
    first = max(message["message_id"] for message in threads["messages"]) + 1
    threads["messages"] += [{"message_id": first + n, "thread_id": thread_ids[n % len(thread_ids)],
                             "user_id": users[n % len(users)], "message": f"message {n} of the large state",
                             "created_at": "2020-01-01 12:00:00"} for n in range(rows)]
    threads["next_ids"]["message"] = first + rows
    with open(path, "w") as file:
        json.dump(state, file, separators=(",", ":"))
        file.write("\n")
        # On the disk before any server starts: its first flush must not be this file's 14 MB.
        file.flush()
        os.fsync(file.fileno())


class Server:
    def __init__(self, binary, arguments):
        self.port = next(PORTS)
        begin = time.perf_counter()
        self.process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", str(self.port), "--quiet"] + arguments,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while status_of(self.port, "/_mock/health") != 200:
            if self.process.poll() is not None:
                raise RuntimeError(f"mock-backend exited: {self.process.stderr.read().decode()}")
            time.sleep(0.0005)
        self.startup_ms = (time.perf_counter() - begin) * 1000
        with open(f"/proc/{self.process.pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        self.startup_cpu_ms = (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/api/login", data=b"email=a@a.com&password=test123",
                                         headers={"Content-Type": FORM})
        with urllib.request.urlopen(request, timeout=30) as answer:
            self.bearer = "Authorization: BEARER " + json.load(answer)["token"]

    def cpu_ms(self):
        with open(f"/proc/{self.process.pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def wrk(self, target, seconds, script=None):
        command = ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", "--timeout", "5s", "-H", self.bearer]
        if script:
            command += ["-s", script]
        command.append(f"http://127.0.0.1:{self.port}{target}")
        before = self.cpu_ms()
        result = parse_wrk(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        # The server's CPU per answer: steady where the rate swings with the disk's flush time.
        result["cpu_us"] = (self.cpu_ms() - before) * 1000 / max(1, result["rps"] * seconds)
        return result

    def stop(self):
        self.process.kill()
        self.process.wait()


def compare(servers, target, seconds, rounds, script=None):
    """Median requests/s and p99 of each server, measured in turn."""
    runs = {name: [] for name in servers}
    for number in range(rounds):
        for name in list(servers)[:: 1 if number % 2 == 0 else -1]:
            runs[name].append(servers[name].wrk(target, seconds, script))
    results = {}
    for name, outcomes in runs.items():
        results[name] = {"rps": statistics.median(run["rps"] for run in outcomes),
                         "p99_ms": statistics.median(run["p99_ms"] for run in outcomes),
                         "cpu_us_per_request": statistics.median(run["cpu_us"] for run in outcomes),
                         "rps_each_round": [round(run["rps"]) for run in outcomes],
                         "non_2xx": sum(run["non_2xx"] for run in outcomes)}
        log(f"    {name:28s} {results[name]['rps']:10.0f} req/s  p99 {results[name]['p99_ms']:.2f} ms  "
            f"CPU {results[name]['cpu_us_per_request']:.0f} us/request  non-2xx {results[name]['non_2xx']}  "
            f"rounds {results[name]['rps_each_round']}")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--out")
    arguments = parser.parse_args()
    raise_fd_limit()
    folder = tempfile.mkdtemp(prefix="mock-state-bench-")
    results = {"machine": f"{platform.machine()}, {os.cpu_count()} cores shared", "seconds": arguments.seconds,
               "rounds": arguments.rounds, "rows": arguments.rows, "load_average": os.getloadavg()[0]}
    try:
        with open("/proc/mounts") as mounts:
            target = os.path.abspath(folder)
            best = max((line.split() for line in mounts if target.startswith(line.split()[1])), key=lambda f: len(f[1]))
            results["file_system"] = f"{best[2]} on {best[0]} ({best[1]})"
        log("threads list: GET /api/threads, with and without --state")
        servers = {"without --state": Server(arguments.binary, ["--only", "threads"]),
                   "with --state": Server(arguments.binary, ["--only", "threads", "--state",
                                                            os.path.join(folder, "list.json")])}
        try:
            results["list"] = compare(servers, "/api/threads", arguments.seconds, arguments.rounds)
        finally:
            for server in servers.values():
                server.stop()

        large = os.path.join(folder, "large.json")
        large_state(arguments.binary, arguments.rows, large)
        results["large_state_bytes"] = os.path.getsize(large)
        log(f"start-up with a state of {arguments.rows} messages ({results['large_state_bytes']} bytes), 5 times")
        starts = []
        for _ in range(5):
            copy = os.path.join(folder, "start.json")
            shutil.copyfile(large, copy)
            server = Server(arguments.binary, ["--state", copy])
            starts.append((server.startup_ms, server.startup_cpu_ms))
            server.stop()
        results["startup"] = {"wall_ms": statistics.median(s[0] for s in starts),
                              "cpu_ms": statistics.median(s[1] for s in starts)}
        small_start = Server(arguments.binary, ["--state", os.path.join(folder, "small-start.json")])
        small_start.stop()
        results["startup_small"] = {"wall_ms": small_start.startup_ms, "cpu_ms": small_start.startup_cpu_ms}
        log(f"    median {results['startup']['wall_ms']:.0f} ms wall, {results['startup']['cpu_ms']:.0f} ms CPU")

        log(f"POST /api/message/add: without --state, and with it on the shipped state and on {arguments.rows} rows")
        script = os.path.join(folder, "add.lua")
        with open(script, "w") as file:
            file.write(ADD_SCRIPT)
        servers = {"without --state": Server(arguments.binary, ["--only", "threads"]),
                   "--state, shipped rows": Server(arguments.binary, ["--state", os.path.join(folder, "small.json")]),
                   f"--state, {arguments.rows} rows": Server(arguments.binary, ["--state", large])}
        try:
            # Each write waits for the disk's flush, whose time swings on a shared disk: shorter runs,
            # more rounds.
            results["add"] = compare(servers, "/api/message/add", max(2, arguments.seconds // 2),
                                     arguments.rounds * 3, script)
        finally:
            for server in servers.values():
                server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if arguments.out:
        with open(arguments.out, "w") as file:
            json.dump(results, file, indent=2)
            file.write("\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
