#!/usr/bin/env python3
"""kill -9 during a burst of writes, over and over: no acknowledged write is lost, none shows half.

Each cycle starts mock-backend with --state on the file the last cycle left, lets four writers
sign up, add threads and messages, delete some of each (a thread deleted with its messages is one
change of several rows), kills the server with SIGKILL at a random moment, restarts it and checks
the state it reloaded:
  - every acknowledged sign-up, thread and message is there, unless an acknowledged delete took it;
  - every acknowledged delete stuck;
  - nothing is half done: every message's thread and user exist, every thread's user exists, and
    the id counters are above every id.
Writes in flight when the kill came may be there or not; both are right.

    scripts/state-kill-test.py [--attack kill|read-only|deleted-folder] [--cycles 300]
                               [--binary .build/debug/mock-backend]
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time


def start(binary, state):
    server = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--state", state, "--only", "threads",
                               "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    marker = "listening on 127.0.0.1:"
    output = []
    for line in server.stdout:
        output.append(line)
        if marker in line:
            port = int(line.split(marker)[1].split()[0].rstrip(","))
            # Keep reading what it prints so the pipe never fills.
            threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
            return server, port
    raise SystemExit("the server did not start:\n" + "".join(output))


class Client:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(self, method, path, body="", token=None):
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.connection.request(method, path, body=body, headers=headers)
        answer = self.connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")


def writer(port, name, acknowledged, stop):
    """Writes until the server dies; records only what was answered 200."""
    try:
        client = Client(port)
        status, body = client.call("POST", "/api/signup", f"email={name}@kill.test&password=p&fname=K&lname=L")
        if status != 200:
            return
        acknowledged.append(("user", name))
        token = body["token"]
        while not stop.is_set():
            status, body = client.call("POST", "/api/thread/add", f"title={name}", token)
            if status != 200:
                return
            thread = body["thread"]["thread_id"]
            acknowledged.append(("thread", thread))
            messages = []
            for index in range(random.randint(1, 3)):
                status, body = client.call("POST", "/api/message/add", f"thread_id={thread}&message=m{index}", token)
                if status != 200:
                    return
                messages.append(body["message"]["message_id"])
                acknowledged.append(("message", messages[-1], thread))
            # A delete is noted before it is sent: one in flight at the kill may or may not be done.
            if random.random() < 0.3:
                acknowledged.append(("message delete sent", messages[0]))
                status, _ = client.call("POST", f"/api/message/delete/{messages[0]}", "", token)
                if status != 200:
                    return
                acknowledged.append(("message deleted", messages[0]))
            if random.random() < 0.3:
                acknowledged.append(("thread delete sent", thread))
                status, _ = client.call("POST", f"/api/thread/delete/{thread}", "", token)
                if status != 200:
                    return
                acknowledged.append(("thread deleted", thread))
    except (OSError, http.client.HTTPException, ValueError):
        return


def check(state, acknowledged):
    """The problems with a reloaded state, as sentences."""
    users = {user["email"]: user["user_id"] for user in state["users"]}
    user_ids = set(users.values())
    threads = {thread["thread_id"]: thread for thread in state["threads"]}
    messages = {message["message_id"]: message for message in state["messages"]}
    problems = []
    deleted_threads = {entry[1] for entry in acknowledged if entry[0] == "thread delete sent"}
    deleted_messages = {entry[1] for entry in acknowledged if entry[0] == "message delete sent"}
    for entry in acknowledged:
        kind = entry[0]
        if kind == "user" and f"{entry[1]}@kill.test" not in users:
            problems.append(f"acknowledged sign-up {entry[1]} lost")
        elif kind == "thread" and entry[1] not in deleted_threads and entry[1] not in threads:
            problems.append(f"acknowledged thread {entry[1]} lost")
        elif kind == "message" and entry[1] not in deleted_messages and entry[2] not in deleted_threads \
                and entry[1] not in messages:
            problems.append(f"acknowledged message {entry[1]} lost")
        elif kind == "thread deleted" and entry[1] in threads:
            problems.append(f"acknowledged delete of thread {entry[1]} undone")
        elif kind == "message deleted" and entry[1] in messages:
            problems.append(f"acknowledged delete of message {entry[1]} undone")
    for message in messages.values():
        if message["thread_id"] not in threads:
            problems.append(f"half a change: message {message['message_id']} outlived thread {message['thread_id']}")
        if message["user_id"] not in user_ids:
            problems.append(f"half a change: message {message['message_id']} of a missing user")
    for thread in threads.values():
        if thread["user_id"] not in user_ids:
            problems.append(f"half a change: thread {thread['thread_id']} of a missing user")
    counters = state["next_ids"]
    for name, ids in (("user", user_ids), ("thread", threads), ("message", messages)):
        if ids and counters[name] <= max(ids):
            problems.append(f"next_ids.{name} {counters[name]} is not above {max(ids)}")
    return problems


def burst(port, cycle, seconds, attack=None):
    """Four writers for `seconds`, then `attack()` while they go on, then stop; what they were told."""
    acknowledged, stop = [], threading.Event()
    writers = [threading.Thread(target=writer, args=(port, f"c{cycle}w{index}", acknowledged, stop))
               for index in range(4)]
    for thread in writers:
        thread.start()
    time.sleep(seconds)
    outcome = attack() if attack else None
    return acknowledged, stop, writers, outcome


def finish(server, stop, writers):
    server.send_signal(signal.SIGKILL)
    server.wait()
    stop.set()
    for thread in writers:
        thread.join()


def reloaded_problems(binary, state_file, acknowledged):
    server, port = start(binary, state_file)
    try:
        status, state = Client(port).call("GET", "/_mock/state/threads")
    finally:
        server.kill()
        server.wait()
    return check(state, acknowledged) if status == 200 else [f"GET /_mock/state/threads answered {status}"]


def counted(acknowledged):
    return sum(1 for entry in acknowledged if "sent" not in entry[0])


def kill_cycles(arguments):
    """kill -9 at a random moment, over and over on one file."""
    folder = tempfile.mkdtemp(prefix="state-kill-")
    state_file = os.path.join(folder, "state.json")
    checked = 0
    started = time.monotonic()
    for cycle in range(arguments.cycles):
        server, port = start(arguments.binary, state_file)
        acknowledged, stop, writers, _ = burst(port, cycle, random.uniform(0.01, arguments.max_delay))
        finish(server, stop, writers)
        problems = reloaded_problems(arguments.binary, state_file, acknowledged)
        checked += counted(acknowledged)
        if problems:
            return report_failure(cycle, problems, state_file)
    size = os.path.getsize(state_file)
    print(f"{arguments.cycles} kill -9 cycles in {time.monotonic() - started:.0f} s: {checked} acknowledged writes "
          f"checked, none lost, none half done; the state file ends at {size} bytes")
    shutil.rmtree(folder)  # kept only when a cycle fails
    return 0


def report_failure(cycle, problems, state_file):
    print(f"cycle {cycle}: " + "; ".join(problems[:10]), file=sys.stderr)
    print(f"state file kept in {state_file}", file=sys.stderr)
    return 1


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def remount_checked(device, mount):
    """Unmounts the flipped file system, repairs it and mounts it writable again (the journal
    replayed, as after a reboot)."""
    for _ in range(50):
        if run(["umount", mount]).returncode == 0 or not os.path.ismount(mount):
            break
        time.sleep(0.1)
    check = run(["e2fsck", "-fy", device])
    if check.returncode >= 4:
        check = run(["e2fsck", "-fy", device])
    mounted = run(["mount", "-o", "rw", device, mount])
    with open("/proc/mounts") as mounts:
        options = next((line.split()[3] for line in mounts if line.split()[1] == mount), "")
    if mounted.returncode != 0 or not options.startswith("rw"):
        raise SystemExit(f"cannot mount {device} writable again ({options}): {mounted.stdout}{check.stdout}")


def read_only_cycles(arguments):
    """ext4 on a loop device mounted errors=remount-ro: an error flips it read-only under the
    writers; then kill -9, the file system checked and mounted again, and every write acknowledged
    before or after the flip must be in the file."""
    if os.geteuid() != 0 or run(["losetup", "--version"]).returncode != 0:
        print("skipped: the read-only attack needs root and losetup")
        return 0
    work = tempfile.mkdtemp(prefix="state-ro-")
    image, mount = os.path.join(work, "disk.img"), os.path.join(work, "mnt")
    os.mkdir(mount)
    with open(image, "wb") as handle:
        handle.truncate(32 << 20)
    if run(["mkfs.ext4", "-q", "-F", image]).returncode != 0:
        print("skipped: mkfs.ext4 failed")
        return 0
    loop = run(["losetup", "-f", "--show", image])
    if loop.returncode != 0:
        print("skipped: no loop device here: " + loop.stdout.strip())
        return 0
    device = loop.stdout.strip()
    state_file = os.path.join(mount, "state.json")
    checked, after_flip, losses = 0, 0, 0
    try:
        for cycle in range(arguments.cycles):
            if run(["mount", "-o", "errors=remount-ro", device, mount]).returncode != 0:
                print("skipped: cannot mount the loop device")
                return 0
            server, port = start(arguments.binary, state_file)
            flipped = []

            def flip():
                with open(f"/sys/fs/ext4/{os.path.basename(device)}/trigger_fs_error", "w") as trigger:
                    trigger.write("state-kill-test")
                flipped.append(time.monotonic())

            acknowledged, stop, writers, _ = burst(port, cycle, random.uniform(0.05, arguments.max_delay), flip)
            time.sleep(0.3)
            health = Client(port).call("GET", "/_mock/health")[0]
            finish(server, stop, writers)
            remount_checked(device, mount)
            problems = reloaded_problems(arguments.binary, state_file, acknowledged)
            if health != 503:
                problems.append(f"/_mock/health answered {health} after the flip, not 503")
            checked += counted(acknowledged)
            if problems:
                losses += 1
                print(f"cycle {cycle}: " + "; ".join(problems[:10]), file=sys.stderr)
            os.remove(state_file)
            run(["umount", mount])
    finally:
        run(["umount", mount])
        run(["losetup", "-d", device])
    if not losses:
        shutil.rmtree(work)  # the disk image (32 MiB), kept when a cycle had a problem
    print(f"{arguments.cycles} read-only flips: {checked} acknowledged writes checked, "
          f"{losses} cycles with a problem")
    return 1 if losses else 0


def deleted_folder_cycles(arguments):
    """The state's folder deleted under four writers: writes are refused from then on (each writer
    stops at its first refusal; a write in flight may still be acknowledged), health answers 503;
    the folder made again, the server writes its whole state anew (health 200 again); more writes,
    kill -9, and every write acknowledged before the deletion or after the return is in the file."""
    root = tempfile.mkdtemp(prefix="state-deleted-")
    folder = os.path.join(root, "data")
    state_file = os.path.join(folder, "state.json")
    checked, acknowledged_after = 0, []
    for cycle in range(arguments.cycles):
        os.makedirs(folder, exist_ok=True)
        server, port = start(arguments.binary, state_file)
        acknowledged, stop, writers, _ = burst(port, cycle, random.uniform(0.05, arguments.max_delay),
                                                lambda: shutil.rmtree(folder))
        at_deletion = counted(acknowledged)
        time.sleep(0.3)
        problems = []
        health = Client(port).call("GET", "/_mock/health")[0]
        if health != 503:
            problems.append(f"/_mock/health answered {health} with the folder gone, not 503")
        acknowledged_after.append(counted(acknowledged) - at_deletion)
        stop.set()
        for thread in writers:
            thread.join()
        os.makedirs(folder)
        for _ in range(50):
            if Client(port).call("GET", "/_mock/health")[0] == 200:
                break
            time.sleep(0.1)
        else:
            problems.append("/_mock/health not 200 within 5 s of the folder's return")
        more, stop, writers, _ = burst(port, f"{cycle}r", 0.2)
        finish(server, stop, writers)
        problems += reloaded_problems(arguments.binary, state_file, acknowledged + more)
        checked += counted(acknowledged) + counted(more)
        if problems:
            return report_failure(cycle, problems, state_file)
        shutil.rmtree(folder)
    os.rmdir(root)
    print(f"{arguments.cycles} folder deletions: {checked} acknowledged writes checked, none lost; acknowledged "
          f"after the deletion (in flight when it came): at most {max(acknowledged_after)} per cycle, "
          f"{sum(acknowledged_after)} in all")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attack", choices=["kill", "read-only", "deleted-folder"], default="kill")
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--binary", default=".build/debug/mock-backend")
    parser.add_argument("--max-delay", type=float, default=0.4, help="longest burst before the attack, in seconds")
    arguments = parser.parse_args()
    attacks = {"kill": kill_cycles, "read-only": read_only_cycles, "deleted-folder": deleted_folder_cycles}
    return attacks[arguments.attack](arguments)


if __name__ == "__main__":
    sys.exit(main())
