"""Line endings as other readers see them: CRLF text read in Python's universal-newlines mode.

chunkscope reads a corpus file as it is, so a document written on Windows keeps its ``\\r\\n``
line endings and every offset counts both characters. Many pipelines read the same file in text
mode (Python's ``open()``, LangChain's ``TextLoader``), which turns every ``\\r\\n`` into ``\\n`` and a
lone ``\\r`` into ``\\n``: their chunk texts and offsets then refer to that *universal-newlines view*,
one character shorter per CRLF. This module builds the view and maps its offsets back exactly.

The view removes the ``\\r`` of every ``\\r\\n`` pair and turns a lone ``\\r`` into ``\\n``. An offset ``v``
of the view maps to ``v + n``, with ``n`` the number of removed ``\\r`` that stand before the view's
character ``v``: a span of the view that starts at a line break starts at its ``\\r`` in the
original, and one that ends after a line break ends after its ``\\n``, so the break is kept whole.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NewlineView:
    """A text's universal-newlines view and the exact way back to the original's offsets."""

    text: str
    """The view: ``\\r\\n`` read as ``\\n``, a lone ``\\r`` as ``\\n``."""
    breaks: tuple[int, ...]
    """View offsets of the ``\\n`` of every original ``\\r\\n``, ascending (one removed ``\\r`` before each)."""
    changed: bool
    """True when the view differs from the original (the original holds a ``\\r``)."""

    def to_original(self, offset: int) -> int:
        """The original offset of view offset ``offset`` (0 ≤ offset ≤ len(view))."""
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} is outside the view (0..{len(self.text)})")
        return offset + bisect_left(self.breaks, offset)


def has_carriage_return(text: str) -> bool:
    """True when ``text`` holds a ``\\r``, so a universal-newlines reader sees another text."""
    return "\r" in text


def newline_view(text: str) -> NewlineView:
    """The universal-newlines view of ``text`` with the offsets of its removed ``\\r``."""
    if "\r" not in text:
        return NewlineView(text, (), changed=False)
    breaks: list[int] = []
    removed = 0
    position = text.find("\r\n")
    while position != -1:
        breaks.append(position - removed)  # the view offset of this pair's "\n"
        removed += 1
        position = text.find("\r\n", position + 2)
    view = text.replace("\r\n", "\n").replace("\r", "\n")
    return NewlineView(view, tuple(breaks), changed=True)
