#!/usr/bin/env python3
"""Slow readers of large answers: a client stores --items texts of --mib MiB (WSUV tweets, or
threads messages in one thread), then many connections from 127.0.0.1 each ask once for the whole
list (get-tweets.cgi, or GET /api/messages/{id}) and never read the answer, while a second client
(127.0.0.2) asks GET /_mock/health every 0.1 s. The server runs under an address-space limit.
Prints how the requests were answered, the second client's outage, the peak RSS and whether the
server survived; exits 1 if it died, did not serve the second client at the end, or the outage
passed --max-outage.

    scripts/attack-slow-readers.py BINARY [--api wsuv|threads] [--connections 60] [--items 20] [--mib 1]
                                          [--address-space-mib 1024] [--max-outage SECONDS] [-- SERVER-FLAGS…]
"""
import collections, json, os, socket, sys, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def call(port, method, path, body=None, headers=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body and body.encode(), method=method,
                                     headers={**FORM, **(headers or {})})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def store_wsuv(port, items, text):
    """Tweets as alice (seeded); returns the request that lists them."""
    token = call(port, "POST", "/cgi-bin/login.cgi", "username=alice&password=wonderland")["session_token"]
    for _ in range(items):
        call(port, "POST", "/cgi-bin/add-tweet.cgi", f"username=alice&session_token={token}&tweet={text}")
    return b"GET /cgi-bin/get-tweets.cgi HTTP/1.1\r\nHost: x\r\n\r\n"


def store_threads(port, items, text):
    """Messages of a new user in a new thread; returns the request that lists them."""
    token = call(port, "POST", "/api/signup", "email=reader@example.com&password=p&fname=R&lname=S")["token"]
    auth = {"Authorization": f"BEARER {token}"}
    thread = call(port, "POST", "/api/thread/add", "title=big", auth)["thread"]["thread_id"]
    for _ in range(items):
        call(port, "POST", "/api/message/add", f"thread_id={thread}&message={text}", auth)
    return f"GET /api/messages/{thread} HTTP/1.1\r\nHost: x\r\nAuthorization: BEARER {token}\r\n\r\n".encode()


def main():
    args = arguments(connections=60, more=[("--api", str, "wsuv"), ("--items", int, 20), ("--mib", int, 1),
                                           ("--address-space-mib", int, 1024)])
    store = {"wsuv": store_wsuv, "threads": store_threads}[args.api]

    def attack(server, held):
        request = store(server.port, args.items, "a" * (args.mib << 20))
        for _ in range(args.connections):
            try:
                client = socket.create_connection(("127.0.0.1", server.port), timeout=30)
                client.sendall(request)
                held.append(client)
            except OSError:
                break
        # The first bytes of each answer say how it was answered; the rest stays unread.
        outcomes = collections.Counter()
        for client in held:
            try:
                outcomes[client.recv(12)[9:12].decode() or "closed"] += 1
            except OSError as error:
                outcomes[type(error).__name__] += 1
        time.sleep(2)
        return (f"{args.items} {args.api} texts of {args.mib} MiB, then {len(held)} connections each asking for all of "
                f"them and reading nothing, server under {args.address_space_mib} MiB of address space: "
                + ", ".join(f"{count}× {status}" for status, count in sorted(outcomes.items())))

    sys.exit(run(attack, args.binary, args.server_flags, address_space_mib=args.address_space_mib,
                 max_outage=args.max_outage))


if __name__ == "__main__":
    main()
