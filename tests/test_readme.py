"""The README serves its two audiences first: its first screen tells a learner and an
instructor where to start, and every link in it and in docs/ leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# What fits a screen: a learner and an instructor find their way before scrolling.
FIRST_SCREEN_LINES = 20


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_the_first_screen_tells_learners_and_instructors_where_to_start():
    first = "\n".join(README.read_text().splitlines()[:FIRST_SCREEN_LINES])

    learner = first.split("**Learners:**", 1)[1].split("- **Instructors:**", 1)[0]
    instructor = first.split("**Instructors:**", 1)[1].split("- **Operators:**", 1)[0]
    for step in ("Sign up", "Quizzes", "Review", "My history", "](#learners)"):
        assert step in learner, step
    for step in ("make_instructor", "Admin", "](#your-first-quiz)"):
        assert step in instructor, step
    # Operators come after them.
    assert (
        first.index("**Learners:**")
        < first.index("**Instructors:**")
        < first.index("**Operators:**")
    )


def test_the_learners_and_instructors_parts_come_before_the_operators():
    headings = re.findall(r"^## (.+)$", README.read_text(), re.MULTILINE)

    assert headings[:3] == ["Where to start", "Learners", "Instructors"]
    assert headings.index("Instructors") < headings.index("Configuration")


def test_every_relative_link_of_the_readme_and_docs_leads_to_a_file_and_heading():
    broken = []
    for document in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = document.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # an absolute address
            path, _hash, anchor = target.partition("#")
            linked = (document.parent / path).resolve() if path else document
            if not linked.exists():
                broken.append(f"{document.name}: {target}")
            elif anchor and anchor not in _anchors(linked.read_text()):
                broken.append(f"{document.name}: {target} (no such heading)")
    assert broken == []
