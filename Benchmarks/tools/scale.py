#!/usr/bin/env python3
"""Scale benchmark: the same requests against mock-backend seeded small and large.

For each seed folder: start-up time to the first answer, RSS, and a short wrk run per request: one
read and one write about a single row in every API, and WSUV's date-filtered fetch. Those must not
slow down with the data; the rows marked as growing (a list of everything) may.
Called by Benchmarks/scale.sh after the release build and the seed folders are made.

    scale.py --binary PATH --small DIR --large DIR [--shipped DIR] [--seconds 5] [--rounds 2]

--shipped: the shipped seed folder, whose start-up is timed too (issue 31's floor: under 30 ms).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import re
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import log, memory_kb, parse_wrk, raise_fd_limit, status_of  # noqa: E402

# SCALE_PORT moves both servers (the port and the one after it), e.g. into a range of one's own.
PORTS = {"small": int(os.environ.get("SCALE_PORT", "18090")), "large": int(os.environ.get("SCALE_PORT", "18090")) + 1}
FORM = "application/x-www-form-urlencoded"
THREADS_LOGIN = b"email=a@a.com&password=test123"
WSUV_LOGIN = "/cgi-bin/login.cgi?username=alice&password=wonderland"
CSE118_LOGIN = b'{"email":"sslug@ucsc.edu","password":"1234567"}'
OTP_TOKEN = "seed_token_alex_rivera_000000001"
# wrk runs each script in one Lua state per thread; `setup` numbers the threads so that the names
# registered by two threads never collide.
SCRIPTS = {
    "threads_add": """
wrk.method = "POST"
wrk.body = "thread_id=2&message=a+message+from+wrk"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
""",
    "internproducts_register": """
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
local count = 0
function request()
  count = count + 1
  return wrk.format("GET", "/register?username=wrk" .. id .. "-" .. count .. "&password=pw")
end
""",
    "cse118_post": """
wrk.method = "POST"
wrk.body = '{"content":"a message from wrk"}'
wrk.headers["Content-Type"] = "application/json"
""",
    "otp_rename": """
wrk.method = "POST"
wrk.body = '{"name":"Alex Rivera"}'
wrk.headers["Content-Type"] = "application/json"
""",
    "otp_read": """
wrk.method = "POST"
wrk.body = '{}'
wrk.headers["Content-Type"] = "application/json"
""",
}


# Start-ups timed per seed (the median is reported): a few runs land on a busy moment of a shared machine.
STARTUP_RUNS = 9


def start(binary, seed, port, only=None):
    """Starts the server; returns (process, milliseconds from spawn to the first 200 answer, CPU
    milliseconds the process had used by then: on a busy machine the wall time also counts waiting)."""
    begin = time.perf_counter()
    command = [binary, "--host", "127.0.0.1", "--port", str(port), "--seed", seed, "--quiet"]
    process = subprocess.Popen(command + (["--only", only] if only else []),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while time.perf_counter() < begin + 60:
        if process.poll() is not None:
            raise RuntimeError(f"mock-backend exited: {process.stderr.read().decode()}")
        if status_of(port, "/_mock/health") == 200:
            return process, (time.perf_counter() - begin) * 1000, cpu_ms(process.pid)
        time.sleep(0.0005)
    raise RuntimeError("mock-backend did not answer within 60 s")


def cpu_ms(pid):
    """User plus system CPU time of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def stop(process, port):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        log("    mock-backend ignored SIGTERM; killing it")
        process.kill()
        process.wait()
    while status_of(port, "/_mock/health") is not None:
        time.sleep(0.05)


