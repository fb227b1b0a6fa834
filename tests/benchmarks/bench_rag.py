"""Knowledge-base benchmark (not collected by pytest). ``run(quick)`` returns a
dict; ``main()`` prints it as JSON.

* ``recall``: recall@1/3/5 of lexical-only retrieval on the evaluation corpus
  (``tests/kb_eval``), no model at all.
* ``ingest``: files and MB per second of ``KnowledgeBaseService.add`` on
  generated Markdown and PDF files, against the raw readers alone
  (``read_document`` on the same files): the cost of chunking, hashing, the
  write transactions and the full-text index on top of reading.
* ``lexical``: latency of ``KnowledgeBaseService.search`` (worker hops, the
  vocabulary look-ups, FTS5 bm25, snippets) on N generated passages (100,000
  by default; 10,000 with ``quick``) inserted with raw SQL in one transaction:
  80 % real English (the standard library's docstrings), 20 % Chinese-like
  text; p50 / p95 / max over English and Chinese questions, and the slowest.
* ``dense``: the vector scan on the same passages with 384-dimension clustered
  vectors: signature load (cold), per-query time of the sign-bit pass plus
  exact rescoring, its recall@10 against an exact scan, and the time of one
  exact pure-Python scan (why the two-pass scan exists).

    .venv/bin/python -m tests.benchmarks.bench_rag [--quick] [--chunks N] [--dir DIR]

``--dir`` keeps the generated data folder and reuses it next time."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import operator
import os
import random
import statistics
import tempfile
import time
from array import array
from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import build_services
from mira_desktop.core.errors import NotFoundError
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.services.kb.chunking import text_hash
from mira_desktop.services.kb.vectors import SignatureIndex, pack, rescore, signature, unpack
from mira_desktop.services.readers import read_document
from mira_desktop.storage.database import write
from mira_desktop.storage.kb_store import KnowledgeStore
from tests.kb_eval.corpus import recall_at_k, write_corpus
from tests.support.documents import make_pdf

log = logging.getLogger(__name__)

DIMS = 384
#: English questions over Python's own docstrings (the generated English
#: text), from selective to all-common words, and one that matches nothing.
ENGLISH_QUERIES = [
    "socket timeout", "temporary directory cleanup", "unicode normalization form",
    "how do I acquire a thread lock", "deprecated since version", "return value",
    "parse an email header", "zipfile compression level", "what does the string method do",
    "xqzv unknownword",
]  # fmt: skip


def _docstrings() -> list[str]:
    """Real English: the docstrings of the standard library (tests left out)."""
    import ast
    import sysconfig

    texts: list[str] = []
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for root, _, files in os.walk(sysconfig.get_paths()["stdlib"]):
        if "test" in root or "site-packages" in root:
            continue
        for name in sorted(f for f in files if f.endswith(".py")):
            try:
                tree = ast.parse(Path(root, name).read_text("utf-8", errors="ignore"))
            except (SyntaxError, ValueError):
                continue
            docs = (ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, kinds))
            texts.extend(" ".join(d.split()) for d in docs if d and len(d) > 80)
    return texts


def _common_hanzi() -> list[str]:
    """The 3,755 characters of GB2312 level 1 (the most common hanzi)."""
    chars = []
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return chars


def _cumulative(values: Any) -> Any:
    total = 0.0
    for value in values:
        total += value
        yield total


class Generator:
    """Passages of about 1,000 characters: 80 % English (runs of docstrings),
    20 % Chinese (sentences of pseudo-words of 2–4 common GB2312 characters,
    words and characters drawn with Zipf-like skews, as in real text). Each
    starts with its number, so none is a duplicate."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.english = _docstrings()
        chars = _common_hanzi()
        self.rng.shuffle(chars)
        char_weights = list(_cumulative(1.0 / (rank + 20) for rank in range(len(chars))))
        words = {
            "".join(
                self.rng.choices(chars, cum_weights=char_weights, k=self.rng.choice((2, 2, 3, 4)))
            )
            for _ in range(8000)
        }
        self.chinese = sorted(words)
        self.rng.shuffle(self.chinese)  # rank order is now random: frequent ≠ alphabetical
        self.weights = list(_cumulative(1.0 / (rank + 10) for rank in range(len(self.chinese))))

    def passage(self, number: int) -> str:
        if self.rng.random() < 0.2:
            pick = self.rng.choices
            sentences = (
                "".join(pick(self.chinese, cum_weights=self.weights, k=self.rng.randint(4, 10)))
                for _ in range(30)
            )
            return f"[{number}] " + "，".join(sentences)[:1000] + "。"
        start = self.rng.randrange(len(self.english))
        text = " ".join(self.english[start : start + 10])
        offset = self.rng.randrange(max(1, min(400, len(text) - 1000)))
        return f"[{number}] " + text[offset : offset + 1000]

    def chinese_queries(self) -> list[str]:
        """Questions mixing frequent and rare vocabulary words."""
        pick = self.rng.choice
        frequent, rare = self.chinese[:100], self.chinese[3000:]
        return [
            f"{pick(rare)}{pick(frequent)}是什么？", f"{pick(frequent)}的{pick(rare)}", pick(rare),
            f"{pick(rare)}和{pick(rare)}在哪里", pick(frequent), f"如何{pick(frequent)}{pick(frequent)}",
            pick(rare)[:2], f"{pick(frequent)}{pick(frequent)}{pick(frequent)}",
        ]  # fmt: skip


