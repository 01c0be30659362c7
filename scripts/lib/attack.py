"""Shared by scripts/attack-*.py: starts mock-backend on a free port (read from its banner, so
nothing sleeps on a guess), and watches it while an attack runs: a second client at another
address (127.0.0.2) asks GET /_mock/health every 0.1 s, and the server's RSS and life are sampled.
"""
import argparse, multiprocessing, resource, signal, socket, subprocess, sys, threading, time

BANNER = "listening on 127.0.0.1:"


class Server:
    """mock-backend on 127.0.0.1, port from its banner; `address_space_mib` and `open_files` limit it
    as a small container would."""

    def __init__(self, binary, arguments=(), address_space_mib=None, open_files=None):
        def limits():
            if address_space_mib:
                size = address_space_mib << 20
                resource.setrlimit(resource.RLIMIT_AS, (size, size))
            if open_files:
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        self.process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--quiet", *arguments],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        preexec_fn=limits)
        self.output = []
        for line in self.process.stdout:
            self.output.append(line)
            if BANNER in line:
                self.port = int(line.split(BANNER)[1].split()[0])
                break
        else:
            sys.exit("the server did not start:\n" + "".join(self.output))
        # Keep reading what it prints (a crash message) so the pipe never fills.
        threading.Thread(target=lambda: self.output.extend(self.process.stdout), daemon=True).start()

    @property
    def alive(self):
        return self.process.poll() is None

    def rss_kib(self):
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            return 0

    def served(self, timeout=1.0):
        return Server.served_at(self.port, timeout)

    @staticmethod
    def served_at(port, timeout=1.0):
        """One GET /_mock/health from 127.0.0.2, answered 200 within `timeout`."""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                          source_address=("127.0.0.2", 0)) as client:
                client.sendall(b"GET /_mock/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                return client.recv(12).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def death(self):
        """How the server ended, or None while it runs."""
        if self.alive:
            return None
        code = self.process.returncode
        how = f"killed by signal {-code}" if code < 0 else f"exited with {code}"
        lines = [line.strip() for line in self.output if line.strip()]
        # The runtime's own words (`failed to allocate N bytes`), not the backtrace after them.
        cause = next((line for line in lines if "allocate" in line or "Fatal error" in line), lines[-1] if lines else "")
        return how + (": " + cause if cause else "")

    def stop(self):
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def probe(port, stopping, results):
    """The second client, in its own process so that the attack's threads (and Python's lock)
    never delay it: GET /_mock/health from 127.0.0.2 every 0.1 s, each answered within 1 s or
    counted unserved. Sends back the total time unserved and the longest stretch of it (from the
    last answer to the next)."""
    total = worst = 0.0
    last = last_served = time.monotonic()
    while not stopping.is_set():
        asked = time.monotonic()
        ok = Server.served_at(port) and time.monotonic() - asked < 1.0
        now = time.monotonic()
        if ok:
            last_served = now
        else:
            total += now - last
            worst = max(worst, now - last_served)
        last = now
        stopping.wait(max(0.0, 0.1 - (time.monotonic() - now)))
    results.put((total, worst))


class Watch:
    """From `start()` until `stop()`: the second client (`probe`) and the server's RSS every 0.1 s."""

    def __init__(self, server):
        self.server = server
        self.outage = self.worst_outage = 0.0
        self.peak_rss_kib = server.rss_kib()
        self.seconds = 0.0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._sample_rss, daemon=True)
        self._probe_stopping = multiprocessing.Event()
        self._results = multiprocessing.Queue()
        self._probe = multiprocessing.Process(target=probe, args=(server.port, self._probe_stopping, self._results),
                                              daemon=True)

    def start(self):
        self._started = time.monotonic()
        self._probe.start()
        self._thread.start()
        return self

    def _sample_rss(self):
        while not self._stopping.wait(0.1):
            self.peak_rss_kib = max(self.peak_rss_kib, self.server.rss_kib())

    def stop(self):
        self._stopping.set()
        self._probe_stopping.set()
        self.outage, self.worst_outage = self._results.get(timeout=30)
        self._probe.join()
        self._thread.join()
        self.seconds = time.monotonic() - self._started
        return self

    def report(self):
        """One line; ends with the server's death if it died."""
        line = (f"a second client unserved {self.outage:.1f} s of {self.seconds:.0f} s, at worst {self.worst_outage:.2f} s "
                f"in a row; peak RSS {self.peak_rss_kib / 1024:.0f} MiB")
        death = self.server.death()
        return line + (f"; SERVER DIED ({death})" if death else "; server alive")


