"""The Textual inspector."""
