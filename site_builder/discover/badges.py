"""SVG badges an implementation's project can embed: "KernelIndex | 3 records · best #1".

Text widths come from a fixed table of Verdana 11 px advance widths (what most badge services
assume), so no font library is needed and two builds draw identical bytes. Every text is escaped.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape

# Advance widths in px of Verdana at 11 px, for printable ASCII (space .. ~).
_ASCII_WIDTHS = (
    3.87, 4.33, 5.05, 9.0, 7.0, 11.84, 7.99, 2.95, 4.99, 4.99, 7.0, 9.0, 4.0, 4.99, 4.0, 4.99,  # space .. /
    7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0,  # 0 .. 9
    4.99, 4.99, 9.0, 9.0, 9.0, 6.0, 11.0,  # : ; < = > ? @
    7.52, 7.54, 7.68, 8.48, 6.96, 6.32, 8.53, 8.27, 4.62, 5.0, 7.62, 6.12, 9.27, 8.23, 8.66, 6.63, 8.66, 7.65,
    7.52, 6.78, 8.05, 7.52, 10.87, 7.54, 6.77, 7.54,  # A .. Z
    4.99, 4.99, 4.99, 9.0, 7.0, 7.0,  # [ \ ] ^ _ `
    6.61, 6.85, 5.73, 6.85, 6.55, 3.87, 6.85, 6.96, 3.02, 3.79, 6.51, 3.02, 10.69, 6.96, 6.68, 6.85, 6.85, 4.69,
    5.73, 4.33, 6.96, 6.51, 9.0, 6.51, 6.51, 5.75,  # a .. z
    6.98, 4.99, 6.98, 9.0,  # { | } ~
)
_OTHER_WIDTHS = {"·": 4.0, "×": 9.0, "—": 11.0, "–": 7.0, "…": 11.0, "µ": 7.0}
_WIDE = 11.0  # any other character: as wide as a wide Latin letter, never narrower than drawn
PADDING = 6  # px on each side of a text

COLOURS = {"record": "#1a7f37", "ranked": "#0b5cad", "none": "#6e7781"}


@lru_cache(maxsize=256)  # a build draws a badge per implementation, from a few distinct texts
def text_width(text: str) -> float:
    total = 0.0
    for char in text:
        code = ord(char)
        if 32 <= code <= 126:
            total += _ASCII_WIDTHS[code - 32]
        else:
            total += _OTHER_WIDTHS.get(char, _WIDE)
    return total


def badge_message(records: int, best_rank: int | None) -> tuple[str, str]:
    """(message, colour key) for an implementation."""
    if best_rank is None:
        return "not ranked", "none"
    if records:
        return f"{records} record{'s' if records != 1 else ''} · best #{best_rank}", "record"
    return f"no records · best #{best_rank}", "ranked"


def badge_svg(label: str, message: str, colour: str, title: str | None = None) -> str:
    left = round(text_width(label) + 2 * PADDING)
    right = round(text_width(message) + 2 * PADDING)
    width = left + right
    spoken = escape(title or f"{label}: {message}", quote=True)
    label_text, message_text = escape(label, quote=False), escape(message, quote=False)
    # Text is drawn at 10× and scaled down, as badge services do, for crisp sub-pixel placement.
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{spoken}">'
        f"<title>{spoken}</title>"
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        '<stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{escape(colour, quote=True)}"/>'
        f'<rect width="{width}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        'text-rendering="geometricPrecision" font-size="110">'
        f'<text aria-hidden="true" x="{left * 5}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" '
        f'textLength="{(left - 2 * PADDING) * 10}">{label_text}</text>'
        f'<text x="{left * 5}" y="140" transform="scale(.1)" textLength="{(left - 2 * PADDING) * 10}">{label_text}</text>'
        f'<text aria-hidden="true" x="{left * 10 + right * 5}" y="150" fill="#010101" fill-opacity=".3" '
        f'transform="scale(.1)" textLength="{(right - 2 * PADDING) * 10}">{message_text}</text>'
        f'<text x="{left * 10 + right * 5}" y="140" transform="scale(.1)" '
        f'textLength="{(right - 2 * PADDING) * 10}">{message_text}</text>'
        "</g></svg>\n"
    )
