"""Primitives shared by every kind: the envelope, names, digests, dtypes, dates and durations."""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime, timezone
from enum import Enum
from typing import Annotated, Any

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, GetCoreSchemaHandler,
                      GetJsonSchemaHandler, PlainSerializer)
from pydantic_core import CoreSchema, core_schema

API_VERSION = "kernelindex.dev/v1alpha1"

SLUG_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
_SLUG_RE = re.compile(SLUG_PATTERN)
TOKEN_PATTERN = r"^[a-z][a-z0-9_]*$"
DIGEST_PATTERN = r"^sha256:[0-9a-f]{64}$"
SLUG_MAX = 100


def quoted(value: Any, limit: int = 80) -> str:
    """A value quoted for an error message, cut short: a message must stay one readable line."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_slug(value: str) -> str:
    """A slug becomes a URL path segment and a file name, so it must never climb out of a folder."""
    # Every file has several slugs and nearly all are fine: one test of every rule below, in C
    # calls, before the checks that explain what is wrong (400,000 slugs a load at 100,000 runs).
    if type(value) is str and len(value) <= SLUG_MAX and ".." not in value and _SLUG_RE.fullmatch(value):
        return value
    if isinstance(value, str) and not value.isascii():  # str.isascii is C-fast; the scan below is not
        foreign = next((char for char in value if not char.isascii()), None)
        if foreign is not None:
            # A look-alike (Cyrillic 'а' for 'a') prints the same as the real slug: name it.
            name = unicodedata.name(foreign, "unnamed character")
            raise ValueError(f"{quoted(value)} is not a slug: it contains {foreign!r} (U+{ord(foreign):04X} {name}); use ASCII only")
    if not isinstance(value, str) or not _SLUG_RE.fullmatch(value):
        raise ValueError(f"{quoted(value)} is not a slug: use lowercase a-z, 0-9, '.', '_' and '-', starting with a letter or digit")
    if ".." in value:
        raise ValueError(f"{quoted(value)} is not a slug: '..' is not allowed")
    if len(value) > SLUG_MAX:
        raise ValueError(f"slug is {len(value)} characters long; at most {SLUG_MAX}")
    return value


class NativeInJson:
    """In JSON mode, pydantic-core's own checks in place of a type's Python validators.

    JSON is validated only from the parse cache (``site_builder.incremental.parse_cache``), which holds models that
    passed every check, written as JSON and turned back into an equal model by this same JSON mode
    before they were stored (``bulk_load.model_json``). A few Python validators run on every value
    of every file (five slugs, three durations a run: a fifth of the time of ``validate_json``),
    while pydantic-core checks the same rules natively, without calling back into Python. So
    ``json_schema`` accepts no value that the Python validators refuse, and builds the same value
    from the JSON they would; only its error messages differ, and those are never shown: a cache
    entry that fails is dropped and its file parsed again, so its errors come from the Python
    mode (a YAML file is always validated in Python mode). The published JSON Schema is the
    Python mode's, unchanged."""

    def __init__(self, json_schema: CoreSchema):
        self.json_schema = json_schema

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.json_or_python_schema(json_schema=self.json_schema, python_schema=handler(source),
                                                 metadata={"pydantic_js_functions": [_python_mode_json_schema]})


def _python_mode_json_schema(schema: CoreSchema, handler: GetJsonSchemaHandler) -> Any:
    """The JSON Schema of a ``NativeInJson`` type: its Python mode's (pydantic would take the JSON mode's)."""
    return handler(schema["python_schema"])  # type: ignore[typeddict-item]


# SLUG_PATTERN without '..', for a regular expression engine without lookahead: after the first
# character, each '.' is followed by another character that is not a '.', or ends the slug.
_SLUG_WITHOUT_TWO_DOTS = r"^[a-z0-9](?:\.?[a-z0-9_-])*\.?$"

Slug = Annotated[str, AfterValidator(check_slug),
                 NativeInJson(core_schema.str_schema(pattern=_SLUG_WITHOUT_TWO_DOTS, max_length=SLUG_MAX, strict=True)),
                 Field(json_schema_extra={"pattern": SLUG_PATTERN})]
Token = Annotated[str, Field(pattern=TOKEN_PATTERN, max_length=64)]
Digest = Annotated[str, Field(pattern=DIGEST_PATTERN)]


