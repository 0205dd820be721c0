"""Write a context file for ``contextual:context=FILE`` from a chunk export.

    chunkscope chunks paragraph --out chunks.jsonl
    python docs/examples/write_contexts.py chunks.jsonl sample_data/corpus contexts.jsonl
    chunkscope eval --chunker "contextual:base=paragraph,context=contexts.jsonl"

Each line of ``chunks.jsonl`` (what ``chunkscope chunks`` writes) is a chunk with its document id and
code-point offsets; each line written is ``{"doc", "start", "end", "context"}`` (``--by-hash`` writes
``{"sha256", "context"}`` instead: the SHA-256 of the chunk body's UTF-8, for pipelines that do not keep
offsets). Replace ``situate`` with the call to your model (Anthropic's contextual retrieval prompt gives
the whole document and the chunk and asks for a short context that situates the chunk in it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path


def situate(document: str, chunk: str) -> str:
    """A stand-in for the model: the document's first line and the heading above the chunk."""
    start = document.find(chunk)
    before = document[: max(start, 0)].splitlines()
    headings = [line.lstrip("# ").strip() for line in before if line.startswith("#")]
    title = document.splitlines()[0].lstrip("# ").strip() if document else ""
    section = headings[-1] if headings else ""
    return f"From '{title}'" + (f", section '{section}'." if section and section != title else ".")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chunks", type=Path, help="JSONL written by chunkscope chunks")
    parser.add_argument("corpus", type=Path, help="the corpus directory (document id = path inside it)")
    parser.add_argument("out", type=Path, help="the context file to write")
    parser.add_argument("--by-hash", action="store_true", help="key each context by the chunk body's SHA-256")
    args = parser.parse_args()
    documents: dict[str, str] = {}
    lines = []
    for raw in args.chunks.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        chunk = json.loads(raw)
        doc = chunk["doc"]
        if doc not in documents:
            documents[doc] = (args.corpus / doc).read_text(encoding="utf-8")
        context = situate(documents[doc], chunk["text"])
        if args.by_hash:
            key = {"sha256": hashlib.sha256(chunk["text"].encode("utf-8")).hexdigest()}
        else:
            key = {"doc": doc, "start": chunk["start"], "end": chunk["end"]}
        lines.append(json.dumps({**key, "context": context}, ensure_ascii=False))
    args.out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


if __name__ == "__main__":
    main()
