"""The inspector's view-model, in plain Python (no Textual): screens read it, the app's worker fills it.

Every number shown comes from an immutable core value (``ConfigResult``, ``Comparison``, the failure
cause); these modules only classify, filter and step through them, and derive neighbouring
configurations for the live-configuration keys.

- ``rows``: a question with its results as one list row, and its status glyph.
- ``filters``: which rows a view lists, and in which order.
- ``stepping``: wrap-around steps through names and rows.
- ``config_steps``: the ladders the configuration keys climb (size, overlap, top-k, budget, ...).
- ``slots``: one side (A or B): the configuration asked for and the result shown.
- ``document_chunks``: a document's retrieval units under a chunker, cached.
- ``export_paths``: where an export must never write.
- ``notes``: one-line readings of core values (the fragility summary).
- ``answers``: an answers file's judged answers, attributed (by the core) under their own configuration only.
- ``case_text``: the selected question's case file, as the export writes it and ``Y`` copies it.
- ``session``: the state the screens share, built from the above.
"""
