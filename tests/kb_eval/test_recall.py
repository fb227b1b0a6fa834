"""The quality gate of lexical-only retrieval (no model at all): recall@5 on
the evaluation corpus must stay at or above 0.8."""

from __future__ import annotations

import logging
from pathlib import Path

from mira_desktop.bootstrap import Services, build_services
from tests.kb_eval.corpus import QUESTIONS, recall_at_k, write_corpus

log = logging.getLogger(__name__)


async def test_lexical_recall_at_5_is_at_least_0_8(data_dir: Path, tmp_path: Path) -> None:
    services: Services = build_services(data_dir)
    try:
        kb = await services.knowledge.create("Eval")
        report = await services.knowledge.add(kb.id, [write_corpus(tmp_path / "corpus")])
        assert report.added == 9 and not report.failed

        async def search(question: str) -> list[tuple[str, dict]]:
            result = await services.knowledge.search(kb.id, question, limit=5)
            return [(h.chunk.document_name, h.chunk.location) for h in result.hits]

        recall, missed = await recall_at_k(search, k=5)
    finally:
        await services.aclose()
    log.info("recall@5 = %.3f; missed: %s", recall, [q.text for q in missed])
    assert len(QUESTIONS) >= 30
    assert recall >= 0.8, [q.text for q in missed]
