"""Standalone docs (issue 12): the README and docs/ stand on their own in a checkout: no reference
to files outside the repository, and every relative link points at a file that exists."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OUTSIDE = re.compile(r"\.\./shared|shared/seeds|\bRULES\.md|\bDESIGN\.md|\bREFERENCES\.md|\b00[0-4]_[0-9a-f]{16}\.txt")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_no_doc_depends_on_a_file_outside_the_repository():
    found = [f"{doc.relative_to(ROOT)}:{n}: {line.strip()}" for doc in DOCS
             for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert found == []


def test_every_relative_link_of_the_docs_resolves_inside_the_repository():
    broken = []
    for doc in DOCS:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not a file of ours
            path = (doc.parent / target).resolve()
            if not path.exists() or ROOT.resolve() not in path.parents:
                broken.append(f"{doc.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_sources_page_cites_every_source_document_by_title_and_publisher():
    text = (ROOT / "docs" / "sources.md").read_text(encoding="utf-8")
    for title, publisher in [("マスターポイント", "Japan Contract Bridge League"),
                             ("Universal Master Points System", "backgammon club program"),
                             ("Svenska Mästarpoäng", "Förbundet Svensk Bridge"),
                             ("第２期のルール", "league's announcement"),
                             ("橋牌IMP與MP怎麼算", "2017 Laws of Duplicate Bridge")]:
        assert title in text and publisher in text
