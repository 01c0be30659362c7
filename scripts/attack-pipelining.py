#!/usr/bin/env python3
"""Pipelining attack: many connections from 127.0.0.1 each pipeline thousands of requests for a
16 KB answer (GET /_mock/openapi/threads.json) and never read one, while a second client
(127.0.0.2) asks GET /_mock/health every 0.1 s. The server runs under an address-space limit.
Prints the second client's outage, the peak RSS and whether the server survived; exits 1 if it
died, did not serve the second client at the end, or the outage passed --max-outage.

    scripts/attack-pipelining.py BINARY [--connections 500] [--requests 3000] [--address-space-mib 1024]
                                        [--max-outage SECONDS] [-- SERVER-FLAGS…]
"""
import os, socket, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run

REQUEST = b"GET /_mock/openapi/threads.json HTTP/1.1\r\nHost: localhost\r\n\r\n"


def pipeline(port, requests, held, sent):
    """Sends every request, or until the server stops taking them for 2 s; keeps the socket open unread."""
    try:
        client = socket.create_connection(("127.0.0.1", port), timeout=2)
    except OSError:
        return
    held.append(client)
    data = memoryview(REQUEST * requests)
    try:
        while data:
            data = data[client.send(data):]
    except OSError:
        pass
    sent.append(len(REQUEST) * requests - len(data))


def main():
    args = arguments(connections=500, more=[("--requests", int, 3000), ("--address-space-mib", int, 1024)])

    def attack(server, held):
        sent = []
        senders = [threading.Thread(target=pipeline, args=(server.port, args.requests, held, sent))
                   for _ in range(args.connections)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        # The server answers what it has read meanwhile; the watch goes on seeing the second client and the RSS.
        time.sleep(2)
        return (f"{len(held)} of {args.connections} connections pipelined {sum(sent) // len(REQUEST)} of "
                f"{args.connections * args.requests} requests and read no answer; server under "
                f"{args.address_space_mib} MiB of address space")

    sys.exit(run(attack, args.binary, args.server_flags, address_space_mib=args.address_space_mib,
                 max_outage=args.max_outage))


if __name__ == "__main__":
    main()
