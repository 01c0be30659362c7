#!/usr/bin/env python3
"""Writes a seed folder for the scale benchmark: a copy of Seed/ in which every table of every API
holds COUNT rows (InternProducts' products stay as shipped: a fixed catalogue, not a table that grows).

The rows the benchmark asks about are the same at every size, so only the table around them grows:
- threads: COUNT users, threads and messages; thread 1 always has the same 5 messages.
- wsuv: COUNT users and tweets, stamped one second apart from 2016-01-01 (older than any new one);
  alice, whose session the benchmark uses, keeps one token across resets.
- cse118: COUNT members, each with a workspace of one channel holding one message (COUNT of each);
  the shipped members, workspaces (the per-student fixture copies) and tokens come first.
- otp and internproducts: COUNT users, each with a token.
The two tables a measured write fills and whose APIs take at most 100,000 rows from clients, seeded
ones included (InternProducts' users and WSUV's tweets, docs/apis/<api>.md "Size limits"), stop
WRITE_ROOM rows short of that, so that a write run inserts rows instead of being refused.

    scale_seed.py SEED_DIR OUT_DIR COUNT
"""
import json
import os
import shutil
import sys

SMALL_THREAD_MESSAGES = 5
ROW_CAP = 100_000
WRITE_ROOM = 40_000
ALICE_SESSION = "5ca1e" + "0" * 35


def below_cap(count):
    """`count`, or fewer when a write run needs room below the API's cap."""
    return min(count, ROW_CAP - WRITE_ROOM)


def stamp(n):
    """A valid `YYYY-MM-DD HH:MM:SS`, one second apart per n, starting 2016-01-01."""
    day, second = divmod(n, 86400)
    month, day = divmod(day, 28)
    return f"{2016 + month // 12}-{month % 12 + 1:02d}-{day + 1:02d} " \
           f"{second // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}"


def extra(shipped, count):
    """How many generated rows join the shipped ones to make `count`."""
    return max(0, count - len(shipped))


def threads_document(shipped, count):
    users = shipped["users"] + [
        {"user_id": 1000 + n, "email": f"user{n}@scale.test", "password": "test123", "fname": "Scale",
         "lname": f"User {n}", "role": "USER"} for n in range(extra(shipped["users"], count))]
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
    users = [dict(user, session_token=ALICE_SESSION) if user["username"] == "alice" else user for user in shipped["users"]]
    users += [{"username": f"user {n}", "password": "pw", "session_token": "0"} for n in range(extra(shipped["users"], count))]
    tweets = [{"tweet_id": n, "username": users[n % len(users)]["username"], "time_stamp": stamp(n),
               "tweet": f"Tweet {n} of the scale seed", "isdeleted": 0} for n in range(1, below_cap(count) + 1)]
    return {"users": users, "tweets": tweets}


def uuid(kind, n):
    return f"{kind:08x}-0000-4000-8000-{n:012x}"


def cse118_document(shipped, count):
    members = list(shipped["members"])
    workspaces = list(shipped["workspaces"])
    for n in range(extra(shipped["members"], count)):
        member = uuid(1, n)
        members.append({"id": member, "name": f"Student {n}", "email": f"student{n}@scale.test",
                        "password": "pw"})
        workspaces.append({"id": uuid(2, n), "name": f"Workspace {n}", "owner": member, "fixtureOf": None,
                           "members": [], "channels": [{"id": uuid(3, n), "name": f"Channel {n}", "messages": [
                               {"id": uuid(4, n), "member": member, "posted": "2023-05-01T12:18:48.000Z",
                                "content": f"Message {n}"}]}]})
    return {"members": members, "workspaces": workspaces, "tokens": shipped.get("tokens", [])}


def padded(prefix, n, length):
    return prefix + str(n).rjust(length - len(prefix), "0")


def otp_document(shipped, count):
    users = shipped["users"] + [
        {"user_id": padded("scale", n, 24), "e164_phone_number": f"+1530{2000000 + n}", "name": f"User {n}",
         "keyfile_password": padded("key", n, 32), "auth_tokens": [padded("token", n, 32)]}
        for n in range(extra(shipped["users"], count))]
    return {"users": users}


def internproducts_document(shipped, count):
    users = shipped["users"] + [
        {"username": f"user{n}", "password": "pw", "loginToken": f"{700000000 + n}.000001"}
        for n in range(extra(shipped["users"], below_cap(count)))]
    return {"users": users, "products": shipped["products"]}


DOCUMENTS = {"threads.json": threads_document, "wsuv.json": wsuv_document, "cse118.json": cse118_document,
             "otp.json": otp_document, "internproducts.json": internproducts_document}


def main():
    seed_dir, out_dir, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.copytree(seed_dir, out_dir)
    for name, make in DOCUMENTS.items():
        with open(os.path.join(seed_dir, name)) as file:
            document = make(json.load(file), count)
        with open(os.path.join(out_dir, name), "w") as file:
            json.dump(document, file, separators=(",", ":"), ensure_ascii=False)


if __name__ == "__main__":
    main()
