"""The QTI export validates against the QTI 2.1 and IMS Content Packaging 1.1 schemas, as IMS
publishes them (tests/schemas/, with MathML 2, XInclude and xml.xsd beside them): the
manifest against IMS CP, each test and item against QTI 2.1."""

from __future__ import annotations

import io
import zipfile
from functools import cache
from pathlib import Path

import pytest
from django.core.management import call_command
from lxml import etree

from quizzes.instructors.exports import quiz_export
from quizzes.models import Quiz
from tests import factories

from .exchange_quizzes import exact_short_question, make_exchange_quiz

pytestmark = pytest.mark.django_db

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"


@cache
def schema(name: str) -> etree.XMLSchema:
    # Every import the schemas make is a file beside them: nothing is read from the network.
    parser = etree.XMLParser(no_network=True)
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name), parser))


def invalid_members(package: bytes) -> dict[str, list[str]]:
    """Each member of the package that does not validate, with the schema's complaints."""
    problems = {}
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        for name in archive.namelist():
            if not name.endswith(".xml"):
                continue
            document = etree.fromstring(archive.read(name))
            validator = schema(
                "imscp_v1p1.xsd" if name == "imsmanifest.xml" else "qtiv2p1/imsqti_v2p1.xsd"
            )
            if not validator.validate(document):
                problems[name] = [str(error) for error in validator.error_log][:5]
    return problems


def test_the_qti_package_of_a_quiz_of_every_kind_validates():
    quiz = make_exchange_quiz()
    exact_short_question(quiz, 8)

    package, _notes = quiz_export([quiz], "qti")

    assert invalid_members(package) == {}
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        names = archive.namelist()
    assert names[0] == "imsmanifest.xml"
    assert sum(name.startswith("quiz/items/") for name in names) == 8
    assert sum(name.startswith("quiz/images/") for name in names) == 3


def test_the_seed_quizzes_and_a_large_quiz_validate_in_one_package():
    call_command("seed_quizzes", stdout=io.StringIO())
    factories.make_quiz_of_every_kind(questions=100)

    package, _notes = quiz_export(Quiz.objects.order_by("pk"), "qti")

    assert invalid_members(package) == {}


def test_the_validation_catches_an_invalid_item():
    """The check itself: an item the schema refuses is reported (it is not a rubber stamp)."""
    quiz = factories.make_quiz(questions=1)
    package, _notes = quiz_export([quiz], "qti")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if "/items/" in name:
                data = data.replace(b'maxChoices="1"', b'maxChoices="one"')
            target.writestr(name, data)

    problems = invalid_members(out.getvalue())

    assert list(problems) == ["quiz/items/ITEM-1-1.xml"]
    assert "maxChoices" in problems["quiz/items/ITEM-1-1.xml"][0]
