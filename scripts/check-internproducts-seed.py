#!/usr/bin/env python3
"""Check Seed/internproducts.json and its pictures against docs/apis/internproducts.md.

The rules (docs/apis/internproducts.md#seed-reset-and-state and #tokens): the two fixed
users, 12 to 24 products with valid titles, tags, descriptions, dates and images, and
the three dishes of the course screenshot as the three newest products. Every problem
found is printed (not just the first) and the exit status is 1 if there was any.

Standard library only. Usage: python3 scripts/check-internproducts-seed.py [seed.json]
"""
import hashlib
import json
import os
import re
import struct
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SEED = os.path.join(ROOT, "Seed", "internproducts.json")

USERS = [
    {"username": "admin", "password": "1234", "loginToken": "668961808.772846"},
    {"username": "endavaStudent", "password": "schoolOfiOS", "loginToken": "668943217.405113"},
]
TOKEN_RE = re.compile(r"^[1-9][0-9]{8,9}\.[0-9]{5}[1-9]$")
TAG_RE = re.compile(r"^[a-z]+(-[a-z]+)*$")
STEP_RE = re.compile(r"^([1-9][0-9]*)\. \S")
IMAGE_RE = re.compile(r"^images/[a-z0-9]+(-[a-z0-9]+)*\.png$")
PRODUCT_KEYS = ["title", "description", "tags", "date", "image"]
DATE_MIN, DATE_MAX = 1609459200, 1672531199  # 2021-01-01T00:00:00Z .. 2022-12-31T23:59:59Z
SIZE_MIN, SIZE_MAX = 5 * 1024, 80 * 1024
SIDE_MIN, SIDE_MAX = 200, 1200
NEWEST = [  # newest first; None = tags are our choice
    ("Coconut yoghurt cake", ["coconut", "yoghurt", "cake"]),
    ("Burnt butter, almond cake", ["almond", "cake", "gluten-free"]),
    ("Tart al limone", None),
]

errors = []


def fail(where, msg):
    errors.append("%s: %s" % (where, msg))


