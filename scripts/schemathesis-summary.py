#!/usr/bin/env python3
"""What a schemathesis run reached: for every operation of the OpenAPI document, the status codes
of the answers it got (from the run's HAR report). A fuzz run that only ever sees 401 or 404 checks
little, so this shows whether the bound tokens and ids got requests to the successes.

Usage: schemathesis-summary.py DOCUMENT.json BASE-URL HAR.json…
"""
import collections
import json
import re
import sys
import urllib.parse


def operation_patterns(document, base_path):
    """(method, path template, compiled regex) for every documented operation."""
    patterns = []
    for template, item in document["paths"].items():
        regex = re.escape(base_path + template)
        regex = re.sub(r"\\\{[^}]*\\\}", "[^/]*", regex)
        for method in item:
            if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                patterns.append((method.upper(), template, re.compile(regex + "$")))
    return patterns


def main():
    document_file, base_url, *reports = sys.argv[1:]
    with open(document_file, encoding="utf-8") as handle:
        document = json.load(handle)
    base_path = urllib.parse.urlsplit(base_url).path.rstrip("/")
    patterns = operation_patterns(document, base_path)
    statuses = collections.defaultdict(collections.Counter)
    for report in reports:
        with open(report, encoding="utf-8") as handle:
            entries = json.load(handle)["log"]["entries"]
        for entry in entries:
            method = entry["request"]["method"]
            path = urllib.parse.urlsplit(entry["request"]["url"]).path
            for documented_method, template, regex in patterns:
                if method == documented_method and regex.match(path):
                    statuses[(method, template)][entry["response"]["status"]] += 1
                    break
    for method, template, _ in sorted(patterns, key=lambda p: (p[1], p[0])):
        seen = statuses.get((method, template))
        counts = ", ".join(f"{status}×{count}" for status, count in sorted(seen.items())) if seen else "never called"
        print(f"  {method:6} {template:40} {counts}")


if __name__ == "__main__":
    main()