def conclude(server, watch, max_outage=None):
    """Asks once more as the second client, stops the watch, prints its report; the exit status:
    1 if the server died, did not answer that last request, or the second client's longest outage
    reached `max_outage` seconds."""
    served = server.served(timeout=5)
    watch.stop()
    print(watch.report() + f"; served at the end: {'yes' if served else 'NO'}")
    too_long = max_outage is not None and watch.worst_outage >= max_outage
    if too_long:
        print(f"FAILED: the second client went {watch.worst_outage:.2f} s unserved in a row (limit {max_outage:g} s)")
    failed = server.death() or not served or too_long
    return 1 if failed else 0


def run(attack, binary, server_flags=(), address_space_mib=None, open_files=None, max_outage=None):
    """Starts the server and the watch, runs `attack(server, held)` (which returns one line saying
    what it did and may keep sockets open in `held`), concludes; returns the exit status."""
    # Killed (a CI timeout, Ctrl-C), the script still stops its server on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = Server(binary, server_flags, address_space_mib=address_space_mib, open_files=open_files)
    held = []
    try:
        watch = Watch(server).start()
        print(attack(server, held))
        return conclude(server, watch, max_outage)
    finally:
        for client in held:
            client.close()
        server.stop()


def trickle_posts(server, held, connections, bytes_per_second, seconds, length=50_000):
    """From 127.0.0.1, for `seconds`: keeps `connections` POSTs open, each sending its body (never
    quite all of it) at `bytes_per_second`, and reopens those the server closes. The body stays
    under 64 KiB so the memory budget has no say: what holds or frees the slots is the minimum
    body rate and the per-address limit. Returns how many connections the server closed."""
    head = (f"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()
    tick = 0.2
    piece = b"x" * max(1, int(bytes_per_second * tick))
    sent, dropped = {}, 0
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        round_started = time.monotonic()
        while len(held) < connections and time.monotonic() - round_started < tick:
            try:
                client = socket.create_connection(("127.0.0.1", server.port), timeout=0.05)
                client.setblocking(False)
                client.send(head)
            except OSError:
                break
            held.append(client)
            sent[client] = 0
        for client in list(held):
            if sent[client] + len(piece) >= length:
                continue
            try:
                sent[client] += client.send(piece)
            except BlockingIOError:
                pass
            except OSError:
                held.remove(client)
                del sent[client]
                client.close()
                dropped += 1
        time.sleep(max(0.0, tick - (time.monotonic() - round_started)))
    return dropped


def arguments(connections, seconds=None, more=()):
    """The attack script's arguments: BINARY, --connections, --seconds when the attack runs for a
    while, --max-outage, `more` as (flag, type, default), and as `server_flags` whatever follows
    `--` (flags for the server)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--connections", type=int, default=connections)
    if seconds is not None:
        parser.add_argument("--seconds", type=float, default=seconds)
    parser.add_argument("--max-outage", type=float)
    for flag, kind, default in more:
        parser.add_argument(flag, type=kind, default=default)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    parsed = parser.parse_args(argv[:split])
    parsed.server_flags = argv[split + 1:]
    return parsed


def slow_posts(bytes_per_second):
    """The whole slow-POST attack script: `trickle_posts` at `bytes_per_second` unless
    --bytes-per-second says otherwise, against a server at 256 open files."""
    args = arguments(connections=500, seconds=15, more=[("--bytes-per-second", float, bytes_per_second)])

    def attack(server, held):
        dropped = trickle_posts(server, held, args.connections, args.bytes_per_second, args.seconds)
        return (f"{args.connections} POSTs from 127.0.0.1, bodies at {args.bytes_per_second:g} bytes/s for "
                f"{args.seconds:.0f} s, server at 256 open files: {dropped} closed by the server, {len(held)} open at the end")

    return run(attack, args.binary, args.server_flags, open_files=256, max_outage=args.max_outage)
