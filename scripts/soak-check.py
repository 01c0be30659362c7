#!/usr/bin/env python3
"""Checks what scripts/soak.sh left in its work directory; prints the summary and PASS or FAIL.

Usage: soak-check.py WORKDIR RSS_WARM_KIB RSS_END_KIB
WORKDIR holds wrk.txt (with the SOAK lines of soak.lua's done()), acks.txt, failures.txt,
rss.txt and the state exports {before,warm,after}-<api>.json.
"""
import collections
import json
import os
import re
import sys

SLACK_KIB = 16 * 1024
PER_RECORD_KIB = 2

work, rss_warm, rss_end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
problems = []


def state(phase, api):
    with open(os.path.join(work, f"{phase}-{api}.json")) as file:
        return json.load(file)


def duplicates(values):
    return [value for value, count in collections.Counter(values).items() if count > 1]


# Each API's records and ids, from its exported state: {kind: [ids]}.
def records(api, document):
    if api == "threads":
        return {"thread": [t["thread_id"] for t in document["threads"]],
                "message": [m["message_id"] for m in document["messages"]],
                "user_id": [u["user_id"] for u in document["users"]]}
    if api == "otp":
        users = document["users"]
        return {"user": [u["e164_phone_number"] for u in users], "user_id": [u["user_id"] for u in users],
                "token": [t for u in users for t in u.get("auth_tokens", [])]}
    if api == "wsuv":
        return {"tweet": [t["tweet"] for t in document["tweets"] if t["tweet"].startswith("soak-")],
                "tweet_id": [t["tweet_id"] for t in document["tweets"]],
                "username": [u["username"] for u in document["users"]]}
    if api == "internproducts":
        return {"user": [u["username"] for u in document["users"]]}
    if api == "cse118":
        workspaces = document["workspaces"]
        channels = [c for w in workspaces for c in w["channels"]]
        messages = [m for c in channels for m in c["messages"]]
        # One id space: a UUID must not name two things of any kind.
        every_id = [m["id"] for m in document["members"]] + [w["id"] for w in workspaces] + \
                   [c["id"] for c in channels] + [m["id"] for m in messages]
        return {"message": [m["id"] for m in messages], "id": every_id,
                "token": [t["token"] for t in document.get("tokens", [])]}
    raise ValueError(api)


# What the run added: the record kinds the writes create.
ADDED = {"threads": ["thread", "message"], "otp": ["user"], "wsuv": ["tweet"], "internproducts": ["user"],
         "cse118": ["message"]}


def count_added(phase):
    return sum(len(records(api, state(phase, api))[kind]) for api, kinds in ADDED.items() for kind in kinds)


# 1. Failures.
with open(os.path.join(work, "wrk.txt")) as file:
    wrk = file.read()
summary = re.search(r"^SOAK requests=(\d+) non2xx=(\d+) connect=(\d+) read=(\d+) write=(\d+) timeout=(\d+) "
                    r"failed_checks=(\d+)$", wrk, re.M)
if not summary:
    print(wrk)
    sys.exit("FAIL: no SOAK summary from wrk")
requests, non2xx, connect, read, write, timeout, failed_checks = map(int, summary.groups())
for name, count in [("non-2xx answers", non2xx), ("connect errors", connect), ("read errors", read),
                    ("write errors", write), ("timeouts", timeout), ("answers that failed their check", failed_checks)]:
    if count:
        problems.append(f"{count} {name}")
with open(os.path.join(work, "failures.txt")) as file:
    for line in file:
        print("  failure sample:", line.rstrip()[:200])

# 2. Every acknowledged write is visible; nothing beyond what was sent was added.
writes = {m.group(1): (int(m.group(2)), int(m.group(3)))
          for m in re.finditer(r"^SOAK_WRITES (\w+) sent=(\d+) acked=(\d+)$", wrk, re.M)}
acks = collections.defaultdict(list)
with open(os.path.join(work, "acks.txt")) as file:
    for line in file:
        api, kind, ident = line.split(" ", 2)
        acks[(api, kind)].append(ident.rstrip("\n"))

print(f"{'api':<15} {'sent':>8} {'acked':>8} {'added':>8}  ids checked")
for api, kinds in ADDED.items():
    before, after = records(api, state("before", api)), records(api, state("after", api))
    sent, acked = writes.get(api, (0, 0))
    added = sum(len(after[kind]) - len(before[kind]) for kind in kinds)
    missing = 0
    for kind in kinds:
        present = {str(ident) for ident in after[kind]}
        missing += sum(1 for ident in acks[(api, kind)] if ident not in present)
    if acked != sum(len(acks[(api, kind)]) for kind in kinds):
        problems.append(f"{api}: wrk counted {acked} acknowledged writes, the ack files hold another number")
    if missing:
        problems.append(f"{api}: {missing} acknowledged writes are not in the state")
    if not acked <= added <= sent:
        problems.append(f"{api}: {added} records added for {acked} acknowledged of {sent} sent writes")
    if acked == 0:
        problems.append(f"{api}: no write was acknowledged")
    # 3. Unique ids, every id list of the API.
    for kind, values in after.items():
        repeated = duplicates(values)
        if repeated:
            problems.append(f"{api}: {len(repeated)} duplicate {kind} values, e.g. {repeated[:3]}")
    print(f"{api:<15} {sent:>8} {acked:>8} {added:>8}  {', '.join(after)}")

# 4. RSS after warm-up.
records_after_warmup = count_added("after") - count_added("warm")
allowed = SLACK_KIB + PER_RECORD_KIB * records_after_warmup
growth = rss_end - rss_warm
with open(os.path.join(work, "rss.txt")) as file:
    samples = [int(line.split()[1]) for line in file if len(line.split()) == 2]
requests_per_record = requests / max(1, count_added("after") - count_added("before"))
print(f"requests {requests} ({requests_per_record:.0f} per record added), "
      f"RSS at warm-up {rss_warm / 1024:.1f} MiB, at the end {rss_end / 1024:.1f} MiB, "
      f"peak sample {max(samples, default=0) / 1024:.1f} MiB")
print(f"RSS growth after warm-up {growth / 1024:.1f} MiB for {records_after_warmup} records "
      f"({growth * 1024 / max(1, records_after_warmup):.0f} bytes/record); allowed {allowed / 1024:.1f} MiB "
      f"(16 MiB + 2 KiB/record)")
if growth > allowed:
    problems.append(f"RSS grew {growth} KiB after warm-up, more than the {allowed} KiB allowed")

for line in re.findall(r"^SOAK_LATENCY .*$", wrk, re.M):
    print(line.replace("SOAK_LATENCY ", "latency "))
if problems:
    for problem in problems:
        print("FAIL:", problem)
    print("FAIL")
    sys.exit(1)
print(f"PASS: {requests} requests, 0 failed; every acknowledged write visible; ids unique; RSS within bound")
