"""chunkscope: see what chunking did to retrieval, question by question."""

__version__ = "0.1.0"
