"""Tokenizers, registered by name; importing this package registers the built-ins.

Matching tokenizers (``default``, ``sudachi``) turn text into terms for lexical retrieval;
counting tokenizers (``chars``, ``cl100k``, ``o200k``, ``e5``, ``e5-enpt``) measure text in a
model's tokens (:mod:`chunkscope.tokenize.counting`).
"""

from chunkscope.tokenize import counting, default, e5, sudachi

__all__ = ["counting", "default", "e5", "sudachi"]
