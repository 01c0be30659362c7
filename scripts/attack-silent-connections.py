#!/usr/bin/env python3
"""Silent-connection attack: one address (127.0.0.1) opens many connections and sends nothing,
while a second client (127.0.0.2) asks GET /_mock/health every 0.1 s. Prints the seconds the
second client was not served (a request failed or took over 1 s) and the server's peak RSS.
The server runs with 256 open files, as in a small container, so its connection cap is low;
exits 1 if it died or the outage passed --max-outage.

    scripts/attack-silent-connections.py BINARY [--seconds 15] [--connections 1000] [--max-outage SECONDS]
"""
import os, socket, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run


def main():
    args = arguments(connections=1000, seconds=15)

    def attack(server, held):
        started = time.monotonic()
        while time.monotonic() - started < args.seconds:
            while len(held) < args.connections:
                try:
                    held.append(socket.create_connection(("127.0.0.1", server.port), timeout=0.05))
                except OSError:
                    break
            time.sleep(0.1)
        return f"{len(held)} silent connections from 127.0.0.1 for {args.seconds:.0f} s, server at 256 open files"

    sys.exit(run(attack, args.binary, open_files=256, max_outage=args.max_outage))


if __name__ == "__main__":
    main()
