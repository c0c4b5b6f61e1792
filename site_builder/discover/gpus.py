"""GPUs as a reader names them: one slug per datasheet (environments matched to it share it), else
one per unmatched product string; with the words a search query may use for each ("h100", "pcie",
"rtx3090")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Words that name a vendor or a product line rather than a GPU: never aliases on their own.
_NOT_ALIASES = {"nvidia", "amd", "intel", "geforce", "instinct", "tesla", "gb", "w", "the"}
_WORD = re.compile(r"[a-z0-9]+")


def slugify(text: str) -> str:
    slug = "-".join(_WORD.findall(text.lower()))
    return slug or "gpu"


@dataclass(frozen=True, slots=True)
class GpuKey:
    slug: str
    label: str
    datasheet: str | None
    product: str
    aliases: tuple[str, ...]


def gpu_aliases(slug: str, label: str, product: str) -> tuple[str, ...]:
    """The slug, its parts and the words of the product and title that name this GPU.

    "NVIDIA GeForce RTX 3090" gives rtx, 3090 and rtx3090; "NVIDIA H100 PCIe 80GB" (h100-pcie) gives
    h100, pcie, 80gb, h100-pcie and h100pcie. A word several GPUs share ("h100") names them all.
    """
    found: set[str] = {slug, slug.replace("-", "")}
    found.update(part for part in slug.split("-") if part)
    words = [w for w in _WORD.findall(product.lower()) if w not in _NOT_ALIASES]
    found.update(w for w in words if not w.isdigit() or len(w) >= 4)
    if len(words) >= 2:
        found.add("".join(words[:2]))  # "rtx 3090" -> rtx3090
    # The title adds form factors and memory ("pcie", "sxm5", "80gb"), not bare numbers ("1000 W").
    found.update(w for w in _WORD.findall(label.lower()) if w not in _NOT_ALIASES and not w.isdigit())
    return tuple(sorted(w for w in found if w and (not w.isdigit() or len(w) >= 4)))


def gpu_keys(datasheets: Iterable[tuple[str, str, str]], unmatched_products: Iterable[str]) -> list[GpuKey]:
    """``datasheets``: (name, label, product); ``unmatched_products``: products no datasheet matches.

    A product's slug never takes a datasheet's: it gets "-unlisted" appended instead.
    """
    keys = [GpuKey(name, label, name, product, gpu_aliases(name, label, product)) for name, label, product in datasheets]
    taken = {key.slug for key in keys}
    for product in sorted(set(unmatched_products)):
        slug = slugify(product)
        while slug in taken:
            slug += "-unlisted"
        taken.add(slug)
        keys.append(GpuKey(slug, product, None, product, gpu_aliases(slug, product, product)))
    return sorted(keys, key=lambda key: key.slug)
