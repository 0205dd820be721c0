"""Text and structure extracted from PDF, HTML and DOCX files (the ``documents`` extra).

:func:`chunkscope.io.documents.extract.extract_file` turns one file into its text and
:class:`~chunkscope.model.DocumentMap`, or raises :class:`~chunkscope.io.documents.base.DocumentSkipped` with one
line saying why it cannot (encrypted, no text layer, damaged, too large, not decodable). The limits in
:mod:`chunkscope.io.documents.base` bound the memory one document may take; :mod:`~chunkscope.io.documents.cache`
keeps results by file hash, :mod:`~chunkscope.io.documents.export` writes them out.
"""
