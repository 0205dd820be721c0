"""Tokenizers, registered by name; importing this package registers the built-ins."""

from chunkscope.tokenize import default, sudachi

__all__ = ["default", "sudachi"]
