"""GIFT and the site's Markdown: `[markdown]` kept as written, `[plain]`, `[moodle]` and
`[html]` shown as the text they hold (nothing executable), and an export imports back
unchanged, code, math and both languages included."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from quizzes.instructors.exports import quiz_to_gift
from quizzes.instructors.gift.format import parse_gift
from quizzes.models import Quiz
from quizzes.text import render_markdown
from tests.quizzes.test_text import HOSTILE, executable_parts

CODE = "```python\ndef f(x):\n    return checkpoint(block, x, use_reentrant=False)\n```"

RICH = (
    "$CATEGORY: $course$/top/Rich\n\n"
    '::Q1::[markdown]<span lang\\="en" class\\="multilang">Which keeps $O(\\\\sqrt\\{N\\})$?'
    "\\n\\n" + CODE.replace("\n", "\\n").replace("=", "\\=") + "</span>"
    '<span lang\\="ar" class\\="multilang">أيّها يُبقي $O(\\\\sqrt\\{N\\})$؟</span>{\n'
    "\t=`use_reentrant\\=False`#**Yes**\n"
    "\t~`use_reentrant\\=True`\n"
    "\t####| Stage | Bytes |\\n|--|--|\\n| 3 | $16\\\\Psi/N$ |\n"
    "}\n"
)


def test_markdown_is_kept_as_written_with_its_code_indented_and_languages_split():
    question = parse_gift(RICH).questions[0]

    assert question.prompt.en == "Which keeps $O(\\sqrt{N})$?\n\n" + CODE
    assert question.prompt.ar == "أيّها يُبقي $O(\\sqrt{N})$؟"
    assert question.choices[0].text.en == "`use_reentrant=False`"
    assert question.choices[0].feedback.en == "**Yes**"
    assert question.explanation.en == "| Stage | Bytes |\n|--|--|\n| 3 | $16\\Psi/N$ |"
    html = render_markdown(question.prompt.en, lang="en")
    assert '    <span class="tok-k">return</span>' in html and "<msqrt>" in html


def test_plain_text_is_shown_as_written_not_read_as_markdown():
    question = parse_gift("[plain]2 * 3 * 4 costs $5 and $6, see [x](y){=a ~b}").questions[0]

    html = render_markdown(question.prompt.en, lang="en")
    assert html == "<p>2 * 3 * 4 costs $5 and $6, see [x](y)</p>"


def test_html_is_read_as_its_text_in_each_language():
    gift = (
        '[html]<span lang\\="en" class\\="multilang"><p>Is <b>2 &lt; 3</b>?</p></span>'
        '<span lang\\="ar" class\\="multilang"><p>هل ٢ &lt; ٣؟</p></span>{=yes ~no}'
    )
    question = parse_gift(gift).questions[0]

    assert render_markdown(question.prompt.en, lang="en") == "<p>Is 2 &lt; 3?</p>"
    assert render_markdown(question.prompt.ar, lang="ar") == "<p>هل ٢ &lt; ٣؟</p>"


@pytest.mark.parametrize("text_format", ["html", "moodle", "plain", "markdown"])
@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_in_any_format_renders_nothing_executable(hostile, text_format):
    escaped = hostile.replace("\\", "\\\\")
    for char in "#=~{}:":
        escaped = escaped.replace(char, "\\" + char)
    document = parse_gift(f"[{text_format}]{escaped.replace(chr(10), '\\n')}{{=a ~b}}")

    for question in document.questions:
        assert executable_parts(render_markdown(question.prompt.en, lang="en")) == []


@pytest.mark.django_db
def test_an_exported_markdown_quiz_imports_back_unchanged(tmp_path):
    path = tmp_path / "rich.gift"
    path.write_text(RICH, encoding="utf-8")
    call_command("import_quiz", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    quiz = Quiz.objects.get()

    exported = quiz_to_gift(quiz)
    assert "::[markdown]" in exported
    again = tmp_path / "again.gift"
    again.write_text(exported, encoding="utf-8")
    call_command("import_quiz", str(again), stdout=io.StringIO(), stderr=io.StringIO())

    first, second = Quiz.objects.order_by("pk")
    fields = ["prompt_en", "prompt_ar", "explanation_en", "explanation_ar"]
    assert list(first.questions.values(*fields)) == list(second.questions.values(*fields))
    choice_fields = ["text_en", "text_ar", "feedback_en", "feedback_ar", "is_correct"]
    assert list(first.questions.get().choices.order_by("position").values(*choice_fields)) == (
        list(second.questions.get().choices.order_by("position").values(*choice_fields))
    )
    assert first.questions.get().prompt_en.endswith(CODE)
