"""Streamed downloads (the data export, the CSVs): their text sent in pieces of about a given
size rather than line by line, so that each piece goes through the compression and the
server once, and no more than a piece is held."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def in_pieces(parts: Iterable[str], size: int) -> Iterator[str]:
    """`parts` joined into pieces of at least `size` characters (the last may be shorter)."""
    piece: list[str] = []
    length = 0
    for part in parts:
        piece.append(part)
        length += len(part)
        if length >= size:
            yield "".join(piece)
            piece, length = [], 0
    yield "".join(piece)
