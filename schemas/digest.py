"""RFC 8785 (JSON Canonicalization Scheme) serialisation and ``sha256:`` digests.

JCS: object keys sorted by their UTF-16 code units, no insignificant whitespace, strings with
minimal escaping, and numbers printed the way ECMAScript's ``Number.prototype.toString`` prints
them (shortest round-trip digits; ``8000`` not ``8000.0``; ``1e-7`` but ``0.000001``).
"""

from __future__ import annotations

import hashlib
import json
import math
from decimal import Decimal
from typing import Any

API_VERSION = "kernelindex.dev/v1alpha1"


def format_number(value: int | float) -> str:
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers")
    if isinstance(value, int):
        if abs(value) >= 2**53:
            # Above 2^53 an ECMAScript number is no longer exact; print what a JS runtime would.
            return format_number(float(value))
        return str(value)
    if not math.isfinite(value):
        raise ValueError("NaN and infinity have no JSON form")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    k = len(digits)
    n = digits_tuple.exponent + k  # value = 0.digits × 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        exponent = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if exponent > 0 else '-'}{abs(exponent)}"
    return sign + text


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be")


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(format_number(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, dict):
        out.append("{")
        for index, key in enumerate(sorted(value, key=_utf16_key)):
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings, got {type(key).__name__}")
            if index:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} has no canonical JSON form")


def canonical_json(value: Any) -> str:
    """The RFC 8785 text of ``value``: what every digest and comparison key hashes."""
    try:
        # json's C encoder writes RFC 8785 itself for the values _plain_json lets through, which
        # are most documents (every entity's digest hashes one); only the rest need _write's rules.
        return _SORTED_COMPACT.encode(_plain_json(value))
    except _NotPlain:
        return _rfc8785(value)


# json.dumps(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False), made once.
_SORTED_COMPACT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _rfc8785(value: Any) -> str:
    """RFC 8785 for any value, written by the rules one value at a time: ``canonical_json`` for the
    values json.dumps would write otherwise (tests hold its shortcut to this)."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


class _NotPlain(Exception):
    """The value holds something json.dumps would write differently from RFC 8785."""


_MAX_SAFE_INTEGER = 2**53


def _plain_json(value: Any) -> Any:
    """``value`` with every float json.dumps would write differently replaced by its equal int, or
    _NotPlain when a value needs the reference writer: a float Python prints with an exponent
    (below 1e-4) that ECMAScript does not, an integer beyond 2^53, NaN or infinity, a key that is
    not an ASCII string (RFC 8785 sorts keys by UTF-16 code units, json.dumps by code points), or
    any type but the JSON ones (subclasses included)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -_MAX_SAFE_INTEGER < value < _MAX_SAFE_INTEGER:
            return value
        raise _NotPlain
    if kind is float:
        if value != value or value in (math.inf, -math.inf):
            raise _NotPlain
        if value.is_integer():
            if -_MAX_SAFE_INTEGER < value < _MAX_SAFE_INTEGER:
                return int(value)  # 8000.0 is written 8000, and -0.0 is written 0
            raise _NotPlain
        if 1e-4 <= abs(value) < 1e16:  # where repr's shortest digits print without an exponent
            return value
        raise _NotPlain
    if kind is dict:
        plain = {}
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                raise _NotPlain
            # Strings and small integers, most of any document, are taken as they are without a call.
            item_kind = type(item)
            plain[key] = item if item_kind is str or (item_kind is int and -_MAX_SAFE_INTEGER < item < _MAX_SAFE_INTEGER) \
                else _plain_json(item)
        return plain
    if kind is list or kind is tuple:
        return [item if type(item) is str else _plain_json(item) for item in value]
    raise _NotPlain


def sha256_digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def identity_body(kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    """What a digest covers: metadata never counts."""
    return {"apiVersion": API_VERSION, "kind": kind, "spec": spec}


def spec_digest(kind: str, spec: dict[str, Any]) -> str:
    return sha256_digest(canonical_json(identity_body(kind, spec)))
