#!/usr/bin/env python3
"""Slow uploads: one address (127.0.0.1) opens many POSTs that declare a 16 MiB body and send only
its first bytes, so each holds its reservation in the memory budget (a body only has to average
1 KB/s); then another address (127.0.0.2) uploads a 16 MiB body whole. Prints how many uploads
the first address holds and how the other address's body was answered (503 means the budget kept
it out); the second client asks GET /_mock/health meanwhile, as in the other attacks.

    scripts/attack-slow-uploads.py BINARY [--connections 20] [--max-outage SECONDS] [-- SERVER-FLAGS…]
"""
import os, socket, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import arguments, run

SIZE = 16 << 20


def head(length):
    return f"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode()


def main():
    args = arguments(connections=20)

    def attack(server, held):
        refused = 0
        for _ in range(args.connections):
            client = socket.create_connection(("127.0.0.1", server.port), timeout=0.5)
            client.sendall(head(SIZE) + b"email=")
            try:
                refused += client.recv(12)[9:12] == b"503"  # refused at once, or held (no answer yet)
                client.close()
            except socket.timeout:
                held.append(client)
        body = b"email=" + b"x" * (SIZE - 6)
        with socket.create_connection(("127.0.0.1", server.port), timeout=30, source_address=("127.0.0.2", 0)) as other:
            other.sendall(head(SIZE))
            try:
                other.sendall(body)
            except OSError:
                pass  # refused from its head: the answer is still there
            status = other.recv(12)[9:12].decode() or "closed"
        return (f"127.0.0.1 holds {len(held)} slow 16 MiB uploads ({refused} more refused with 503); "
                f"a 16 MiB body from 127.0.0.2 was answered {status}")

    sys.exit(run(attack, args.binary, args.server_flags, max_outage=args.max_outage))


if __name__ == "__main__":
    main()