def pairs_hook(pairs):
    # Keep key order and catch duplicate keys, which json.load would silently merge.
    keys = [k for k, _ in pairs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        fail("json", "duplicate key(s) %s" % ", ".join(dupes))
    obj = dict(pairs)
    obj["__keys__"] = keys
    return obj


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_png(where, path):
    """Walk the chunks, verify CRCs and IHDR, inflate IDAT and check the row layout."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail(where, "cannot read %s (%s)" % (path, e.strerror))
        return None
    size = len(data)
    if not SIZE_MIN <= size <= SIZE_MAX:
        fail(where, "file is %d bytes, must be %d..%d" % (size, SIZE_MIN, SIZE_MAX))
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(where, "not a PNG (bad signature)")
        return None
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data):
            fail(where, "truncated chunk at byte %d" % pos)
            return None
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 4:pos + 8 + length]
        if pos + 12 + length > len(data):
            fail(where, "chunk %r runs past the end of the file" % kind)
            return None
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(body) & 0xFFFFFFFF != crc:
            fail(where, "bad CRC in chunk %r" % kind)
        chunks.append((kind, body[4:]))
        pos += 12 + length
        if kind == b"IEND":
            break
    kinds = [k for k, _ in chunks]
    if not kinds or kinds[0] != b"IHDR":
        fail(where, "IHDR is not the first chunk")
        return None
    if kinds[-1] != b"IEND" or chunks[-1][1] != b"" or pos != len(data):
        fail(where, "file must end with an empty IEND chunk and nothing after it")
    idat_at = [i for i, k in enumerate(kinds) if k == b"IDAT"]
    if not idat_at:
        fail(where, "no IDAT chunk")
        return None
    if idat_at != list(range(idat_at[0], idat_at[-1] + 1)):
        fail(where, "IDAT chunks are not consecutive")
    ihdr = chunks[0][1]
    if len(ihdr) != 13:
        fail(where, "IHDR must be 13 bytes")
        return None
    w, h, depth, ctype, comp, filt, interlace = struct.unpack(">IIBBBBB", ihdr)
    if not (SIDE_MIN <= w <= SIDE_MAX and SIDE_MIN <= h <= SIDE_MAX):
        fail(where, "%dx%d pixels, each side must be %d..%d" % (w, h, SIDE_MIN, SIDE_MAX))
    # Our pictures are 8-bit RGB, non-interlaced; that is also what makes the row
    # length check below simple.
    if (depth, ctype, comp, filt, interlace) != (8, 2, 0, 0, 0):
        fail(where, "IHDR depth/colour/compression/filter/interlace = %s, expected 8/2/0/0/0"
             % ((depth, ctype, comp, filt, interlace),))
        return None
    try:
        raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    except zlib.error as e:
        fail(where, "IDAT does not inflate (%s)" % e)
        return None
    stride = 1 + w * 3
    if len(raw) != h * stride:
        fail(where, "image data is %d bytes, %dx%d RGB needs %d" % (len(raw), w, h, h * stride))
        return None
    bad_rows = [y for y in range(h) if raw[y * stride] > 4]
    if bad_rows:
        fail(where, "invalid filter type on row(s) %s" % bad_rows[:5])
    return w, h, size, hashlib.sha256(data).hexdigest()


def check_description(where, d):
    if not isinstance(d, str):
        fail(where, "description must be a string")
        return
    if not 200 <= len(d) <= 1500:
        fail(where, "description has %d characters, must be 200..1500" % len(d))
    if "\r" in d:
        fail(where, "description contains \\r")
    if d.startswith("\n") or d.endswith("\n"):
        fail(where, "description starts or ends with a newline")
    lines = d.split("\n")
    if any(not line.strip() for line in lines):
        fail(where, "description has a blank line")
    if len([line for line in lines if line.strip()]) < 3:
        fail(where, "description needs at least 3 non-empty lines")
    for n, line in enumerate(lines, 1):
        m = STEP_RE.match(line)
        if not m or int(m.group(1)) != n:
            fail(where, "line %d must start with '%d. ' (numbered steps, one per line): %r"
                 % (n, n, line[:40]))
            break
        if line != line.strip():
            fail(where, "line %d has leading or trailing spaces" % n)
    if any(ord(c) < 0x20 and c != "\n" for c in d):
        fail(where, "description contains control characters")


def check_product(i, p, base_dir):
    where = "products[%d]" % i
    if not isinstance(p, dict):
        fail(where, "must be an object")
        return None
    keys = p.pop("__keys__")
    if keys != PRODUCT_KEYS:
        fail(where, "keys must be exactly %s in that order, got %s" % (PRODUCT_KEYS, keys))
    title = p.get("title")
    if isinstance(title, str) and title:
        where = "products[%d] %r" % (i, title)
        if len(title) > 60:
            fail(where, "title is %d characters, at most 60" % len(title))
        if any(ord(c) < 0x20 or c in "\u2028\u2029\x85" for c in title) or title != title.strip():
            fail(where, "title must be one line without control characters or outer spaces")
    else:
        fail(where, "title must be a non-empty string")
    tags = p.get("tags")
    if not isinstance(tags, list) or not 2 <= len(tags) <= 5:
        fail(where, "tags must be a list of 2..5 strings")
    else:
        for t in tags:
            if not isinstance(t, str) or not TAG_RE.match(t):
                fail(where, "tag %r does not match %s" % (t, TAG_RE.pattern))
        if len(set(map(str, tags))) != len(tags):
            fail(where, "duplicate tags %s" % tags)
    check_description(where, p.get("description"))
    date = p.get("date")
    if not is_int(date) or not DATE_MIN <= date <= DATE_MAX:
        fail(where, "date %r must be an integer in %d..%d (2021-2022)" % (date, DATE_MIN, DATE_MAX))
    image = p.get("image")
    png = None
    if not isinstance(image, str) or not IMAGE_RE.match(image):
        fail(where, "image %r must look like images/<slug>.png" % (image,))
    else:
        png = check_png(where + " " + image, os.path.join(base_dir, image))
    return png


def main():
    seed = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SEED
    base_dir = os.path.join(os.path.dirname(seed), "internproducts")  # images/ lives here
    try:
        with open(seed, encoding="utf-8") as f:
            doc = json.load(f, object_pairs_hook=pairs_hook)
    except (OSError, ValueError) as e:
        sys.exit("FAIL %s: cannot load (%s)" % (seed, e))
    if not isinstance(doc, dict) or doc.pop("__keys__") != ["users", "products"]:
        fail("json", "top level must be an object with keys users, products (in that order)")
        doc = doc if isinstance(doc, dict) else {}

    users = doc.get("users")
    if isinstance(users, list):
        for u in users:
            if isinstance(u, dict):
                keys = u.pop("__keys__")
                if keys != ["username", "password", "loginToken"]:
                    fail("users", "keys must be username, password, loginToken, got %s" % keys)
                if not TOKEN_RE.match(str(u.get("loginToken"))):
                    fail("users", "token %r breaks the token format" % u.get("loginToken"))
    if users != USERS:
        fail("users", "must be exactly the two seeded users of section 6 (admin, endavaStudent)")

    products = doc.get("products")
    if not isinstance(products, list) or not 12 <= len(products) <= 24:
        fail("products", "must be a list of 12..24 products")
        products = products if isinstance(products, list) else []
    pngs = [check_product(i, p, base_dir) for i, p in enumerate(products)]
    products = [p for p in products if isinstance(p, dict)]

    titles = [p.get("title") for p in products]
    for t in sorted({t for t in titles if titles.count(t) > 1}, key=str):
        fail("products", "title %r is used more than once" % t)
    dates = [p.get("date") for p in products if is_int(p.get("date"))]
    if len(set(dates)) != len(dates):
        fail("products", "dates must be distinct")
    if not any("\u00b0" in str(p.get("description")) for p in products):
        fail("products", "no description contains the degree sign")
    hashes = [png[3] for png in pngs if png]
    if len(set(hashes)) != len(hashes):
        fail("products", "two products share the same picture")
    images = {p.get("image") for p in products}
    if len(images) != len(products):
        fail("products", "two products point at the same image file")
    img_dir = os.path.join(base_dir, "images")
    if os.path.isdir(img_dir):
        for name in sorted(os.listdir(img_dir)):
            if "images/" + name not in images:
                fail("images", "%s is not used by any product" % name)

    by_date = sorted((p for p in products if is_int(p.get("date"))), key=lambda p: -p["date"])
    for rank, (title, tags) in enumerate(NEWEST):
        got = by_date[rank] if rank < len(by_date) else {}
        if got.get("title") != title:
            fail("newest", "product #%d by date must be %r, found %r" % (rank + 1, title, got.get("title")))
        elif tags is not None and got.get("tags") != tags:
            fail("newest", "%r must have tags exactly %s, found %s" % (title, tags, got.get("tags")))

    if errors:
        for e in errors:
            print("FAIL " + e)
        sys.exit("%d problem(s) in %s" % (len(errors), seed))
    sizes = [png[2] for png in pngs]
    dims = sorted({"%dx%d" % png[:2] for png in pngs})
    print("OK %s: %d users, %d products, images %s, %d..%d bytes"
          % (os.path.relpath(seed), len(users), len(products), ", ".join(dims), min(sizes), max(sizes)))


if __name__ == "__main__":
    main()