def populate(data_dir: Path, chunks: int, generator: Generator) -> str:
    """A knowledge base with ``chunks`` generated passages (raw SQL, one
    transaction, 100 passages per document); returns its id. A folder that
    already holds it is reused."""
    services = build_services(data_dir)
    try:
        existing = asyncio.run(_existing(services))
        if existing:
            return existing
        kb_id = asyncio.run(services.knowledge.create("Bench")).id
        services.store.worker.run_sync(_insert, kb_id, chunks, generator)
        return kb_id
    finally:
        asyncio.run(services.aclose())


async def _existing(services: Any) -> str | None:
    try:
        return (await services.knowledge.resolve("Bench")).id
    except NotFoundError:
        return None


def _insert(db: Any, kb_id: str, chunks: int, generator: Generator) -> None:
    now = utc_now()
    with write(db) as conn:
        document_id = ""
        for n in range(chunks):
            if n % 100 == 0:
                document_id = new_id()
                conn.execute(
                    "INSERT INTO kb_documents(id, kb_id, path, name, sha256, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, '', ?, ?)",
                    (document_id, kb_id, f"/bench/doc{n // 100}.md", f"doc{n // 100}.md", now, now),
                )
            text = generator.passage(n)
            conn.execute(
                "INSERT INTO kb_chunks(id, kb_id, document_id, ordinal, text, location_json, sha256)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (new_id(), kb_id, document_id, n % 100, text, json.dumps({"line": n % 100 + 1}), text_hash(text)),
            )  # fmt: skip


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
        "n": len(ordered),
    }


async def _lexical_latency(
    data_dir: Path, kb_id: str, queries: dict[str, list[str]], repeats: int
) -> dict[str, Any]:
    services = build_services(data_dir)
    try:
        await services.knowledge.search(kb_id, "warm up")
        by_kind: dict[str, list[float]] = {}
        slowest: dict[str, float] = {}
        for kind, texts in queries.items():
            for _ in range(repeats):
                for query in texts:
                    started = time.perf_counter()
                    await services.knowledge.search(kb_id, query, limit=8)
                    elapsed = time.perf_counter() - started
                    by_kind.setdefault(kind, []).append(elapsed)
                    slowest[query] = max(slowest.get(query, 0.0), elapsed)
        everything = [s for samples in by_kind.values() for s in samples]
        worst = sorted(slowest.items(), key=lambda item: -item[1])[:3]
        return (
            {"all": _percentiles(everything)}
            | {k: _percentiles(v) for k, v in by_kind.items()}
            | {"slowest": {q: round(t * 1000, 1) for q, t in worst}}
        )
    finally:
        await services.aclose()


