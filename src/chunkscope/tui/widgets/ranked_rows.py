"""The rows of the ranked-chunks view as strips: the budget header, stop rules and one block per hit.

A hit's block is its header (rank, score, document and offsets, length, delivery
status), detail lines (gold it holds, fused-ranking parts, the parent it
delivers), the text sent or indexed before its body (a prefix, a contextual chunk's context), dimmed, and a
window of its text (:mod:`.text_window`). Facts come
from the core (:class:`~chunkscope.results.QuestionResult`, the delivery
decisions, :func:`~chunkscope.analysis.marks.chunk_marks`); this module only lays
them out.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from textual.strip import Strip

from chunkscope.analysis.marks import TextMarks, chunk_marks
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.cost import TokenCost
from chunkscope.results import DeliveryDecisions, QuestionResult, RankedChunk
from chunkscope.tui.cells import pad, truncate, visible, wrap_text
from chunkscope.tui.state.rows import APPROXIMATE_MARK, approximate_matches
from chunkscope.tui.widgets.component_styles import ComponentStyles
from chunkscope.tui.widgets.delivery_lines import HitStatus
from chunkscope.tui.widgets.structure_rows import page_note, severed_strips
from chunkscope.tui.widgets.text_window import INDENT, text_window

_EIGHTHS = "▏▎▍▌▋▊▉"

BEFORE_BODY_LINES = 2
"""Lines each text before a chunk's body (its prefix, its unsent context) takes at most, ``…`` ending a cut one."""
SENT_LABEL = "sent before the body: "
"""Label of a chunk's prefix: delivered and counted in the budget (``contextual`` with ``send=true``)."""
NOT_SENT_LABEL = "indexed, not sent: "
"""Label of a chunk's context that is indexed and embedded only (``contextual`` with ``send=false``)."""


