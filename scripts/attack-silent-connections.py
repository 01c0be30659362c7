#!/usr/bin/env python3
"""Silent-connection attack: one address (127.0.0.1) opens many connections and sends nothing,
while a second client (127.0.0.2) asks GET /_mock/health every 0.1 s. Prints the seconds the
second client was not served (a request failed or took over 1 s) and the server's peak RSS.
The server runs with 256 open files, as in a small container, so its connection cap is low.

    scripts/attack-silent-connections.py BINARY [--seconds 15] [--connections 1000] [--port 18500]
"""
import argparse, os, socket, subprocess, sys, time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def served(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1, source_address=("127.0.0.2", 0)) as client:
            client.sendall(b"GET /_mock/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return client.recv(12).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--port", type=int, default=18500)
    args = parser.parse_args()
    server = subprocess.Popen(["sh", "-c", f'ulimit -n 256 && exec "$0" --host 127.0.0.1 --port {args.port} --quiet',
                               args.binary], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if served(args.port):
                break
            time.sleep(0.1)
        else:
            sys.exit("the server did not start")
        attackers, peak = [], rss_kib(server.pid)
        started = time.monotonic()
        outage, last = 0.0, started
        while time.monotonic() - started < args.seconds:
            while len(attackers) < args.connections:
                try:
                    attackers.append(socket.create_connection(("127.0.0.1", args.port), timeout=0.05))
                except OSError:
                    break
            ok = served(args.port)
            now = time.monotonic()
            if not ok:
                outage += now - last
            last = now
            peak = max(peak, rss_kib(server.pid))
            time.sleep(max(0.0, 0.1 - (time.monotonic() - now)))
        print(f"outage for a second client: {outage:.1f} s of {args.seconds:.0f} s; peak RSS {peak / 1024:.0f} MiB")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