def _vector(rng: random.Random, center: array[int]) -> bytes:
    noise = array("b", rng.randbytes(DIMS))
    return pack(array("f", map(operator.add, center, noise)))


def _add_vectors(data_dir: Path, kb_id: str) -> list[bytes]:
    """Clustered vectors for every passage (signature + float32); returns
    some query vectors (perturbed stored vectors)."""
    services = build_services(data_dir)
    rng = random.Random(11)
    centers = [array("i", (4 * b for b in array("b", rng.randbytes(DIMS)))) for _ in range(300)]

    def fill(db: Any) -> None:
        seqs = [
            r[0]
            for r in db.execute(
                "SELECT seq FROM kb_chunks WHERE kb_id = ? AND embedding IS NULL", [kb_id]
            )
        ]
        with write(db) as conn:
            for seq in seqs:
                blob = _vector(rng, rng.choice(centers))
                conn.execute(
                    "UPDATE kb_chunks SET embedding = ?, embedding_sig = ? WHERE seq = ?",
                    (blob, signature(blob), seq),
                )
            conn.execute(
                "UPDATE knowledge_bases SET index_version = index_version + 1 WHERE id = ?",
                (kb_id,),
            )

    try:
        services.store.worker.run_sync(fill)
    finally:
        asyncio.run(services.aclose())
    return [_vector(rng, rng.choice(centers)) for _ in range(12)]


async def _dense(
    data_dir: Path, kb_id: str, queries: list[bytes], exact_queries: int
) -> dict[str, Any]:
    services = build_services(data_dir)
    store = KnowledgeStore(services.store.worker)
    try:
        started = time.perf_counter()
        version, seqs, sigs = await store.signatures(kb_id)
        index = await asyncio.to_thread(SignatureIndex, version, seqs, sigs)
        load = time.perf_counter() - started
        timings, overlaps = [], []
        for n, query in enumerate(queries):
            started = time.perf_counter()
            candidates = await asyncio.to_thread(index.candidates, signature(query))
            vectors = await store.embeddings(candidates)
            best = await asyncio.to_thread(rescore, query, vectors, 10)
            timings.append(time.perf_counter() - started)
            if n < exact_queries:
                exact, exact_seconds = await _exact(store, seqs, query)
                overlaps.append(len({s for s, _ in best} & exact) / 10)
        return {
            "vectors": len(seqs),
            "signature_load_ms": round(load * 1000, 1),
            "query": _percentiles(timings),
            "recall@10_vs_exact": round(statistics.mean(overlaps), 3),
            "exact_pure_python_scan_ms": round(exact_seconds * 1000, 1),
        }
    finally:
        await services.aclose()


async def _exact(store: Any, seqs: list[int], query: bytes) -> tuple[set[int], float]:
    vectors: dict[int, bytes] = {}
    for start in range(0, len(seqs), 20_000):
        vectors.update(await store.embeddings(seqs[start : start + 20_000]))
    started = time.perf_counter()
    wanted = unpack(query)
    scored = [(seq, sum(map(operator.mul, wanted, unpack(blob)))) for seq, blob in vectors.items()]
    best = sorted(scored, key=operator.itemgetter(1), reverse=True)[:10]
    return {s for s, _ in best}, time.perf_counter() - started


async def _recall(work: Path) -> dict[str, Any]:
    (work / "recall-data").mkdir(parents=True, exist_ok=True)
    services = build_services(work / "recall-data")
    try:
        kb = await services.knowledge.create("Eval")
        await services.knowledge.add(kb.id, [write_corpus(work / "recall-corpus")])

        async def search(question: str) -> list[tuple[str, dict[str, Any]]]:
            result = await services.knowledge.search(kb.id, question, limit=5)
            return [(h.chunk.document_name, h.chunk.location) for h in result.hits]

        scores = {f"recall@{k}": round((await recall_at_k(search, k))[0], 3) for k in (1, 3, 5)}
        missed = [q.text for q in (await recall_at_k(search, 5))[1]]
        return {**scores, "questions": 32, "missed@5": missed}
    finally:
        await services.aclose()


