#!/usr/bin/env python3
"""What --state costs: the threads list with and without it, POST /api/message/add with it on a
small and on a 100,000-row state, and start-up with that state. Called by Benchmarks/state.sh.

Servers of a comparison run side by side and each round measures them in turn, so a busy moment of
the shared machine hits both; the figures are medians with the spread of the rounds. The writes are
measured twice: with the state files on the disk, whose flush time swings, and on a tmpfs
(/dev/shm), where a flush costs next to nothing, to show what the server itself spends.

    state_bench.py --binary PATH [--seconds 5] [--rounds 2] [--rows 100000] [--tmpfs /dev/shm] [--out FILE]
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

PORTS = iter(range(18620, 18660))
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

    def state_counts(self):
        """`/_mock/health`'s state file member (changes stored, flushes), or None without --state."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_mock/health", timeout=30) as answer:
            return json.load(answer).get("state_file")

    def stop(self):
        self.process.kill()
        self.process.wait()


def compare(servers, target, seconds, rounds, script=None, alternate=True):
    """Median requests/s and p99 of each server, measured in turn (the order reversed every other
    round when `alternate`, else always the same: small, large, small, large...)."""
    runs = {name: [] for name in servers}
    for number in range(rounds):
        for name in list(servers)[:: -1 if alternate and number % 2 else 1]:
            runs[name].append(servers[name].wrk(target, seconds, script))
    results = {}
    for name, outcomes in runs.items():
        rates = [run["rps"] for run in outcomes]
        results[name] = {"rps": statistics.median(rates),
                         "rps_min": min(rates), "rps_max": max(rates),
                         "p99_ms": statistics.median(run["p99_ms"] for run in outcomes),
                         "cpu_us_per_request": statistics.median(run["cpu_us"] for run in outcomes),
                         "rps_each_round": [round(rate) for rate in rates],
                         "non_2xx": sum(run["non_2xx"] for run in outcomes)}
        health = servers[name].state_counts()
        if health:
            results[name]["changes_per_flush"] = health["changes_stored"] / max(1, health["flushes"])
        log(f"    {name:28s} {results[name]['rps']:10.0f} req/s  p99 {results[name]['p99_ms']:.2f} ms  "
            f"CPU {results[name]['cpu_us_per_request']:.0f} us/request  non-2xx {results[name]['non_2xx']}  "
            f"rounds {results[name]['rps_each_round']}"
            + (f"  changes per flush {results[name]['changes_per_flush']:.2f}" if health else ""))
    return results


def file_system(path):
    with open("/proc/mounts") as mounts:
        target = os.path.abspath(path)
        best = max((line.split() for line in mounts if target.startswith(line.split()[1])), key=lambda f: len(f[1]))
    return f"{best[2]} on {best[0]} ({best[1]})"


def startups(binary, source, folder, times=5):
    """Median wall and CPU time from spawn to the first 200, each start on a fresh copy of `source`."""
    starts = []
    for _ in range(times):
        copy = os.path.join(folder, "start.json")
        shutil.copyfile(source, copy)
        server = Server(binary, ["--state", copy])
        starts.append((server.startup_ms, server.startup_cpu_ms))
        server.stop()
    result = {"wall_ms": statistics.median(s[0] for s in starts), "cpu_ms": statistics.median(s[1] for s in starts),
              "wall_ms_each": [round(s[0]) for s in starts], "load_average": os.getloadavg()[0]}
    log(f"    median {result['wall_ms']:.0f} ms wall (each {result['wall_ms_each']}), {result['cpu_ms']:.0f} ms CPU")
    return result


