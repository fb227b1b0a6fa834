"""Embedding vectors without numpy: packing, normalising, dot products, and a
two-pass nearest-neighbour scan that stays fast on 100,000 passages.

Vectors are stored normalised as little-endian float32 bytes, so cosine
similarity is a dot product. A pure-Python dot product over 100,000 × 384
floats takes about 3 s — too slow per question. So each vector also has a
*signature*: its sign bits packed into an integer (one bit per dimension). The
first pass ranks every passage by the Hamming distance between signatures
(``(a ^ b).bit_count()``, about 0.2 µs each: ~20 ms for 100,000); the second
pass rescores the best few hundred candidates with exact float dot products.
This is the binary-quantisation-plus-rescoring scheme of vector databases; the
candidates per query (``CANDIDATES``) trade speed for recall — the benchmark
(``tests/benchmarks/bench_rag.py``) measures it against an exact scan."""

from __future__ import annotations

import heapq
import logging
import math
import operator
import sys
from array import array
from collections.abc import Sequence

log = logging.getLogger(__name__)

#: Candidates rescored exactly per query (all of them in a small base).
CANDIDATES = 400
# A float32's sign is the top bit of its last byte (little-endian); these
# tables turn those bytes into ASCII '0'/'1' for int(…, 2), all in C.
_SIGN_ASCII = bytes(0x31 if b & 0x80 else 0x30 for b in range(256))


def normalised(vector: Sequence[float]) -> array[float]:
    """``vector`` scaled to length 1 (a zero vector stays zero), as float32."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    scale = 1.0 / norm if norm > 0 else 0.0
    return array("f", (x * scale for x in vector))


def pack(vector: Sequence[float]) -> bytes:
    """Normalised little-endian float32 bytes of ``vector``."""
    values = normalised(vector)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tobytes()


def unpack(blob: bytes) -> array[float]:
    values = array("f")
    values.frombytes(blob)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def signature(blob: bytes) -> bytes:
    """The packed sign bits of a stored (little-endian float32) vector."""
    signs = blob[3::4].translate(_SIGN_ASCII)
    return int(signs, 2).to_bytes((len(signs) + 7) // 8, "big")


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(map(operator.mul, a, b))


class SignatureIndex:
    """The signatures of one knowledge base (at one ``index_version``) in
    memory, for the first pass of the scan."""

    def __init__(self, version: int, seqs: Sequence[int], signatures: Sequence[bytes]) -> None:
        self.version = version
        self._seqs = list(seqs)
        self._bits = [int.from_bytes(sig, "big") for sig in signatures]

    def __len__(self) -> int:
        return len(self._seqs)

    def candidates(self, query_signature: bytes, count: int = CANDIDATES) -> list[int]:
        """The seqs of the ``count`` passages closest in Hamming distance."""
        if len(self._seqs) <= count:
            return list(self._seqs)
        query = int.from_bytes(query_signature, "big")
        distances = [(bits ^ query).bit_count() for bits in self._bits]
        best = heapq.nsmallest(count, range(len(distances)), key=distances.__getitem__)
        return [self._seqs[i] for i in best]


def rescore(query: bytes, vectors: dict[int, bytes], limit: int) -> list[tuple[int, float]]:
    """``(seq, cosine)`` of the ``limit`` vectors closest to ``query``, best first.
    Vectors of another length than the query's (a changed model) are skipped."""
    wanted = unpack(query)
    scored = [
        (seq, dot(wanted, unpack(blob))) for seq, blob in vectors.items() if len(blob) == len(query)
    ]
    return heapq.nlargest(limit, scored, key=operator.itemgetter(1))
