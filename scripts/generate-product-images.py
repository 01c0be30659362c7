#!/usr/bin/env python3
"""Draw the product pictures of the internproducts seed.

Writes one 480x360 8-bit RGB PNG per product to Seed/internproducts/images/<slug>.png.
Only the standard library is used, and every random choice comes from a generator
seeded by the slug, so each run produces the same bytes on every machine.

The pictures are simple food scenes (a table surface, a plate or bowl, the dish and a
few garnishes) built from signed-distance shapes with anti-aliased edges. Each seed picture
must be between 5,120 and 81,920 bytes, so the script checks every size and stops with an error if one falls outside.

Usage: python3 scripts/generate-product-images.py
"""
import json
import math
import os
import random
import struct
import sys
import zlib

W, H = 480, 360
MIN_BYTES, MAX_BYTES = 5 * 1024, 80 * 1024
QUANT = 6  # colour step, see Canvas.finish
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED_JSON = os.path.join(ROOT, "Seed", "internproducts.json")
OUT_DIR = os.path.join(ROOT, "Seed", "internproducts", "images")

# Light comes from the upper left and towards the viewer (unit vector).
LIGHT = (-0.45, -0.55, 0.70)
_ln = math.sqrt(sum(c * c for c in LIGHT))
LIGHT = tuple(c / _ln for c in LIGHT)
_hx, _hy, _hz = LIGHT[0], LIGHT[1], LIGHT[2] + 1.0
_hn = math.sqrt(_hx * _hx + _hy * _hy + _hz * _hz)
HALF = (_hx / _hn, _hy / _hn, _hz / _hn)  # Blinn half vector for the highlights


# --------------------------------------------------------------------------- PNG

def png_bytes(width, height, rgb):
    """Encode raw RGB bytes as a PNG (colour type 2, bit depth 8, no interlace)."""
    stride = width * 3
    out = bytearray()
    prev = bytes(stride)
    for y in range(height):
        row = bytes(rgb[y * stride:(y + 1) * stride])
        out.append(0)  # placeholder for the filter byte
        start = len(out)
        out += row
        best, best_cost = 0, _cost(row)
        # Try every filter and keep whichever looks cheapest (sum of signed
        # residuals), the usual libpng heuristic; Paeth wins on most rows here.
        for ftype, data in ((1, _sub(row)), (2, _up(row, prev)), (3, _avg(row, prev)),
                            (4, _paeth(row, prev))):
            c = _cost(data)
            if c < best_cost:
                best, best_cost, best_data = ftype, c, data
        if best:
            out[start - 1] = best
            out[start:] = best_data
        prev = row

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(bytes(out), 9)) + chunk(b"IEND", b""))


def _cost(data):
    # Residuals near 0 or 255 are small signed numbers and compress best.
    return sum(b if b < 128 else 256 - b for b in data)


def _sub(row):
    return row[:3] + bytes((a - b) & 255 for a, b in zip(row[3:], row))


def _up(row, prev):
    return bytes((a - b) & 255 for a, b in zip(row, prev))


def _avg(row, prev):
    head = bytes((row[i] - (prev[i] >> 1)) & 255 for i in range(3))
    return head + bytes((a - ((l + u) >> 1)) & 255 for a, l, u in zip(row[3:], row, prev[3:]))


def _paeth(row, prev):
    out = bytearray((row[i] - prev[i]) & 255 for i in range(3))
    for i in range(3, len(row)):
        a, b, c = row[i - 3], prev[i], prev[i - 3]
        pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - c - c)
        pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
        out.append((row[i] - pred) & 255)
    return bytes(out)


# ------------------------------------------------------------------------ canvas

def clamp(v, lo=0.0, hi=1.0):
    return lo if v < lo else hi if v > hi else v


def mix(c1, c2, t):
    return tuple(a + (b - a) * t for a, b in zip(c1, c2))


