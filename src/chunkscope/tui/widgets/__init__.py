"""Rendering widgets of the inspector: each takes immutable core results and posts messages upward."""

from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.summary_widgets import BucketChart, ChunkLengthChart, MetricsTable, TransitionMatrix

__all__ = ["BucketChart", "ChunkLengthChart", "DocumentView", "MetricsTable", "RankedChunksView", "TransitionMatrix"]
