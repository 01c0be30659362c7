#!/usr/bin/env python3
"""Costly bodies: a few connections from 127.0.0.1 each send, again and again for --seconds, a WSUV
login form of --mib MiB whose value is all `%u00e9` escapes (CGI.pm's form of é, the most work
per byte a form can ask), while a second client (127.0.0.2) asks GET /_mock/health every 0.1 s.
Prints how many bodies were answered, the second client's outage, the peak RSS and whether the
server survived; exits 1 if it died, did not serve the second client at the end, or the outage
passed --max-outage.

    scripts/attack-costly-bodies.py BINARY [--connections 4] [--seconds 20] [--mib 16]
                                           [--max-outage SECONDS] [-- SERVER-FLAGS…]
"""
import os, socket, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run


def repeat(port, request, until, answered):
    while time.monotonic() < until:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=60) as client:
                client.sendall(request)
                if client.recv(12).startswith(b"HTTP/1.1"):
                    answered.append(1)
        except OSError:
            time.sleep(0.1)


def main():
    args = arguments(connections=4, seconds=20, more=[("--mib", int, 16)])
    value = b"%u00e9" * (((args.mib << 20) - 200) // 6)
    body = b"username=" + value + b"&password=x"
    request = (b"POST /cgi-bin/login.cgi HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)

    def attack(server, held):
        answered = []
        until = time.monotonic() + args.seconds
        senders = [threading.Thread(target=repeat, args=(server.port, request, until, answered))
                   for _ in range(args.connections)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        return (f"{args.connections} connections sending WSUV login forms of {args.mib} MiB of %u00e9 for "
                f"{args.seconds:.0f} s: {len(answered)} answered")

    sys.exit(run(attack, args.binary, args.server_flags, max_outage=args.max_outage))


if __name__ == "__main__":
    main()