def _ingest_files(folder: Path, count: int, generator: Generator) -> list[Path]:
    """``count`` Markdown files of 30 sections, and a PDF of 8 pages for every fifth."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        body = "\n\n".join(f"## Part {p}\n\n" + generator.passage(p) for p in range(30))
        path = folder / f"file{n}.md"
        path.write_text(body, encoding="utf-8")
        paths.append(path)
        if n % 5 == 0:
            words = " ".join(generator.english[n : n + 40]).split()
            lines = [" ".join(words[i : i + 12]) for i in range(0, 480, 12)]
            pdf = folder / f"file{n}.pdf"
            pdf.write_bytes(
                make_pdf([[ln.encode("ascii", "ignore").decode() for ln in lines[:40]]] * 8)
            )
            paths.append(pdf)
    return paths


async def _ingest(work: Path, count: int, generator: Generator) -> dict[str, Any]:
    paths = _ingest_files(work / "ingest-files", count, generator)
    size = sum(p.stat().st_size for p in paths)
    started = time.perf_counter()
    for path in paths:
        read_document(path)
    raw = time.perf_counter() - started
    (work / "ingest-data").mkdir(parents=True, exist_ok=True)
    services = build_services(work / "ingest-data")
    try:
        kb = await services.knowledge.create("Ingest")
        started = time.perf_counter()
        report = await services.knowledge.add(kb.id, [work / "ingest-files"])
        full = time.perf_counter() - started
    finally:
        await services.aclose()
    mb = size / 1e6
    return {
        "files": len(paths),
        "mb": round(mb, 2),
        "passages": report.chunks_stored,
        "raw_readers": {"seconds": round(raw, 2), "files_per_s": round(len(paths) / raw, 1), "mb_per_s": round(mb / raw, 2)},
        "ingest": {"seconds": round(full, 2), "files_per_s": round(len(paths) / full, 1), "mb_per_s": round(mb / full, 2)},
        "overhead_vs_readers": round(full / raw, 2),
    }  # fmt: skip


def run(
    quick: bool = True, *, chunks: int | None = None, folder: Path | None = None
) -> dict[str, Any]:
    """Run everything; ``quick``: 10,000 passages and fewer repeats."""
    chunks = chunks or (10_000 if quick else 100_000)
    with tempfile.TemporaryDirectory(prefix="mira-bench-rag-") as tmp:
        work = Path(tmp)
        data_dir = folder or work / f"data-{chunks}"
        data_dir.mkdir(parents=True, exist_ok=True)
        results: dict[str, Any] = {"chunks": chunks}
        results["recall"] = asyncio.run(_recall(work))
        generator = Generator()
        results["ingest"] = asyncio.run(_ingest(work, 10 if quick else 40, generator))
        started = time.perf_counter()
        kb_id = populate(data_dir, chunks, generator)
        results["populate_seconds"] = round(time.perf_counter() - started, 1)
        queries = {"english": ENGLISH_QUERIES, "chinese": generator.chinese_queries()}
        results["lexical"] = asyncio.run(
            _lexical_latency(data_dir, kb_id, queries, 3 if quick else 5)
        )
        queries = _add_vectors(data_dir, kb_id)
        results["dense"] = asyncio.run(_dense(data_dir, kb_id, queries, 3 if quick else 5))
        results["db_mb"] = round(os.path.getsize(data_dir / "mira.sqlite3") / 1e6, 1)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10,000 passages instead of 100,000")
    parser.add_argument("--chunks", type=int, help="number of generated passages")
    parser.add_argument("--dir", type=Path, help="data folder to keep and reuse")
    args = parser.parse_args()
    print(
        json.dumps(
            run(args.quick, chunks=args.chunks, folder=args.dir), indent=2, ensure_ascii=False
        )
    )


if __name__ == "__main__":
    main()
