"""favicon.ico: a 16×16 icon drawn here, so every page's icon request finds a file (browsers ask
for /favicon.ico even when a page names none) and the repository holds no binary asset."""

from __future__ import annotations

import struct

SIZE = 16
BLUE = (0xAD, 0x5C, 0x0B, 0xFF)  # the site's accent #0b5cad, as BGRA
WHITE = (0xFF, 0xFF, 0xFF, 0xFF)
# Three rising bars: a leaderboard, legible at 16 px. (row from the top, first column, last column)
BARS = [(9, 3, 5), (6, 7, 9), (3, 11, 13)]


def _pixel(x: int, y: int) -> tuple[int, int, int, int]:
    for top, left, right in BARS:
        if left <= x <= right and top <= y <= 13:
            return WHITE
    return BLUE


def favicon_ico() -> bytes:
    """An ICO holding one 32-bit BMP image (the layout every browser reads)."""
    rows = [bytes(b for x in range(SIZE) for b in _pixel(x, y)) for y in reversed(range(SIZE))]  # BMP: bottom-up
    mask = bytes(4 * SIZE)  # 1-bit AND mask, rows padded to 4 bytes: all opaque
    header = struct.pack("<IiiHHIIiiII", 40, SIZE, SIZE * 2, 1, 32, 0, 0, 0, 0, 0, 0)
    image = header + b"".join(rows) + mask
    directory = struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 22)
    return directory + image
