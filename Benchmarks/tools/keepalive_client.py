#!/usr/bin/env python3
"""Sends COUNT identical GETs over one keep-alive connection and checks each is a 200.

Used by profile.sh: a fixed number of requests makes callgrind's instruction counts per request
comparable between runs. Usage: keepalive_client.py PORT TARGET COUNT [HEADER ...]
"""
import re
import socket
import sys

port, target, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
headers = "".join(f"{header}\r\n" for header in sys.argv[4:])
request = f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode()
with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
    buffer = b""
    for _ in range(count):
        connection.sendall(request)
        while b"\r\n\r\n" not in buffer:
            buffer += connection.recv(65536)
        head, _, buffer = buffer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head[:80]
        length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
        while len(buffer) < length:
            buffer += connection.recv(1 << 20)
        buffer = buffer[length:]
