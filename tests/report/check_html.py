#!/usr/bin/env python3
"""Renders an rp HTML report in headless Chromium and checks it.

Usage: check_html.py REPORT_HTML CATEGORY... [--lanes N]
       check_html.py REPORT_HTML --network SENDERS

The page must load offline (no external references), its DOM must hold a
finding section for each CATEGORY given, the pictures (SVG) the report
promises and, with --lanes, a timeline of N lanes; with --network (rp-hops'
report), the heat map with a row per sender, its cells, and the stacked
bars; and the screenshot must not be blank: most of it white page, but
thousands of pixels of colour.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from checks import check, status  # noqa: E402

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--allow-file-access-from-files", "--window-size=1100,2400"]


def chromium(args):
    env = dict(os.environ, HOME=tempfile.mkdtemp())
    return subprocess.run(CHROMIUM + args, capture_output=True, env=env, timeout=120)


def png_pixels(path):
    """RGB(A) rows of a PNG (8-bit, non-interlaced), unfiltered."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8, "8-bit PNG expected"
            channels = {2: 3, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def check_network(dom, senders):
    """rp-hops' pictures: the heat map (a labelled row per sender, cells
    with tooltips) and the per-sender stacked bars."""
    label = 'aria-label="end-to-end latency by send time and sender"'
    check(label in dom, "a heat map")
    heat = dom[dom.index(label):] if label in dom else ""
    heat = heat[:heat.index("</svg>")] if heat else ""
    rows = len(re.findall(r'text-anchor="end">h\d+</text>', heat))
    check(rows == senders, f"heat map rows labelled: {rows}, senders {senders}")
    cells = heat.count("<title>")
    check(cells >= senders * 10, f"heat map cells: {cells}")
    check('aria-label="mean latency of each sender\'s packets, by device"' in dom, "stacked bars per sender")


def main(report, categories, lanes, network):
    html = open(report).read()
    check(not re.search(r'(src|href)="(https?:)?//', html), "no external references: the page works offline")
    dom = chromium(["--dump-dom", "file://" + os.path.abspath(report)]).stdout.decode()
    check("<h1>rp report</h1>" in dom, "Chromium loaded the page")
    if network:
        check_network(dom, network)
    else:
        check_findings(dom, categories, lanes)
    screenshot(report)


def check_findings(dom, categories, lanes):
    for c in categories:
        check(f'data-category="{c}"' in dom, f"the DOM holds a {c} finding")
    check(dom.count("<svg") >= 3 + len(categories), f"{dom.count('<svg')} SVG pictures")
    check('aria-label="timeline of a representative phase"' in dom, "a timeline")
    check('aria-label="time by rank: computation, MPI and waiting"' in dom, "per-rank stacked bars")
    if lanes:
        timeline = dom[dom.index('aria-label="timeline of a representative phase"'):]
        timeline = timeline[:timeline.index("</svg>")]
        shown = len(re.findall(r">ranks? \d+(–\d+)?</text>", timeline))
        check(shown >= min(lanes, 16), f"timeline lanes labelled: {shown} (of {lanes} lanes)")


def screenshot(report):
    shot = os.path.join(tempfile.mkdtemp(), "report.png")
    chromium([f"--screenshot={shot}", "file://" + os.path.abspath(report)])
    width, height, channels, rows = png_pixels(shot)
    white = coloured = 0
    for row in rows:
        for x in range(0, width * channels, channels * 4):  # every 4th pixel
            r, g, b = row[x], row[x + 1], row[x + 2]
            if r > 245 and g > 245 and b > 245:
                white += 1
            elif max(r, g, b) - min(r, g, b) > 60:
                coloured += 1
    total = height * ((width + 3) // 4)
    check(white > total // 3, f"screenshot mostly page: {100 * white // total}% white")
    check(coloured > 2000, f"screenshot not blank: {coloured} sampled pixels in colour")


if __name__ == "__main__":
    args = sys.argv[1:]
    options = {"--lanes": 0, "--network": 0}
    for name in options:
        if name in args:
            i = args.index(name)
            options[name] = int(args[i + 1])
            del args[i:i + 2]
    main(args[0], args[1:], options["--lanes"], options["--network"])
    sys.exit(status())