def header_strips(
    result: QuestionResult,
    decisions: DeliveryDecisions,
    width: int,
    styles: ComponentStyles,
    tokens: TokenCost | None = None,
) -> list[Strip]:
    """The budget gauge (or characters sent), evidence delivered, first correct rank, cuts and re-sent characters.

    ``tokens``: the token counter in use (a token-sized chunker), whose count of the context is shown too.
    """
    covered = sum(result.covered)
    evidence = f"evidence {covered} of {len(result.covered)} delivered"
    evidence_glyph = "✓" if result.complete else ("◐" if covered else "✗")
    header = styles.component("header")
    segments: list[Segment] = []
    if decisions.budget:
        gauge_width = max(8, min(30, width // 4))
        filled = min(1.0, decisions.used / decisions.budget) * gauge_width
        full_cells = int(filled)
        eighths = int((filled - full_cells) * 8)
        bar = "█" * full_cells + (_EIGHTHS[eighths - 1] if eighths else "")
        segments += [
            Segment("budget ▕", header),
            Segment(bar, styles.component("gauge-used")),
            Segment(" " * (gauge_width - len(bar)), styles.component("gauge-free")),
            Segment(f"▏ {decisions.used} / {decisions.budget} {decisions.units}", header),
        ]
    else:
        counted = "" if tokens is None else f" · {tokens.sent(result)} {tokens.tokenizer} tokens"
        segments.append(Segment(f"sent {decisions.used} chars{counted} (no budget)", header))
    evidence_segment = Segment(f"{evidence_glyph} {evidence}", header)
    first = result.first_correct_rank
    found = f"first correct rank #{first} ({result.bucket})" if first else "evidence not in the ranking"
    details = [found]
    if result.cuts:
        details.append(f"✂ gold cut by chunking in {len(result.cuts)} span{'s' if len(result.cuts) > 1 else ''}")
    if result.lost:
        details.append("lost: no chunk holds the evidence")
    if result.duplicate_chars:
        details.append(f"{result.duplicate_chars} chars re-sent")
    approximate = approximate_matches(result)
    if approximate:
        details.append(f"{APPROXIMATE_MARK} gold located {', '.join(approximate)}")
    line2 = [Segment(" · ".join(details), styles.component("detail"))]
    if Strip(segments).cell_length + 2 + cell_len(evidence_segment.text) <= width:
        lines = [[*segments, Segment("  ", header), evidence_segment], line2]
    else:
        lines = [segments, [evidence_segment], line2]
    return [Strip(line).crop_extend(0, width, styles.base) for line in lines]


def rule_strip(text: str, width: int, styles: ComponentStyles) -> Strip:
    """A horizontal rule with ``text`` in it."""
    label = f" {truncate(text, max(1, width - 8))} "
    left = 3
    right = max(0, width - left - len(label) - 1)
    return Strip([Segment("─" * left + label + "─" * right, styles.component("rule"))]).crop_extend(
        0, width, styles.base
    )


def hit_strips(
    hit: RankedChunk,
    status: HitStatus,
    question: Question | None,
    result: QuestionResult,
    corpus: Corpus,
    width: int,
    lines: int,
    styles: ComponentStyles,
    tokens: TokenCost | None = None,
) -> list[Strip]:
    """Rows of one hit: header, details (gold, parts, parent), the text before its body and ``lines`` lines of its text.

    ``tokens``: the token counter in use, whose count of the chunk is shown beside its length.
    """
    chunk = hit.chunk
    marks = chunk_marks(corpus.by_id[chunk.doc], chunk, question, result)
    status_style = styles.component("delivered" if status.delivered else "not-delivered")
    score = f"{hit.score:.4g}"
    location = f"{chunk.doc} {chunk.start}–{chunk.end}{page_note(chunk, corpus)} · {chunk.length} ch"
    if tokens is not None:
        location += f" · {tokens.cost(chunk)} tok"
    head = [
        Segment(f"#{hit.rank:<3}", styles.component("rank")),
        Segment(f"{score:>7}  ", styles.component("score")),
    ]
    status_text = f"  {status.glyph} {status.text}"
    lead = 13  # "#12 " + score column
    room = max(12, width - lead - min(cell_len(status_text), width // 2))
    head += [Segment(pad(truncate(location, room), room), styles.component("location"))]
    head += [Segment(truncate(status_text, max(0, width - lead - room)), status_style)]
    strips = [Strip(head).crop_extend(0, width, styles.base)]
    for detail in detail_lines(hit, marks, result):
        strips.append(
            Strip([Segment(" " * (INDENT - 1) + detail, styles.component("detail"))]).crop_extend(0, width, styles.base)
        )
    strips += severed_strips(hit, result, corpus, width, styles)
    strips += before_body_strips(chunk, width, styles)
    strips += text_window(chunk, marks, width, lines, styles)
    return strips


def before_body_strips(chunk: Chunk, width: int, styles: ComponentStyles) -> list[Strip]:
    """The chunk's unsent context and its prefix, each labelled and dimmed, in the order a retriever reads them."""
    strips = []
    for label, text in ((NOT_SENT_LABEL, chunk.context), (SENT_LABEL, chunk.prefix)):
        for line in before_body_lines(label, text, max(8, width - INDENT + 1)):
            segment = Segment(" " * (INDENT - 1) + line, styles.component("context"))
            strips.append(Strip([segment]).crop_extend(0, width, styles.base))
    return strips


def before_body_lines(label: str, text: str, width: int) -> list[str]:
    """``label`` and ``text`` (its line breaks kept, blank lines dropped) wrapped to ``width`` cells, at most
    :data:`BEFORE_BODY_LINES` lines, the last ending in ``…`` when text is left out. None for an empty text."""
    body = "\n".join(line for line in visible(text).replace("\r", "").split("\n") if line.strip())
    if not body:
        return []
    shown = label + body
    wrapped = wrap_text(shown, width)
    lines = [shown[wrapped.starts[i] : wrapped.ends[i]].rstrip() for i in range(wrapped.line_count)]
    if len(lines) <= BEFORE_BODY_LINES:
        return lines
    kept = lines[:BEFORE_BODY_LINES]
    kept[-1] = truncate(kept[-1] + " …", width)  # ends in "…" whether the mark fits or cuts the line
    return kept


def before_body_rows(chunk: Chunk) -> int:
    """About how many rows :func:`before_body_strips` takes (for the scroll size before a hit is laid out)."""
    return BEFORE_BODY_LINES * (bool(chunk.context) + bool(chunk.prefix))


def detail_lines(hit: RankedChunk, marks: TextMarks, result: QuestionResult) -> list[str]:
    """Lines under a hit's header: gold it holds, fused parts, the parent it delivers."""
    details = []
    gold = [_gold_note(mark.item, mark.whole, mark.cut, mark.end - mark.start, mark.span.length) for mark in marks.gold]
    if gold:
        details.append(" · ".join(gold))
    if hit.parts:
        details.append(
            "fused: "
            + " · ".join(f"{name} #{rank}" if rank is not None else f"{name} –" for name, rank in hit.parts.items())
        )
    if hit.delivers is not None and hit.delivers.id != hit.chunk.id:
        parent = hit.delivers
        # item_ranks: the ranks whose delivered unit holds an item whole
        held = " ⟦gold⟧ whole in parent" if any(hit.rank in ranks for ranks in result.item_ranks) else ""
        details.append(f"→ delivers parent {parent.id} {parent.start}–{parent.end} · {parent.length} ch{held}")
    return details


def _gold_note(item: int, whole: bool, cut: bool, inside: int, length: int) -> str:
    name = f"item {item + 1}"
    if whole:
        return f"⟦gold⟧ {name} whole"
    if cut:
        return f"✂ {name} partial ({inside} of {length} chars)"
    return f"{name} partial ({inside} of {length} chars, whole in another chunk)"
