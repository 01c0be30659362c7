#!/usr/bin/env python3
"""Big-body attack: many connections from 127.0.0.1 each send a large body at once (POST
/api/login, as fast as loopback takes it), while a second client (127.0.0.2) asks GET
/_mock/health every 0.1 s. The server runs under an address-space limit, as in a small container.
Prints how the bodies were answered, the second client's outage, the peak RSS and whether the
server survived; exits 1 if it died or the outage passed --max-outage.

    scripts/attack-big-bodies.py BINARY [--connections 200] [--mib 16] [--address-space-mib 1024]
                                        [--max-outage SECONDS] [-- SERVER-FLAGS…]
"""
import collections, os, socket, sys, threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run


def send_body(port, body, outcomes):
    head = (f"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as client:
            client.sendall(head)
            try:
                for offset in range(0, len(body), 1 << 20):
                    client.sendall(body[offset:offset + (1 << 20)])
            except OSError:
                pass  # refused from its head: the server stopped reading; its answer is still there
            status = client.recv(12)[9:12].decode() or "closed"
    except OSError as error:
        status = type(error).__name__
    outcomes[status] += 1


def main():
    args = arguments(connections=200, more=[("--mib", int, 16), ("--address-space-mib", int, 1024)])
    # The body is a form field just under the default --max-body (16 MiB), so it is read, not refused for size.
    body = memoryview(b"email=" + b"x" * ((args.mib << 20) - 6 - 64))

    def attack(server, held):
        outcomes = collections.Counter()
        senders = [threading.Thread(target=send_body, args=(server.port, body, outcomes))
                   for _ in range(args.connections)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        return (f"{args.connections} bodies of {args.mib} MiB, server under {args.address_space_mib} MiB of address "
                "space: " + ", ".join(f"{count}× {status}" for status, count in sorted(outcomes.items())))

    sys.exit(run(attack, args.binary, args.server_flags, address_space_mib=args.address_space_mib,
                 max_outage=args.max_outage))


if __name__ == "__main__":
    main()
