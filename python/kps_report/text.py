"""Formatting shared by every report: numbers, sizes, Markdown tables, file-name slugs."""
from __future__ import annotations

import math
import re


def slug(text: str) -> str:
    """Lower-case words joined by '-': the file and folder names made from device names
    (matches kps::tuning_table_slug on the C++ side)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def fmt(x, digits: int = 3) -> str:
    """A number for a table: 3 significant digits, whole numbers from 100 up; '—' for none."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, int):
        return str(x)
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def pow2(n) -> str:
    """2^k for powers of two, the number otherwise."""
    if n and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def percent(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f} %"


def fmt_time(seconds: float) -> str:
    """A duration with its unit (s, ms, µs, ns)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{fmt(seconds / scale)} {unit}"
    return f"{fmt(seconds / 1e-9)} ns"


def markdown_table(header, rows) -> str:
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def join_parts(parts) -> str:
    """Markdown blocks joined by a blank line, the empty ones left out."""
    return "\n".join(p for p in parts if p)
