"""Small server-side SVG charts for the dashboards (no JavaScript charting library).

Each function returns markup safe to insert in a template: every label goes through
``escape``. The charts carry a ``<title>`` per bar, so a hover shows the exact value,
and an ``aria-label`` so a screen reader announces what the chart shows."""

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# Colour-blind-safe categorical palette (Okabe-Ito, without black).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#999999")

ROW_HEIGHT = 22
LABEL_WIDTH = 120
VALUE_WIDTH = 56


@dataclass(frozen=True)
class Segment:
    label: str
    value: float
    colour: str = PALETTE[0]


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def bar_chart(
    rows: Sequence[tuple[str, float]], *, title: str, width: int = 520, colour: str = PALETTE[0]
) -> SafeString:
    """Horizontal bars, one per ``(label, value)``, scaled to the largest value."""
    return stacked_bar_chart(
        [(label, [Segment(label, value, colour)]) for label, value in rows], title=title, width=width, legend=False
    )


def stacked_bar_chart(
    rows: Sequence[tuple[str, Sequence[Segment]]], *, title: str, width: int = 520, legend: bool = True
) -> SafeString:
    """Horizontal stacked bars: one row per ``(label, segments)``, all on one scale."""
    if not rows:
        return mark_safe("")
    largest = max((sum(s.value for s in segments) for _, segments in rows), default=0) or 1
    plot = width - LABEL_WIDTH - VALUE_WIDTH
    legend_height = ROW_HEIGHT if legend else 0
    height = legend_height + ROW_HEIGHT * len(rows) + 4
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    if legend:
        parts.append(_legend(rows))
    for index, (label, segments) in enumerate(rows):
        y = legend_height + index * ROW_HEIGHT
        parts.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end" font-size="12">{escape(label)}</text>'
        )
        x = LABEL_WIDTH
        for segment in segments:
            bar = plot * segment.value / largest
            if bar > 0:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y + 3}" width="{bar:.1f}" height="{ROW_HEIGHT - 6}" '
                    f'fill="{segment.colour}"><title>{escape(label)} · {escape(segment.label)}: '
                    f"{_number(segment.value)}</title></rect>"
                )
            x += bar
        total = sum(s.value for s in segments)
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 15}" font-size="12">{_number(total)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def _legend(rows) -> str:
    seen: dict[str, str] = {}
    for _, segments in rows:
        for segment in segments:
            seen.setdefault(segment.label, segment.colour)
    parts, x = [], LABEL_WIDTH
    for label, colour in seen.items():
        parts.append(f'<rect x="{x}" y="4" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{x + 16}" y="14" font-size="12">{escape(label)}</text>')
        x += 24 + 7 * len(label)
    return "".join(parts)