def scale(c, k):
    return tuple(v * k for v in c)


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(w * h * 3)

    def fill(self, shader):
        px, w = self.px, self.w
        for y in range(self.h):
            for x in range(w):
                r, g, b = shader(x + 0.5, y + 0.5)
                i = (y * w + x) * 3
                px[i] = int(clamp(r, 0, 255))
                px[i + 1] = int(clamp(g, 0, 255))
                px[i + 2] = int(clamp(b, 0, 255))

    def paint(self, shape, shader, opacity=1.0, soft=1.0):
        """Blend `shader` (a colour or a function of x, y) where the shape's signed
        distance is positive; `soft` widens the edge ramp (in pixels) for shadows."""
        (bx0, by0, bx1, by1), sdf = shape
        pad = soft + 1
        x0, y0 = max(0, int(bx0 - pad)), max(0, int(by0 - pad))
        x1, y1 = min(self.w, int(bx1 + pad) + 1), min(self.h, int(by1 + pad) + 1)
        const = None if callable(shader) else shader
        px, w = self.px, self.w
        half = 0.5 * soft
        for y in range(y0, y1):
            fy = y + 0.5
            for x in range(x0, x1):
                fx = x + 0.5
                d = sdf(fx, fy)
                if d <= -half:
                    continue
                a = opacity if d >= half else opacity * (d + half) / soft
                r, g, b = const or shader(fx, fy)
                i = (y * w + x) * 3
                o = px[i]
                px[i] = int(clamp(o + (r - o) * a, 0, 255))
                o = px[i + 1]
                px[i + 1] = int(clamp(o + (g - o) * a, 0, 255))
                o = px[i + 2]
                px[i + 2] = int(clamp(o + (b - o) * a, 0, 255))

    def finish(self, vignette=0.18, step=QUANT):
        """Darken the corners a little so the dish draws the eye, then round every
        channel to a multiple of `step`. Smooth gradients otherwise leave a random
        last bit in every byte, which deflate cannot squeeze: unrounded pictures
        came out at 80-125 KB, rounded ones stay under 80 KiB, the ceiling
        InternProductsTests checks."""
        px, w, h = self.px, self.w, self.h
        table = [min(255, (v // step) * step + step // 2) for v in range(256)]
        for y in range(h):
            vy = (y - h / 2) / (h / 2)
            for x in range(w):
                vx = (x - w / 2) / (w / 2)
                k = 1.0 - vignette * clamp((vx * vx + vy * vy) * 0.5) ** 1.5
                i = (y * w + x) * 3
                px[i] = table[int(px[i] * k)]
                px[i + 1] = table[int(px[i + 1] * k)]
                px[i + 2] = table[int(px[i + 2] * k)]


class Noise:
    """Smooth value noise on a coarse grid; stretched cells (sx != sy) give streaks."""

    def __init__(self, rnd, sx, sy=None):
        self.sx, self.sy = float(sx), float(sy or sx)
        self.gw = int(W / self.sx) + 3
        self.gh = int(H / self.sy) + 3
        self.g = [rnd.random() for _ in range(self.gw * self.gh)]

    def __call__(self, x, y):
        fx = clamp(x, 0, W) / self.sx
        fy = clamp(y, 0, H) / self.sy
        ix, iy = int(fx), int(fy)
        tx, ty = fx - ix, fy - iy
        tx = tx * tx * (3 - 2 * tx)
        ty = ty * ty * (3 - 2 * ty)
        g, gw = self.g, self.gw
        i = iy * gw + ix
        a = g[i] + (g[i + 1] - g[i]) * tx
        b = g[i + gw] + (g[i + gw + 1] - g[i + gw]) * tx
        return a + (b - a) * ty


# ------------------------------------------------------------------------ shapes
# A shape is (bounding box, sdf); sdf(x, y) > 0 inside, roughly in pixels.

def ellipse(cx, cy, rx, ry, ang=0.0, wobble=0.0, lobes=0, phase=0.0):
    """Ellipse, optionally rotated, and optionally with a wavy (fluted) outline."""
    c, s = math.cos(ang), math.sin(ang)
    ext = max(rx, ry) * (1 + abs(wobble))
    box = (cx - ext, cy - ext, cx + ext, cy + ext) if ang else \
        (cx - rx * (1 + wobble), cy - ry * (1 + wobble), cx + rx * (1 + wobble), cy + ry * (1 + wobble))

    def sdf(x, y):
        dx, dy = x - cx, y - cy
        if ang:
            dx, dy = dx * c + dy * s, -dx * s + dy * c
        u, v = dx / rx, dy / ry
        d = math.sqrt(u * u + v * v)
        if d < 1e-9:
            return min(rx, ry)
        grad = math.sqrt((u / rx) ** 2 + (v / ry) ** 2) / d
        edge = 1.0
        if wobble:
            edge += wobble * math.cos(lobes * math.atan2(v, u) + phase)
        return (edge - d) / grad

    return box, sdf


def rect(cx, cy, hw, hh, r=0.0, ang=0.0):
    """Rounded rectangle centred on (cx, cy), half sizes hw, hh, corner radius r."""
    c, s = math.cos(ang), math.sin(ang)
    ext = math.hypot(hw, hh) if ang else None
    box = (cx - ext, cy - ext, cx + ext, cy + ext) if ang else (cx - hw, cy - hh, cx + hw, cy + hh)

    def sdf(x, y):
        dx, dy = x - cx, y - cy
        if ang:
            dx, dy = dx * c + dy * s, -dx * s + dy * c
        qx, qy = abs(dx) - (hw - r), abs(dy) - (hh - r)
        outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
        return -(outside + min(max(qx, qy), 0.0) - r)

    return box, sdf


def union(a, b):
    (ab, af), (bb, bf) = a, b
    box = (min(ab[0], bb[0]), min(ab[1], bb[1]), max(ab[2], bb[2]), max(ab[3], bb[3]))
    return box, lambda x, y: max(af(x, y), bf(x, y))


def intersect(a, b):
    (ab, af), (bb, bf) = a, b
    box = (max(ab[0], bb[0]), max(ab[1], bb[1]), min(ab[2], bb[2]), min(ab[3], bb[3]))
    return box, lambda x, y: min(af(x, y), bf(x, y))


def subtract(a, b):
    (ab, af), (_, bf) = a, b
    return ab, lambda x, y: min(af(x, y), -bf(x, y))


def scatter(rnd, cx, cy, rx, ry, n, inner=0.0):
    """n points spread evenly over an ellipse (or the ring outside `inner`)."""
    pts = []
    while len(pts) < n:
        u, v = rnd.uniform(-1, 1), rnd.uniform(-1, 1)
        q = u * u + v * v
        if inner * inner <= q <= 1:
            pts.append((cx + u * rx, cy + v * ry))
    return pts


# ----------------------------------------------------------------------- shaders

def dome(cx, cy, rx, ry, col, amb=0.45, spec=0.3, shin=18):
    """Light a shape as if it were a half-sphere: berries, peas, yolks, glossy fillings."""
    def sh(x, y):
        nx, ny = (x - cx) / rx, (y - cy) / ry
        q = nx * nx + ny * ny
        nz = math.sqrt(1 - q) if q < 1 else 0.0
        diff = max(0.0, LIGHT[0] * nx + LIGHT[1] * ny + LIGHT[2] * nz)
        k = amb + (1 - amb) * diff
        hl = 255 * spec * max(0.0, HALF[0] * nx + HALF[1] * ny + HALF[2] * nz) ** shin
        return (col[0] * k + hl, col[1] * k + hl, col[2] * k + hl)
    return sh


def sheen(cx, cy, rx, ry, col, amount=0.12):
    """A flat surface slightly brighter towards the light."""
    def sh(x, y):
        t = ((x - cx) / rx * LIGHT[0] + (y - cy) / ry * LIGHT[1])
        return scale(col, 1 + amount * t)
    return sh


def textured(base, noise, amount, light=None):
    """Wrap a shader (or colour) so noise modulates its brightness: crumb, grain."""
    def sh(x, y):
        c = base(x, y) if callable(base) else base
        return scale(c, 1 + amount * (noise(x, y) - 0.5))
    return sh


# ---------------------------------------------------------------- scene helpers

def shadow(cv, cx, cy, rx, ry, opacity=0.35, soft=16):
    cv.paint(ellipse(cx, cy, rx, ry), (20, 14, 10), opacity, soft)


def plate(cv, cx, cy, rx, ry, col=(244, 242, 236), well=0.74, rim_col=None):
    """A round plate seen at an angle: soft shadow, rim, slightly sunken well."""
    shadow(cv, cx + 10, cy + 14, rx, ry)
    cv.paint(ellipse(cx, cy, rx, ry), sheen(cx, cy, rx, ry, col, 0.08))
    if rim_col:
        cv.paint(subtract(ellipse(cx, cy, rx - 6, ry - 4), ellipse(cx, cy, rx - 10, ry - 7)), rim_col)
    wx, wy = rx * well, ry * well
    inner = scale(col, 0.95)

    def well_sh(x, y):
        v = (y - cy) / wy
        return scale(inner, 0.97 + 0.05 * v)  # the far edge of the well is in shade
    cv.paint(ellipse(cx, cy + 2, wx, wy), well_sh)
    cv.paint(subtract(ellipse(cx, cy + 2, wx + 1.5, wy + 1.5), ellipse(cx, cy + 2, wx - 1, wy - 1)),
             scale(col, 0.82), 0.6)


def bowl(cv, cx, cy, rx, ry, col, inner_col, depth=0.82):
    """A bowl from above at an angle: outer wall, rim line, inner wall in shade."""
    shadow(cv, cx + 12, cy + 18, rx * 0.98, ry * 0.98)
    cv.paint(ellipse(cx, cy, rx, ry), dome(cx, cy - ry * 0.2, rx * 1.3, ry * 1.6, col, 0.55, 0.25, 30))
    cv.paint(ellipse(cx, cy - 2, rx - 6, ry - 5), sheen(cx, cy, rx, ry, scale(col, 1.08), 0.15))
    ix, iy = rx - 12, ry - 10

    def inner_sh(x, y):
        v = (y - cy) / iy
        return scale(inner_col, 0.78 + 0.22 * (1 - v) * 0.5 + 0.1 * clamp(-v))
    cv.paint(ellipse(cx, cy - 2, ix, iy), inner_sh)
    return ix * depth, iy * depth


def cylinder(cv, cx, ytop, rx, ry, h, side, top):
    """A round cake or stack layer: side band shaded like a cylinder, then the top.

    `side(x, y, depth)` gets the depth below the top edge so layers can be striped."""
    def side_sh(x, y):
        u = clamp((x - cx) / rx, -1, 1)
        yt = ytop + ry * math.sqrt(1 - u * u)
        k = 1.04 - 0.42 * ((u + 0.35) / 1.35) ** 2
        return scale(side(x, y, y - yt), k)
    body = union(rect(cx, ytop + h / 2, rx, h / 2), ellipse(cx, ytop + h, rx, ry))
    cv.paint(body, side_sh)
    cv.paint(ellipse(cx, ytop, rx, ry), top)


def leaf(cv, cx, cy, length, width, ang, col):
    """A herb leaf: pointed-ish ellipse with a lighter midrib."""
    cv.paint(ellipse(cx + 2, cy + 3, length, width, ang), (20, 20, 10), 0.25, 3)
    cv.paint(ellipse(cx, cy, length, width, ang), sheen(cx, cy, length, width, col, 0.25))
    cv.paint(rect(cx, cy, length * 0.85, 0.7, 0.5, ang), scale(col, 1.35), 0.7)


def berry(cv, cx, cy, r, col, spec=0.45):
    cv.paint(ellipse(cx + r * 0.35, cy + r * 0.5, r, r * 0.8), (10, 5, 5), 0.3, 3)
    cv.paint(ellipse(cx, cy, r, r), dome(cx, cy, r, r, col, 0.4, spec, 24))


def citrus_slice(cv, cx, cy, rx, ry, rind, flesh, segments=8):
    cv.paint(ellipse(cx + 3, cy + 4, rx, ry), (20, 20, 10), 0.25, 4)
    cv.paint(ellipse(cx, cy, rx, ry), rind)
    cv.paint(ellipse(cx, cy, rx * 0.9, ry * 0.9), (250, 248, 230))
    cv.paint(ellipse(cx, cy, rx * 0.82, ry * 0.82), sheen(cx, cy, rx, ry, flesh, 0.2))
    for k in range(segments):  # pale membranes between the segments
        a = 2 * math.pi * k / segments
        ex, ey = math.cos(a) * rx * 0.41, math.sin(a) * ry * 0.41
        ang = math.atan2(ey, ex)
        cv.paint(rect(cx + ex, cy + ey, math.hypot(ex, ey), 0.8, 0.4, ang), (250, 246, 225), 0.8)
    cv.paint(ellipse(cx, cy, rx * 0.1, ry * 0.1), (250, 246, 225))


def specks(cv, rnd, pts, col, size=1.2, opacity=0.9, stretch=2.0):
    for x, y in pts:
        cv.paint(ellipse(x, y, size * stretch, size, rnd.uniform(0, math.pi)), col, opacity)


# ---------------------------------------------------------------------- tables

def table_wood(cv, rnd, base=(150, 98, 60), plank=72):
    grain = Noise(rnd, 90, 7)
    blotch = Noise(rnd, 48)
    tints = [rnd.uniform(0.88, 1.08) for _ in range(H // plank + 2)]

    def sh(x, y):
        p = int(y // plank)
        g = math.sin((y + 14 * grain(x + p * 53, y)) * 0.55 + p)
        k = tints[p] * (0.93 + 0.05 * g + 0.12 * (blotch(x, y) - 0.5))
        if y % plank < 2.0:
            k *= 0.55  # the gap between planks
        return scale(base, k)
    cv.fill(sh)


def table_linen(cv, rnd, base=(226, 219, 204)):
    n = Noise(rnd, 60)

    def sh(x, y):
        k = 0.97 + 0.06 * (n(x, y) - 0.5)
        if int(x) % 3 == 0:
            k -= 0.025  # warp threads
        if int(y) % 3 == 0:
            k -= 0.025  # weft threads
        return scale(base, k)
    cv.fill(sh)


def table_marble(cv, rnd, base=(236, 234, 229)):
    n = Noise(rnd, 70)
    n2 = Noise(rnd, 26)

    def sh(x, y):
        v = abs(math.sin((x * 0.6 + y * 0.8) * 0.012 + 7 * n(x, y) + 1.5 * n2(x, y)))
        vein = clamp(1 - v / 0.035)
        return scale(mix(base, (170, 170, 178), 0.4 * vein), 0.985 + 0.03 * n2(x, y))
    cv.fill(sh)


def table_slate(cv, rnd, base=(64, 68, 74)):
    n = Noise(rnd, 50)
    n2 = Noise(rnd, 9)

    def sh(x, y):
        return scale(base, 0.88 + 0.2 * n(x, y) + 0.1 * n2(x, y))
    cv.fill(sh)


def table_gingham(cv, rnd, dark, light=(250, 248, 244), cell=24):
    n = Noise(rnd, 80)
    mid = mix(light, dark, 0.45)

    def sh(x, y):
        a = int(x // cell) % 2
        b = int(y // cell) % 2
        c = dark if a and b else mid if a or b else light
        return scale(c, 0.94 + 0.08 * n(x, y) - (0.03 if int(x + y) % 4 == 0 else 0))
    cv.fill(sh)


def table_gradient(cv, rnd, top, bottom):
    n = Noise(rnd, 40)

    def sh(x, y):
        return scale(mix(top, bottom, y / H), 0.98 + 0.04 * n(x, y))
    cv.fill(sh)


def table_paper(cv, rnd, base=(238, 226, 200)):
    n = Noise(rnd, 34)
    creases = Noise(rnd, 120, 18)

    def sh(x, y):
        c = abs(creases(x, y) - 0.5)
        return scale(base, 0.95 + 0.08 * n(x, y) - 0.05 * clamp(1 - c / 0.03))
    cv.fill(sh)


# ----------------------------------------------------------------------- dishes

def coconut_yoghurt_cake(cv, rnd):
    table_marble(cv, rnd)
    plate(cv, 240, 258, 214, 82)
    crumb = Noise(rnd, 3)
    cx, ytop, rx, ry, h = 240, 150, 146, 50, 96

    def side(x, y, depth):
        return scale((222, 186, 120), 1 + 0.16 * (crumb(x, y) - 0.5) - 0.1 * clamp(depth / h))
    cylinder(cv, cx, ytop, rx, ry, h, side, sheen(cx, ytop, rx, ry, (252, 250, 244), 0.05))
    # Yoghurt icing runs over the edge in drips of different lengths.
    for k in range(13):
        u = -0.92 + k * 0.153 + rnd.uniform(-0.03, 0.03)
        x = cx + u * rx
        yt = ytop + ry * math.sqrt(1 - u * u)
        ln = rnd.uniform(10, 42)
        cv.paint(rect(x, yt + ln / 2 - 4, 7, ln / 2 + 4, 7), (250, 248, 240))
    cv.paint(ellipse(cx, ytop, rx, ry), sheen(cx, ytop, rx, ry, (252, 250, 244), 0.05))
    for x, y in scatter(rnd, cx, ytop, rx - 8, ry - 5, 150):  # toasted coconut flakes
        a = rnd.uniform(0, math.pi)
        cv.paint(ellipse(x + 1, y + 1.5, 6, 1.8, a), (200, 190, 170), 0.6)
        cv.paint(ellipse(x, y, 6, 1.8, a), (255, 253, 246) if rnd.random() < 0.7 else (236, 206, 150))
    specks(cv, rnd, scatter(rnd, cx, ytop, rx - 20, ry - 10, 60), (120, 170, 40), 1.2)  # lime zest
    citrus_slice(cv, 205, 148, 30, 13, (110, 160, 40), (196, 224, 120))
    citrus_slice(cv, 262, 140, 27, 12, (110, 160, 40), (196, 224, 120))


def burnt_butter_almond_cake(cv, rnd):
    table_wood(cv, rnd, (120, 80, 52))
    plate(cv, 240, 250, 216, 86, (70, 74, 80))
    crumb = Noise(rnd, 4)
    cx, ytop, rx, ry, h = 240, 170, 160, 56, 62

    def side(x, y, depth):
        return scale((170, 104, 48), 1 + 0.18 * (crumb(x, y) - 0.5) - 0.15 * clamp(depth / h))
    top_n = Noise(rnd, 14)
    cylinder(cv, cx, ytop, rx, ry, h, side,
             textured(sheen(cx, ytop, rx, ry, (204, 140, 66), 0.1), top_n, 0.22))
    for x, y in scatter(rnd, cx, ytop, rx - 14, ry - 8, 70):  # flaked almonds
        a = rnd.uniform(0, math.pi)
        cv.paint(ellipse(x + 1, y + 2, 9, 4.2, a), (90, 50, 20), 0.45, 2)
        cv.paint(ellipse(x, y, 9, 4.2, a), (150, 96, 46))
        cv.paint(ellipse(x, y, 7.6, 3.2, a), sheen(x, y, 8, 4, (240, 222, 186), 0.3))
    # A line of icing sugar dusted across the middle.
    for x, y in scatter(rnd, cx, ytop, rx * 0.75, ry * 0.32, 260):
        cv.paint(ellipse(x, y, 1.1, 1.1), (252, 250, 246), 0.75)


def tart_al_limone(cv, rnd):
    table_linen(cv, rnd)
    plate(cv, 240, 190, 220, 140, (246, 246, 242), 0.8)
    cx, cy = 240, 184
    shadow(cv, cx + 8, cy + 10, 168, 104, 0.3, 8)
    crust = (214, 158, 86)
    cv.paint(ellipse(cx, cy, 166, 102, wobble=0.025, lobes=28),
             dome(cx, cy, 190, 130, crust, 0.55, 0.15, 10))
    cv.paint(ellipse(cx, cy, 146, 88), scale(crust, 0.78))  # inner wall of the case
    burn = Noise(rnd, 22)

    def filling(x, y):
        c = dome(cx, cy - 4, 150, 96, (250, 210, 64), 0.78, 0.3, 10)(x, y)
        return mix(c, (214, 132, 40), 0.35 * clamp((burn(x, y) - 0.7) * 5))  # caramelised patches
    cv.paint(ellipse(cx, cy + 2, 140, 83), filling)
    citrus_slice(cv, 282, 166, 38, 24, (236, 200, 40), (248, 228, 120), 10)
    leaf(cv, 236, 160, 22, 8, -0.5, (54, 130, 60))
    leaf(cv, 240, 182, 19, 7, 0.45, (62, 140, 64))
    for x, y in scatter(rnd, cx, cy, 164, 100, 220, inner=0.86):  # sugar on the crust
        cv.paint(ellipse(x, y, 1.1, 1.1), (255, 253, 250), 0.8)


def pumpkin_soup(cv, rnd):
    table_slate(cv, rnd)
    sx, sy = bowl(cv, 240, 186, 190, 124, (58, 118, 128), (232, 128, 40))
    cv.paint(ellipse(240, 188, sx, sy), dome(225, 170, sx * 1.3, sy * 1.3, (232, 128, 40), 0.72, 0.18, 12))
    # A spiral of cream drawn as a chain of overlapping dots.
    t = 0.0
    while t < 4.2 * math.pi:
        r = 6 + t * 6.2
        x, y = 236 + r * math.cos(t), 186 + r * math.sin(t) * 0.62
        cv.paint(ellipse(x, y, 4.2, 3.2), (250, 244, 228), 0.92)
        t += 0.09
    for x, y in scatter(rnd, 240, 188, sx * 0.9, sy * 0.9, 14):  # toasted pepitas
        a = rnd.uniform(0, math.pi)
        cv.paint(ellipse(x + 1, y + 2, 8, 3.5, a), (60, 30, 10), 0.35, 2)
        cv.paint(ellipse(x, y, 8, 3.5, a), sheen(x, y, 8, 4, (96, 128, 52), 0.3))
    specks(cv, rnd, scatter(rnd, 240, 188, sx * 0.8, sy * 0.8, 70), (40, 30, 25), 0.9)
    specks(cv, rnd, scatter(rnd, 240, 188, sx * 0.6, sy * 0.6, 30), (70, 140, 50), 1.4)


def blueberry_pancakes(cv, rnd):
    table_gingham(cv, rnd, (70, 110, 170))
    plate(cv, 240, 250, 214, 92)
    spots = Noise(rnd, 9)
    cx, rx, ry, h = 240, 126, 44, 15
    for i in range(5):  # bottom pancake first
        ytop = 232 - i * 17 + rnd.uniform(-1, 1)
        ox = rnd.uniform(-6, 6)

        def side(x, y, depth):
            return scale((196, 132, 62), 1.05 - 0.35 * clamp(depth / h))
        top = textured(sheen(cx + ox, ytop, rx, ry, (214, 156, 80), 0.1), spots, 0.35)
        cylinder(cv, cx + ox, ytop, rx, ry, h, side, top)
    ytop = 232 - 4 * 17
    syrup = (150, 70, 14)
    cv.paint(ellipse(cx - 6, ytop + 2, 92, 30, wobble=0.08, lobes=5), dome(cx - 20, ytop - 6, 120, 44, syrup, 0.8, 0.5, 30), 0.8)
    for u, ln in ((-0.5, 34), (0.1, 52), (0.55, 24)):  # syrup running down the stack
        x = cx + u * rx
        cv.paint(rect(x, ytop + ry * 0.8 + ln / 2, 6, ln / 2 + 6, 6), dome(x - 2, ytop + 40, 10, 60, syrup, 0.8, 0.5, 30), 0.8)
    cv.paint(rect(cx + 6, ytop - 4, 20, 12, 5), (246, 226, 150))
    cv.paint(rect(cx + 6, ytop - 7, 18, 9, 5), sheen(cx + 6, ytop - 7, 18, 9, (252, 236, 170), 0.3))
    for x, y in [(cx - 40, ytop - 6), (cx - 20, ytop + 10), (cx + 40, ytop + 6), (cx + 30, ytop - 16)] + \
            scatter(rnd, cx, 300, 170, 24, 9):
        berry(cv, x, y, 9, (54, 62, 120))
        cv.paint(ellipse(x + 1, y - 2, 2.5, 2.5), (30, 30, 60), 0.8)  # the blossom end


def chocolate_beetroot_brownies(cv, rnd):
    table_wood(cv, rnd, (96, 62, 40), 90)
    board = rect(240, 190, 200, 130, 14)
    cv.paint(rect(252, 204, 200, 130, 14), (15, 10, 5), 0.4, 16)
    grain = Noise(rnd, 70, 5)
    cv.paint(board, lambda x, y: scale((206, 164, 114), 0.94 + 0.12 * grain(x, y)))
    crackle = Noise(rnd, 11)
    for row in range(2):
        for col in range(3):
            x = 128 + col * 112 + rnd.uniform(-4, 4)
            y = 130 + row * 108 + rnd.uniform(-3, 3)
            cv.paint(rect(x + 6, y + 14, 48, 44, 6), (20, 10, 5), 0.45, 8)
            cv.paint(rect(x, y + 10, 48, 42, 6), (60, 34, 24))  # front face

            def top(px, py, x=x, y=y):
                c = sheen(x, y, 48, 40, (96, 58, 40), 0.18)(px, py)
                v = abs(crackle(px, py) - 0.5)
                return scale(c, 1.22) if v < 0.035 else c  # cracked shiny crust
            cv.paint(rect(x, y, 48, 40, 6), top)
    for x, y in scatter(rnd, 240, 190, 190, 120, 6):  # raspberries on the board
        for dx, dy in ((0, 0), (5, -2), (-5, -1), (2, 5), (-3, 5), (1, -5)):
            berry(cv, x + dx, y + dy, 4.2, (176, 30, 56), 0.35)
    specks(cv, rnd, scatter(rnd, 240, 190, 180, 120, 120), (70, 40, 26), 1.0, 0.7)


def spiced_apple_lattice_pie(cv, rnd):
    table_gingham(cv, rnd, (178, 48, 46))
    cx, cy = 240, 184
    shadow(cv, cx + 12, cy + 16, 188, 122)
    cv.paint(ellipse(cx, cy, 188, 122), dome(cx, cy, 220, 150, (232, 224, 206), 0.7, 0.3, 20))
    pastry = (222, 168, 92)
    cv.paint(ellipse(cx, cy, 166, 106, wobble=0.03, lobes=22), dome(cx, cy, 200, 140, pastry, 0.55, 0.2, 10))
    chunks = Noise(rnd, 7)
    inside = ellipse(cx, cy, 142, 88)
    cv.paint(inside, lambda x, y: scale((176, 98, 36), 0.8 + 0.45 * chunks(x, y)))
    for ang in (0.5, -0.5):  # two layers of pastry strips, the second on top
        for k in range(-3, 4):
            off = k * 44
            sx, sy = cx + off * math.cos(ang + math.pi / 2), cy + off * math.sin(ang + math.pi / 2) * 0.65
            strip = intersect(rect(sx, sy, 200, 9, 4, ang), ellipse(cx, cy, 150, 94))
            cv.paint(intersect(rect(sx + 3, sy + 4, 200, 9, 4, ang), inside), (40, 20, 5), 0.35, 4)

            def strip_sh(x, y, sx=sx, sy=sy, ang=ang):
                d = -(x - sx) * math.sin(ang) + (y - sy) * math.cos(ang)
                return scale(pastry, 1.08 - 0.25 * (d / 9) ** 2 - 0.1 * d / 9)
            cv.paint(strip, strip_sh)
    specks(cv, rnd, scatter(rnd, cx, cy, 150, 96, 200), (252, 246, 232), 1.0, 0.8)


def margherita_flatbread(cv, rnd):
    table_wood(cv, rnd, (160, 112, 70), 80)
    cx, cy = 240, 186
    shadow(cv, cx + 10, cy + 14, 196, 130)
    char = Noise(rnd, 10)

    def crust(x, y):
        c = dome(cx, cy, 230, 160, (224, 170, 96), 0.6, 0.15, 8)(x, y)
        return scale(c, 1 - 0.5 * clamp((char(x, y) - 0.7) * 3))  # blistered spots
    cv.paint(ellipse(cx, cy, 196, 130, wobble=0.02, lobes=7, phase=1.0), crust)
    sauce = Noise(rnd, 8)
    cv.paint(ellipse(cx, cy, 170, 110, wobble=0.03, lobes=9),
             lambda x, y: scale((188, 46, 28), 0.85 + 0.3 * sauce(x, y)))
    for x, y in scatter(rnd, cx, cy, 130, 80, 9):  # torn mozzarella
        r = rnd.uniform(20, 28)
        cv.paint(ellipse(x, y, r, r * 0.75, wobble=0.06, lobes=3, phase=rnd.uniform(0, 6)),
                 dome(x, y, r * 1.2, r, (250, 242, 222), 0.7, 0.25, 12))
        cv.paint(ellipse(x + 4, y + 3, r * 0.3, r * 0.2), (226, 176, 100), 0.4, 6)
    for x, y in scatter(rnd, cx, cy, 140, 84, 7):
        leaf(cv, x, y, 15, 8, rnd.uniform(0, math.pi), (44, 120, 40))
    specks(cv, rnd, scatter(rnd, cx, cy, 160, 100, 80), (40, 30, 20), 0.9)


def pea_and_mint_risotto(cv, rnd):
    table_linen(cv, rnd, (210, 218, 226))
    sx, sy = bowl(cv, 240, 186, 196, 126, (246, 244, 238), (238, 236, 228), 0.86)
    cv.paint(ellipse(240, 190, sx, sy, wobble=0.03, lobes=6), sheen(240, 190, sx, sy, (214, 212, 150), 0.12))
    for x, y in scatter(rnd, 240, 190, sx - 4, sy - 4, 420):  # grains of rice
        a = rnd.uniform(0, math.pi)
        cv.paint(ellipse(x, y, 4.5, 2.2, a), dome(x, y, 5, 3, (240, 236, 196), 0.75, 0.25, 12))
    for x, y in scatter(rnd, 240, 190, sx - 10, sy - 8, 34):
        berry(cv, x, y, 6.5, (96, 168, 58), 0.35)
    for x, y in scatter(rnd, 240, 190, sx * 0.6, sy * 0.6, 5):  # shaved parmesan
        cv.paint(rect(x, y, 14, 5, 2, rnd.uniform(0, math.pi)), (248, 236, 190), 0.95)
    leaf(cv, 262, 170, 22, 9, 0.4, (60, 140, 70))
    leaf(cv, 226, 184, 20, 8, -0.5, (52, 128, 64))
    leaf(cv, 262, 200, 18, 8, 2.6, (66, 148, 76))


def raspberry_pavlova(cv, rnd):
    table_gradient(cv, rnd, (246, 214, 218), (222, 200, 214))
    plate(cv, 240, 262, 210, 74, (214, 232, 238))
    cx, ytop, rx, ry, h = 240, 150, 150, 50, 88
    crack = Noise(rnd, 6)

    def side(x, y, depth):
        u = (x - cx) / rx
        ridge = 0.06 * math.sin(u * 34 + depth * 0.05)  # swirls left by the spatula
        warm = mix((248, 242, 228), (232, 206, 170), clamp(depth / h) * 0.6)
        return scale(warm, 1 + ridge + 0.08 * (crack(x, y) - 0.5))
    cream = (255, 252, 246)
    cylinder(cv, cx, ytop, rx, ry, h, side, (240, 232, 216))
    cv.paint(ellipse(cx, ytop - 4, rx - 14, ry - 6, wobble=0.05, lobes=11),
             dome(cx, ytop - 10, rx, ry * 1.4, cream, 0.8, 0.2, 8))
    for x, y in sorted(scatter(rnd, cx, ytop - 6, rx - 36, ry - 16, 22), key=lambda p: p[1]):
        # A raspberry is a cluster of little drupelets.
        for dx, dy in ((0, 0), (-5, -3), (5, -3), (-5, 4), (5, 4), (0, -6), (0, 6)):
            berry(cv, x + dx, y + dy, 4.8, (198, 30, 58), 0.4)
    for x, y in scatter(rnd, cx, ytop - 6, rx - 50, ry - 20, 6):
        berry(cv, x, y, 7, (56, 60, 118))
    leaf(cv, cx + 16, ytop - 16, 16, 7, -0.6, (60, 140, 70))
    leaf(cv, cx - 30, ytop - 2, 14, 6, 0.8, (60, 140, 70))


def cinnamon_doughnuts(cv, rnd):
    table_paper(cv, rnd)
    for cx, cy, rx, ry in ((150, 130, 96, 74), (330, 148, 92, 70), (236, 262, 98, 74)):
        # The shadow is a ring too, so the paper shows through the hole.
        cv.paint(subtract(ellipse(cx + 10, cy + 14, rx, ry), ellipse(cx + 10, cy + 10, rx * 0.3, ry * 0.28)),
                 (20, 14, 10), 0.35, 16)
        ring = subtract(ellipse(cx, cy, rx, ry), ellipse(cx, cy - 4, rx * 0.3, ry * 0.28))

        def torus(x, y, cx=cx, cy=cy, rx=rx, ry=ry):
            u, v = (x - cx) / rx, (y - cy) / ry
            d = math.sqrt(u * u + v * v)
            t = clamp((d - 0.3) / 0.7)
            bump = math.sin(math.pi * t)
            # The tube's surface normal points outwards from the ring's centre line.
            n = math.cos(math.pi * t)
            nx, ny = (u / d * -n if d else 0), (v / d * -n if d else 0)
            lit = 0.55 + 0.35 * bump + 0.25 * (nx * LIGHT[0] + ny * LIGHT[1]) * -1
            return scale((208, 140, 68), lit)
        cv.paint(ring, torus)
        pts = scatter(rnd, cx, cy, rx - 4, ry - 4, 300, inner=0.34)
        for x, y in pts:  # cinnamon sugar crystals
            cv.paint(ellipse(x, y, 1.3, 1.1), (250, 240, 220) if rnd.random() < 0.7 else (140, 80, 40), 0.8)
    specks(cv, rnd, [(rnd.uniform(0, W), rnd.uniform(0, H)) for _ in range(60)], (160, 100, 50), 1.0, 0.6)


def miso_salmon_bowl(cv, rnd):
    table_slate(cv, rnd, (44, 48, 54))
    sx, sy = bowl(cv, 240, 184, 200, 128, (38, 38, 42), (30, 30, 34), 0.88)
    cv.paint(ellipse(240, 188, sx, sy), (236, 234, 226))
    for x, y in scatter(rnd, 240, 188, sx - 4, sy - 4, 380):  # rice grains
        a = rnd.uniform(0, math.pi)
        cv.paint(ellipse(x, y, 4.2, 2.0, a), dome(x, y, 5, 3, (250, 250, 244), 0.7, 0.3, 14))
    for i in range(6):  # glazed salmon cubes, piled on the left
        x = 156 + (i % 3) * 40 + (i // 3) * 16 + rnd.uniform(-3, 3)
        y = 160 + (i // 3) * 40 + rnd.uniform(-3, 3)
        cv.paint(rect(x + 4, y + 6, 21, 18, 6), (40, 20, 10), 0.4, 5)

        def salmon(px, py, x=x, y=y):
            stripe = 0.14 if int((px - x + py - y) / 6) % 3 == 0 else 0  # pale fat lines
            return scale(sheen(x, y, 21, 18, (232, 112, 66), 0.3)(px, py), 1 + stripe)
        cv.paint(rect(x, y, 21, 18, 6), salmon)
        cv.paint(rect(x - 2, y - 4, 17, 11, 6), (160, 64, 20), 0.3)  # miso glaze
    for k in range(6):  # a fan of avocado
        a = -0.6 + k * 0.2
        x, y = 318 + 40 * math.cos(a), 176 + 30 * math.sin(a)
        cv.paint(ellipse(x + 2, y + 3, 32, 11, a + 0.4), (20, 30, 10), 0.3, 4)
        cv.paint(ellipse(x, y, 32, 11, a + 0.4), (64, 104, 36))
        cv.paint(ellipse(x - 1, y - 1, 29, 9, a + 0.4), sheen(x, y, 29, 9, (196, 214, 112), 0.3))
    for x, y in scatter(rnd, 300, 246, 48, 16, 14):  # edamame
        berry(cv, x, y, 7, (108, 170, 60), 0.3)
    for x, y in ((196, 250), (226, 258), (166, 240)):  # cucumber slices
        cv.paint(ellipse(x, y, 15, 11), (60, 120, 50))
        cv.paint(ellipse(x, y, 13, 9.5), sheen(x, y, 13, 9, (206, 230, 170), 0.2))
        cv.paint(ellipse(x, y, 5, 3.5), (170, 200, 120), 0.7)
    for x, y in scatter(rnd, 240, 188, sx - 20, sy - 14, 16):  # spring onion rings
        cv.paint(subtract(ellipse(x, y, 5, 4), ellipse(x, y, 2.5, 2)), (110, 180, 70))
    specks(cv, rnd, scatter(rnd, 240, 188, sx - 10, sy - 10, 70), (250, 244, 220), 1.2)
    specks(cv, rnd, scatter(rnd, 240, 188, sx - 10, sy - 10, 40), (20, 20, 20), 1.2)


def oat_honey_cookies(cv, rnd):
    table_wood(cv, rnd, (176, 136, 96), 64)
    plate(cv, 240, 196, 222, 140, (238, 240, 244))
    flakes = Noise(rnd, 5)
    for cx, cy in ((170, 150), (300, 140), (236, 210), (150, 236), (330, 232)):
        r = rnd.uniform(56, 64)
        cv.paint(ellipse(cx + 6, cy + 9, r, r * 0.72), (30, 20, 10), 0.35, 8)

        def cookie(x, y, cx=cx, cy=cy, r=r):
            c = dome(cx, cy, r * 1.2, r, (204, 146, 74), 0.6, 0.12, 6)(x, y)
            return scale(c, 0.88 + 0.26 * flakes(x, y))
        cv.paint(ellipse(cx, cy, r, r * 0.72, wobble=0.04, lobes=9, phase=cx), cookie)
        for x, y in scatter(rnd, cx, cy, r * 0.85, r * 0.6, 16):  # rolled oats
            cv.paint(ellipse(x, y, 5, 3, rnd.uniform(0, math.pi)), (236, 210, 160), 0.8)
        for x, y in scatter(rnd, cx, cy, r * 0.8, r * 0.55, 6):  # sultanas
            cv.paint(ellipse(x, y, 4, 3, rnd.uniform(0, math.pi)), (80, 40, 30))


def shakshuka_with_feta(cv, rnd):
    table_linen(cv, rnd, (200, 190, 176))
    cx, cy = 226, 184
    cv.paint(rect(432, 190, 60, 14, 8, 0.05), (20, 10, 5), 0.35, 10)
    cv.paint(rect(420, 180, 64, 13, 8, 0.05), dome(420, 170, 80, 30, (40, 40, 44), 0.6, 0.3, 20))
    shadow(cv, cx + 12, cy + 16, 196, 130)
    cv.paint(ellipse(cx, cy, 196, 130), dome(cx, cy, 230, 160, (44, 44, 48), 0.6, 0.35, 20))
    sauce = Noise(rnd, 9)
    cv.paint(ellipse(cx, cy, 174, 112), lambda x, y: scale((178, 44, 26), 0.78 + 0.4 * sauce(x, y)))
    for x, y in ((170, 140), (280, 150), (190, 228), (290, 226)):
        cv.paint(ellipse(x, y, 44, 32, wobble=0.1, lobes=5, phase=x),
                 dome(x, y, 50, 38, (250, 248, 240), 0.82, 0.2, 10))
        berry(cv, x + 2, y - 2, 15, (250, 176, 36), 0.5)
        cv.paint(ellipse(x + 2, y - 2, 15, 15), dome(x + 2, y - 2, 15, 15, (250, 176, 36), 0.72, 0.45, 24))
    for x, y in scatter(rnd, cx, cy, 160, 100, 14):  # feta crumbs
        cv.paint(rect(x, y, 6, 5, 2, rnd.uniform(0, 1.5)), sheen(x, y, 6, 5, (250, 250, 244), 0.3))
    specks(cv, rnd, scatter(rnd, cx, cy, 160, 104, 60), (60, 130, 50), 1.6)
    specks(cv, rnd, scatter(rnd, cx, cy, 160, 104, 50), (110, 20, 10), 1.0)


DRAWINGS = {
    "coconut-yoghurt-cake": coconut_yoghurt_cake,
    "burnt-butter-almond-cake": burnt_butter_almond_cake,
    "tart-al-limone": tart_al_limone,
    "pumpkin-soup-with-toasted-pepitas": pumpkin_soup,
    "blueberry-buttermilk-pancakes": blueberry_pancakes,
    "chocolate-beetroot-brownies": chocolate_beetroot_brownies,
    "spiced-apple-lattice-pie": spiced_apple_lattice_pie,
    "margherita-flatbread": margherita_flatbread,
    "pea-and-mint-risotto": pea_and_mint_risotto,
    "raspberry-pavlova": raspberry_pavlova,
    "cinnamon-sugar-doughnuts": cinnamon_doughnuts,
    "miso-glazed-salmon-bowl": miso_salmon_bowl,
    "oat-and-honey-cookies": oat_honey_cookies,
    "shakshuka-with-feta": shakshuka_with_feta,
}


def main():
    # Every picture the seed refers to must have a drawing, or the seed would load
    # with a missing file; fail early and say which one.
    if os.path.exists(SEED_JSON):
        with open(SEED_JSON, encoding="utf-8") as f:
            wanted = [p["image"] for p in json.load(f)["products"]]
        missing = [p for p in wanted if os.path.basename(p)[:-4] not in DRAWINGS]
        if missing:
            sys.exit("error: no drawing for %s (add one to DRAWINGS)" % ", ".join(missing))
    os.makedirs(OUT_DIR, exist_ok=True)
    failures = []
    for slug, draw in DRAWINGS.items():
        rnd = random.Random(zlib.crc32(slug.encode()))  # per-picture seed: order does not matter
        cv = Canvas(W, H)
        draw(cv, rnd)
        cv.finish()
        data = png_bytes(W, H, cv.px)
        path = os.path.join(OUT_DIR, slug + ".png")
        with open(path, "wb") as f:
            f.write(data)
        ok = MIN_BYTES <= len(data) <= MAX_BYTES
        print("%-40s %6d bytes%s" % (slug + ".png", len(data), "" if ok else "  OUT OF RANGE"))
        if not ok:
            failures.append(slug)
    if failures:
        sys.exit("error: %d picture(s) outside %d..%d bytes: %s (tune their texture)"
                 % (len(failures), MIN_BYTES, MAX_BYTES, ", ".join(failures)))


if __name__ == "__main__":
    main()
