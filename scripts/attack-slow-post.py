#!/usr/bin/env python3
"""Slow-POST attack: one address (127.0.0.1) holds many POSTs whose bodies trickle in far below
the minimum body rate (5 bytes/s by default), reopening any the server drops, while a second
client (127.0.0.2) asks GET /_mock/health every 0.1 s. The server runs with 256 open files, as in
a small container, so its connection cap is low. Prints the second client's outage, the peak RSS
and how many connections the server closed; exits 1 if it died, did not serve the second client
at the end, or the outage passed --max-outage.

    scripts/attack-slow-post.py BINARY [--seconds 15] [--connections 500] [--bytes-per-second 5]
                                       [--max-outage SECONDS] [-- SERVER-FLAGS…]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from attack import slow_posts

if __name__ == "__main__":
    sys.exit(slow_posts(bytes_per_second=5))
