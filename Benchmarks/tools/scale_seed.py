#!/usr/bin/env python3
"""Writes a seed folder for the scale benchmark: a copy of Seed/ whose threads.json holds COUNT
threads and COUNT messages and whose wsuv.json holds COUNT tweets, users as shipped.

Thread 1 always has the same 5 messages, so "one small thread's messages" is the same answer at
every size; the other messages go round-robin over the other threads.

    scale_seed.py SEED_DIR OUT_DIR COUNT
"""
import json
import os
import shutil
import sys

SMALL_THREAD_MESSAGES = 5


def stamp(n):
    """A valid `YYYY-MM-DD HH:MM:SS`, one second apart per n, starting 2019-01-01."""
    day, second = divmod(n, 86400)
    month, day = divmod(day, 28)
    return f"{2019 + month // 12}-{month % 12 + 1:02d}-{day + 1:02d} " \
           f"{second // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}"


def threads_document(shipped, count):
    users = shipped["users"]
    user_ids = [user["user_id"] for user in users]
    threads = [{"thread_id": n, "user_id": user_ids[n % len(user_ids)], "title": f"Thread {n}",
                "created_at": stamp(n)} for n in range(1, count + 1)]
    messages = []
    for n in range(1, count + 1):
        if n <= SMALL_THREAD_MESSAGES or count < 2:
            thread_id = 1
        else:
            thread_id = 2 + (n - SMALL_THREAD_MESSAGES - 1) % (count - 1)
        messages.append({"message_id": n, "thread_id": thread_id, "user_id": user_ids[n % len(user_ids)],
                         "message": f"Message {n} of the scale seed", "created_at": stamp(n)})
    return {"users": users, "threads": threads, "messages": messages, "tokens": []}


def wsuv_document(shipped, count):
    users = shipped["users"]
    tweets = [{"tweet_id": n, "username": users[n % len(users)]["username"], "time_stamp": stamp(n),
               "tweet": f"Tweet {n} of the scale seed", "isdeleted": 0} for n in range(1, count + 1)]
    return {"users": users, "tweets": tweets}


def main():
    seed_dir, out_dir, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.copytree(seed_dir, out_dir)
    with open(os.path.join(seed_dir, "threads.json")) as file:
        threads = threads_document(json.load(file), count)
    with open(os.path.join(seed_dir, "wsuv.json")) as file:
        wsuv = wsuv_document(json.load(file), count)
    for name, document in (("threads.json", threads), ("wsuv.json", wsuv)):
        with open(os.path.join(out_dir, name), "w") as file:
            json.dump(document, file, separators=(",", ":"))


if __name__ == "__main__":
    main()
