"""A text the pair is writing, as it stands after each pass of Nimbus-large."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Iterator

from specdec_core.engine import Chunk, Stats
from specdec_core.sampling import RoundRecord

from .text import token_pieces


@dataclass(frozen=True)
class Written:
    ids: tuple[int, ...]  # the generated token ids
    pieces: tuple[tuple[str, str], ...]  # (text, origin) per generated token
    rounds: tuple[RoundRecord, ...]  # the speculative rounds so far, one per target pass
    stats: Stats  # counts of the passes so far (a copy: later passes leave it as it is)
    complete: bool  # ended with the end-of-text token


NOTHING_YET = Written((), (), (), Stats(), complete=False)  # before the first pass


def pass_by_pass(tokenizer, chunks: Iterable[Chunk]) -> Iterator[Written]:
    """The text so far after each chunk of `engine.stream`, each token with its origin."""
    ids, origins, pieces, rounds, stats = [], [], [], [], Stats()
    for chunk in chunks:
        stats.count(chunk)  # every check, those of a last round the token limit cut short too
        ids.extend(chunk.token_ids)
        origins.extend(chunk.origins)
        if chunk.record is not None:
            rounds.append(chunk.record)
        pieces = token_pieces(tokenizer, ids, pieces)
        yield Written(tuple(ids), tuple(zip(pieces, origins)), tuple(rounds), replace(stats),
                      complete=bool(ids) and ids[-1] == tokenizer.eos_token_id)