class StrictModel(BaseModel):
    """Every model rejects unknown keys: a typo must fail, not vanish."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False, frozen=False)


class DType(str, Enum):
    """Tensor element types. `float` is a placeholder an operation uses when the workload picks the type."""

    fp64 = "fp64"
    fp32 = "fp32"
    tf32 = "tf32"
    fp16 = "fp16"
    bf16 = "bf16"
    fp8_e4m3 = "fp8_e4m3"
    fp8_e5m2 = "fp8_e5m2"
    fp4_e2m1 = "fp4_e2m1"
    # Formats the public KernelIndex's imports declare (GPU MODE's AMD problems, FlashInfer-Bench's
    # block-scaled GEMMs): ROCm's fnuz FP8, the E8M0 scale type, torch's packed two-FP4 byte, and
    # the block-scaled 4-bit formats.
    fp8_e4m3fnuz = "fp8_e4m3fnuz"
    fp8_e8m0 = "fp8_e8m0"
    float4_e2m1fn_x2 = "float4_e2m1fn_x2"
    nvfp4 = "nvfp4"
    mxfp4 = "mxfp4"
    int64 = "int64"
    int32 = "int32"
    int16 = "int16"
    int8 = "int8"
    uint8 = "uint8"
    bool = "bool"
    complex64 = "complex64"
    complex128 = "complex128"
    float = "float"


# Bytes per element; `float` has no width until a workload binds it.
DTYPE_BYTES: dict[str, float] = {
    "fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1,
    "fp4_e2m1": 0.5, "fp8_e4m3fnuz": 1, "fp8_e8m0": 1,
    # One element of float4_e2m1fn_x2 is a byte holding two FP4 values.
    "float4_e2m1fn_x2": 1, "nvfp4": 0.5, "mxfp4": 0.5, "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
    "complex64": 8, "complex128": 16,
}

# Concrete dtypes a workload may bind the `float` placeholder to.
FLOAT_DTYPES = ("fp64", "fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1")


def _utc_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        raise ValueError("a date alone is ambiguous: give a time and a timezone, e.g. 2025-08-07T21:42:12Z")
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith("Z") or text.endswith("z"):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"{quoted(value)} is not an ISO 8601 date-time") from None
    else:
        raise ValueError("expected an ISO 8601 date-time string")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("date-time has no timezone: add Z or an offset such as +00:00")
    return moment.astimezone(timezone.utc)


def _utc_datetime_in_json(value: Any) -> datetime:
    """``_utc_datetime`` for JSON mode, which reads only the cache's timestamps (``format_utc``: UTC,
    a trailing Z) and so takes a shortcut for them: Python reads such a string, Z included, as a
    moment in ``timezone.utc`` itself, which is what ``_utc_datetime`` makes of it too (replacing
    the Z by +00:00, then converting to UTC: the same moment, unchanged). Anything else is given
    to ``_utc_datetime``."""
    if isinstance(value, str) and value.endswith("Z"):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return _utc_datetime(value)
        if moment.tzinfo is timezone.utc:
            return moment
    return _utc_datetime(value)


def format_utc(moment: datetime) -> str:
    """Canonical timestamps: UTC, millisecond precision, trailing Z (as the public KernelIndex writes them)."""
    utc = moment.astimezone(timezone.utc)
    # strftime("%Y-%m-%dT%H:%M:%S.") to the character (the year unpadded, as %Y prints it) at
    # half its cost: every model written to the parse cache is dumped twice (``bulk_load.model_json``).
    return (f"{utc.year}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}."
            f"{utc.microsecond // 1000:03d}Z")


UtcDateTime = Annotated[
    datetime,
    BeforeValidator(_utc_datetime),
    NativeInJson(core_schema.no_info_plain_validator_function(_utc_datetime_in_json)),
    PlainSerializer(format_utc, return_type=str, when_used="json"),
    Field(json_schema_extra={"format": "date-time"}),
]


def _iso_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{quoted(value)} is not an ISO 8601 date (YYYY-MM-DD)") from None
    raise ValueError("expected an ISO 8601 date (YYYY-MM-DD)")


IsoDate = Annotated[
    date,
    BeforeValidator(_iso_date),
    PlainSerializer(lambda d: d.isoformat(), return_type=str, when_used="json"),
    Field(json_schema_extra={"format": "date"}),
]

_DURATION_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(ns|us|µs|ms|s)\s*$")
_UNIT_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
# A kernel slower than a minute is not a kernel latency; such a value is almost certainly a unit slip.
MAX_LATENCY_NS = 60 * 1_000_000_000


def _duration_ns(value: Any) -> int:
    """Durations are integer nanoseconds; "81.3 us" and "0.0813 ms" are accepted and converted exactly."""
    if isinstance(value, bool):
        raise ValueError("expected a duration")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("duration must be a finite number")
        if value != int(value):
            raise ValueError("a bare duration is integer nanoseconds; write a unit for fractions, e.g. '81.3 us'")
        value = int(value)
    if isinstance(value, int):
        ns = value
    elif isinstance(value, str):
        match = _DURATION_RE.match(value)
        if not match:
            raise ValueError(f"{quoted(value)} is not a duration: write integer ns or a number with ns, us, ms or s")
        from decimal import Decimal

        exact = Decimal(match.group(1)) * _UNIT_NS[match.group(2)]
        if exact != exact.to_integral_value():
            raise ValueError(f"{quoted(value)} is not a whole number of nanoseconds")
        ns = int(exact)
    else:
        raise ValueError("expected a duration")
    if ns <= 0:
        raise ValueError("duration must be positive")
    if ns > MAX_LATENCY_NS:
        raise ValueError(f"duration {ns} ns is over a minute: check the unit")
    return ns


# A cached duration is a whole number of nanoseconds, written as a JSON integer.
DurationNs = Annotated[int, BeforeValidator(_duration_ns), NativeInJson(core_schema.int_schema(gt=0, le=MAX_LATENCY_NS, strict=True)),
                       Field(json_schema_extra={"minimum": 1})]


def _finite(value: float) -> float:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number (no NaN or infinity)")
    return value


FiniteFloat = Annotated[float, AfterValidator(_finite), NativeInJson(core_schema.float_schema(allow_inf_nan=False, strict=True))]


class Metadata(StrictModel):
    """Editorial facts: never part of a digest."""

    name: Slug
    title: str | None = Field(default=None, max_length=300)
    description: str | None = Field(default=None, max_length=20_000)
    labels: dict[Annotated[str, Field(pattern=TOKEN_PATTERN, max_length=64)], Annotated[str, Field(max_length=300)]] = Field(default_factory=dict)