def writes(binary, folder, large, rows, seconds, rounds, script):
    """POST /api/message/add without --state, and with it on the shipped rows and on `large`,
    every state file in `folder`; small and large interleaved round by round."""
    own_large = os.path.join(folder, "writes-large.json")
    shutil.copyfile(large, own_large)
    servers = {"without --state": Server(binary, ["--only", "threads"]),
               "--state, shipped rows": Server(binary, ["--state", os.path.join(folder, "small.json")]),
               f"--state, {rows} rows": Server(binary, ["--state", own_large])}
    try:
        result = compare(servers, "/api/message/add", seconds, rounds, script, alternate=False)
    finally:
        for server in servers.values():
            server.stop()
    result["file_system"] = file_system(folder)
    result["load_average"] = os.getloadavg()[0]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--tmpfs", default="/dev/shm", help="a tmpfs for the second round of writes ('' skips it)")
    parser.add_argument("--out")
    arguments = parser.parse_args()
    raise_fd_limit()
    folder = tempfile.mkdtemp(prefix="mock-state-bench-")
    results = {"machine": f"{platform.machine()}, {os.cpu_count()} cores shared", "seconds": arguments.seconds,
               "rounds": arguments.rounds, "rows": arguments.rows, "load_average": os.getloadavg()[0]}
    try:
        results["file_system"] = file_system(folder)
        log("threads list: GET /api/threads, with and without --state")
        servers = {"without --state": Server(arguments.binary, ["--only", "threads"]),
                   "with --state": Server(arguments.binary, ["--only", "threads", "--state",
                                                            os.path.join(folder, "list.json")])}
        try:
            results["list"] = compare(servers, "/api/threads", arguments.seconds, arguments.rounds)
        finally:
            for server in servers.values():
                server.stop()
        results["list"]["load_average"] = os.getloadavg()[0]

        large = os.path.join(folder, "large.json")
        large_state(arguments.binary, arguments.rows, large)
        results["large_state_bytes"] = os.path.getsize(large)
        log(f"start-up with a state of {arguments.rows} messages ({results['large_state_bytes']} bytes), 5 times")
        results["startup"] = startups(arguments.binary, large, folder)
        # The same state after a crash: a log of 500 messages after the snapshot, appended to as it is.
        crashed = os.path.join(folder, "crashed.json")
        shutil.copyfile(large, crashed)
        server = Server(arguments.binary, ["--state", crashed])
        for index in range(500):
            request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/message/add",
                                             data=f"thread_id=2&message=logged+{index}".encode(),
                                             headers={"Content-Type": FORM, "Authorization": server.bearer.split(": ")[1]})
            urllib.request.urlopen(request, timeout=30).read()
        server.stop()
        results["startup_log_bytes"] = os.path.getsize(crashed) - os.path.getsize(large)
        log(f"start-up with that state and a log of 500 messages ({results['startup_log_bytes']} bytes) after kill -9")
        results["startup_after_crash"] = startups(arguments.binary, crashed, folder)
        small_start = Server(arguments.binary, ["--state", os.path.join(folder, "small-start.json")])
        small_start.stop()
        results["startup_small"] = {"wall_ms": small_start.startup_ms, "cpu_ms": small_start.startup_cpu_ms}

        script = os.path.join(folder, "add.lua")
        with open(script, "w") as file:
            file.write(ADD_SCRIPT)
        # Each write waits for the disk's flush, whose time swings on a shared disk: shorter runs,
        # more rounds.
        write_seconds, write_rounds = max(2, arguments.seconds // 2), arguments.rounds * 3
        log(f"POST /api/message/add: without --state, and with it on the shipped state and on {arguments.rows} rows "
            f"({results['file_system']})")
        results["add"] = writes(arguments.binary, folder, large, arguments.rows, write_seconds, write_rounds, script)
        if arguments.tmpfs:
            shm = tempfile.mkdtemp(prefix="mock-state-bench-", dir=arguments.tmpfs)
            try:
                log(f"the same with the state files on {file_system(shm)}")
                results["add_tmpfs"] = writes(arguments.binary, shm, large, arguments.rows, write_seconds,
                                              write_rounds, script)
            finally:
                shutil.rmtree(shm, ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if arguments.out:
        with open(arguments.out, "w") as file:
            json.dump(results, file, indent=2)
            file.write("\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
