#!/usr/bin/env python3
"""Connection flood: one address (127.0.0.1) opens as many connections as the server takes and
keeps each one busy with a POST body sent at 2 KB/s (above the minimum body rate, so only the
per-address limit stops it), while a second client (127.0.0.2) asks GET /_mock/health every 0.1 s.
The server runs with 256 open files, so one address could otherwise take every slot. Prints the
second client's outage and the peak RSS; exits 1 if the server died, did not serve the second
client at the end, or the outage passed --max-outage.

    scripts/attack-connection-flood.py BINARY [--seconds 15] [--connections 500] [--max-outage SECONDS]
                                              [-- SERVER-FLAGS…]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import slow_posts

if __name__ == "__main__":
    sys.exit(slow_posts(bytes_per_second=2048))