def fetch(port, target, data=None, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{target}", data=data, headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.read()


def wrk(process, port, target, headers, seconds, script=None):
    """One wrk run; with the server's CPU per answer (from /proc: on a shared machine, steadier
    than the rate, which also counts the cores other work took)."""
    command = ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", script]
    command.append(f"http://127.0.0.1:{port}{target}")
    before = cpu_ms(process.pid)
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result = parse_wrk(output)
    answered = int(re.search(r"(\d+) requests in", output).group(1))
    settle(process)
    result["cpu_us"] = (cpu_ms(process.pid) - before) * 1000 / answered if answered else 0
    return result


def settle(process):
    """Waits until the server has answered what wrk left queued (an 8 MB list takes a while): its
    CPU time stops growing. Otherwise the next run would measure the server still busy."""
    used = cpu_ms(process.pid)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = cpu_ms(process.pid)
        if now == used:
            return
        used = now


def requests(port, scripts, newest_seeded_stamp):
    """The measured requests for the server on `port`: (name, target, headers, wrk script, grows,
    reset). `grows` marks the rows whose answer itself grows with the data; `reset` names the API
    put back to its seed before each run of a write that would otherwise reach the API's cap
    (scale_seed.py leaves room below it; the seeded session used stays live)."""
    token = json.loads(fetch(port, "/api/login", THREADS_LOGIN, {"Content-Type": FORM}))["token"]
    session = json.loads(fetch(port, WSUV_LOGIN))["session_token"]
    cse118 = json.loads(fetch(port, "/api/v2/login", CSE118_LOGIN, {"Content-Type": "application/json"}))
    cse118_bearer = [f"Authorization: Bearer {cse118['accessToken']}"]
    workspace = json.loads(fetch(port, "/api/v2/workspace", headers={"Authorization": f"Bearer {cse118['accessToken']}"}))[0]
    channel = json.loads(fetch(port, f"/api/v2/workspace/{workspace['id']}/channel",
                               headers={"Authorization": f"Bearer {cse118['accessToken']}"}))[0]["id"]
    bearer = [f"Authorization: BEARER {token}"]
    add_tweet = "/cgi-bin/add-tweet.cgi?" + urllib.parse.urlencode(
        {"username": "alice", "session_token": session, "tweet": "a tweet from wrk"})
    # Reads first: each write run grows the data by a few hundred thousand rows.
    return [
        ("GET /_mock/health", "/_mock/health", [], None, False, None),
        ("threads: GET /api/messages/1 (5 messages)", "/api/messages/1", bearer, None, False, None),
        ("internproducts: GET /login", "/login?username=admin&password=1234", [], None, False, None),
        ("wsuv: GET login.cgi", WSUV_LOGIN, [], None, False, None),
        ("wsuv: GET get-tweets.cgi?date=(the 3 newest)",
         "/cgi-bin/get-tweets.cgi?" + urllib.parse.urlencode({"date": newest_seeded_stamp}), [], None, False, None),
        ("cse118: GET /channel/{id}/message", f"/api/v2/channel/{channel}/message", cse118_bearer, None, False, None),
        ("otp: POST /api/user (read)", "/api/user", [f"x-authtoken: {OTP_TOKEN}"], scripts["otp_read"], False, None),
        # A list read: every tweet, expected to grow with the data.
        ("wsuv: GET get-tweets.cgi (all)", "/cgi-bin/get-tweets.cgi", [], None, True, None),
        ("threads: POST /api/message/add", "/api/message/add", bearer, scripts["threads_add"], False, None),
        ("internproducts: GET /register", "/register", [], scripts["internproducts_register"], False, "internproducts"),
        ("wsuv: GET add-tweet.cgi", add_tweet, [], None, False, "wsuv"),
        ("cse118: POST /channel/{id}/message", f"/api/v2/channel/{channel}/message", cse118_bearer,
         scripts["cse118_post"], False, None),
        ("otp: POST /api/user (rename)", "/api/user", [f"x-authtoken: {OTP_TOKEN}"], scripts["otp_rename"], False, None),
    ]


def seed_mb(seed):
    """The size of a seed folder's JSON files."""
    return sum(os.path.getsize(os.path.join(seed, name)) for name in os.listdir(seed) if name.endswith(".json")) / 1e6


def startups(binary, seed, port):
    """Spawn to first answer, STARTUP_RUNS times: medians of the wall and CPU times and of the RSS
    then, and each run."""
    times, cpu, rss = [], [], []
    for _ in range(STARTUP_RUNS):
        process, milliseconds, used = start(binary, seed, port)
        times.append(milliseconds)
        cpu.append(used)
        rss.append(memory_kb([process.pid], "VmRSS") / 1024)
        stop(process, port)
    return {"startup_ms": statistics.median(times), "startup_cpu_ms": statistics.median(cpu),
            "idle_rss_mb": statistics.median(rss), "startup_runs": {"ms": times, "cpu_ms": cpu}, "seed_mb": seed_mb(seed)}


def measure_startups(binary, seeds, shipped, results):
    """The start-ups of every seed and each API's memory, into `results` (with the load average)."""
    results["startup_load_average"] = os.getloadavg()[0]
    # The seed folders may just have been written: their pages go to disk first, so that the
    # kernel's writing back does not run beside the start-ups being timed.
    os.sync()
    if shipped:
        results["shipped"] = startups(binary, shipped, PORTS["small"])
    for size, seed in seeds.items():
        results[size].update(startups(binary, seed, PORTS[size]))
    results["memory"] = memory_per_row(binary, seeds)


def measure(binary, seeds, seconds, rounds, scripts, stamps):
    """Both servers up, and each request run on both in turn for `rounds` rounds (medians), so a
    busy moment of the shared machine hits both sizes."""
    results = {size: {"runs": {}} for size in seeds}
    results["load_average"] = os.getloadavg()[0]
    processes = {}
    try:
        for size, seed in seeds.items():
            processes[size], *_ = start(binary, seed, PORTS[size])
        plans = {size: requests(PORTS[size], scripts, stamps[size]) for size in seeds}
        for index, (name, *_) in enumerate(plans["small"]):
            outcomes = {size: [] for size in seeds}
            for number in range(rounds):
                # Each round the other size goes first.
                for size in list(seeds)[::1 if number % 2 == 0 else -1]:
                    _, target, headers, lua, _, reset = plans[size][index]
                    if reset:
                        fetch(PORTS[size], f"/_mock/reset/{reset}", b"")
                    outcomes[size].append(wrk(processes[size], PORTS[size], target, headers, seconds, lua))
            for size in seeds:
                runs = outcomes[size]
                summary = {key: statistics.median(run[key] for run in runs) for key in ("rps", "p99_ms", "cpu_us")}
                summary["non_2xx"] = sum(run["non_2xx"] for run in runs)
                summary["grows"] = plans[size][index][4]
                results[size]["runs"][name] = summary
                log(f"    {size:5s} {name:38s} {summary['rps']:10.0f} req/s  p99 {summary['p99_ms']:.2f} ms  "
                    f"{summary['cpu_us']:.1f} µs CPU  non-2xx {summary['non_2xx']}")
            # The two sizes of one round ran back to back, so a busy spell of the machine hits both:
            # the median of the rounds' ratios is steadier than the ratio of the medians.
            results["large"]["runs"][name]["ratio"] = statistics.median(
                large["rps"] / small["rps"] if small["rps"] else 0
                for small, large in zip(outcomes["small"], outcomes["large"]))
            results["large"]["runs"][name]["cpu_ratio"] = statistics.median(
                large["cpu_us"] / small["cpu_us"] if small["cpu_us"] else 0
                for small, large in zip(outcomes["small"], outcomes["large"]))
        for size in seeds:
            results[size]["peak_rss_mb"] = memory_kb([processes[size].pid], "VmHWM") / 1024
    finally:
        for size, process in processes.items():
            stop(process, PORTS[size])
    results["load_average_end"] = os.getloadavg()[0]
    return results


APIS = ["threads", "internproducts", "wsuv", "cse118", "otp"]


def stored_rows(seed, api):
    """Rows in an API's seed file: every object that is an element of a list, nested ones included."""
    def count(value):
        if isinstance(value, list):
            return sum(isinstance(item, dict) + count(item) for item in value)
        if isinstance(value, dict):
            return sum(count(item) for item in value.values())
        return 0
    with open(os.path.join(seed, f"{api}.json")) as file:
        return count(json.load(file))


def memory_per_row(binary, seeds):
    """Each API alone (`--only`), small and large: RSS after start, the difference per extra stored
    row, and the CPU to the first answer on the large seed (median of 3)."""
    results = {}
    for api in APIS:
        rss, rows, cpu = {}, {}, []
        for size, seed in seeds.items():
            for _ in range(3 if size == "large" else 1):
                process, _, used = start(binary, seed, PORTS[size], only=api)
                rss[size] = memory_kb([process.pid], "VmRSS") / 1024
                stop(process, PORTS[size])
                if size == "large":
                    cpu.append(used)
            rows[size] = stored_rows(seed, api)
        results[api] = {"rows": rows, "rss_mb": rss, "startup_cpu_ms": statistics.median(cpu),
                        "bytes_per_row": (rss["large"] - rss["small"]) * 1024 * 1024 / (rows["large"] - rows["small"])}
        log(f"    {api:15s} {rows['large']:8d} rows  {rss['large']:7.1f} MB  {results[api]['bytes_per_row']:6.0f} B/row  "
            f"start-up CPU {results[api]['startup_cpu_ms']:.0f} ms")
    return results


def memory_table(results):
    lines = ["| API | rows (large seed) | RSS, 10 rows | RSS, large | bytes per extra row | start-up CPU, large |",
             "|---|---:|---:|---:|---:|---:|"]
    for api, entry in results.items():
        cpu = f"{entry['startup_cpu_ms']:,.0f} ms" if "startup_cpu_ms" in entry else "–"
        lines.append(f"| {api} | {entry['rows']['large']:,} | {entry['rss_mb']['small']:.1f} MB | "
                     f"{entry['rss_mb']['large']:.1f} MB | {entry['bytes_per_row']:,.0f} | {cpu} |")
    return "\n".join(lines)


def newest_stamps(seed, count):
    """The stamp of the tweet `count` places before the newest in the seed's wsuv.json."""
    with open(os.path.join(seed, "wsuv.json")) as file:
        stamps = sorted(tweet["time_stamp"] for tweet in json.load(file)["tweets"])
    return stamps[-count - 1]


def markdown_table(results):
    """The results as a Markdown table: small, large and their ratio per measure."""
    small, large = results["small"], results["large"]
    lines = ["| measure | 10 rows | 100,000 rows | large / small (median of the rounds) | server CPU µs per answer, small → large (large / small) |",
             "|---|---:|---:|---:|---:|"]
    for name in small["runs"]:
        a, b = small["runs"][name], large["runs"][name]
        note = " (answer grows with the data)" if a.get("grows") else ""
        refused = "".join(f" ({run['non_2xx']:,} answers not 2xx with {label} rows)" for label, run in (("10", a), ("100,000", b))
                          if run["non_2xx"])
        cpu = f"{a['cpu_us']:,.1f} → {b['cpu_us']:,.1f} ({b['cpu_ratio']:.2f})" if "cpu_ratio" in b else "–"
        lines.append(f"| {name}{note}{refused}: req/s (p99 ms) | {a['rps']:,.0f} ({a['p99_ms']:.2f}) | "
                     f"{b['rps']:,.0f} ({b['p99_ms']:.2f}) | {b.get('ratio', b['rps'] / a['rps']):.2f} | {cpu} |")
    for key, label in (("startup_ms", "start-up to first answer, ms"), ("startup_cpu_ms", "CPU used by then, ms"),
                       ("idle_rss_mb", "RSS after start, MB"), ("peak_rss_mb", "peak RSS at the end, MB")):
        ratio = f"{large[key] / small[key]:.2f}" if small[key] else "—"
        lines.append(f"| {label} | {small[key]:,.1f} | {large[key]:,.1f} | {ratio} | |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--small", required=True)
    parser.add_argument("--large", required=True)
    parser.add_argument("--shipped")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--startup-only", action="store_true",
                        help="time the start-ups and each API's memory again into --out, keeping its request runs")
    args = parser.parse_args()
    raise_fd_limit()
    scripts = {}
    for name, text in SCRIPTS.items():
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
            file.write(text)
            scripts[name] = file.name
    # The newest seeded tweet's stamp minus 3 tweets: the date a client holding all but those sends.
    stamps = {size: newest_stamps(seed, 3) for size, seed in (("small", args.small), ("large", args.large))}
    seeds = {"small": args.small, "large": args.large}
    try:
        if args.startup_only:
            with open(args.out) as file:
                results = json.load(file)
        else:
            results = measure(args.binary, seeds, args.seconds, args.rounds, scripts, stamps)
        measure_startups(args.binary, seeds, args.shipped, results)
    finally:
        for path in scripts.values():
            os.unlink(path)
    if args.out:
        with open(args.out, "w") as file:
            json.dump(results, file, indent=2)
            file.write("\n")

    print(markdown_table(results))
    print()
    print(memory_table(results["memory"]))

if __name__ == "__main__":
    main()
