"""The admin's quiz tools check permissions before they look a quiz up.

Staff without the permissions a tool needs get 403 whether the quiz exists or not, so the
answer tells them nothing (not even which ids exist); with the permissions, a missing quiz is 404.
"""

import pytest
from django.contrib.auth.models import Permission

from tests import factories

pytestmark = pytest.mark.django_db

MISSING = 999_999
TOOLS = [
    "/en/admin/quizzes/quiz/{id}/item-analysis/",
    "/en/admin/quizzes/quiz/{id}/attempts.csv",
    "/en/admin/quizzes/quiz/{id}/export.gift.txt",
    "/en/admin/quizzes/quiz/{id}/export.moodle.xml",
    "/en/admin/quizzes/quiz/{id}/export.qti.zip",
    "/en/admin/quizzes/quiz/translations/?quiz={id}",
]
# A Moodle XML or QTI export holds ordering questions' items too.
EXCHANGE = [
    "view_quiz",
    "view_question",
    "view_choice",
    "view_acceptedtext",
    "view_matchpair",
    "view_numericalanswer",
    "view_orderitem",
]
# What each tool needs beyond opening the admin.
NEEDS = {
    "item-analysis": ["view_quiz", "view_attempt", "view_answer"],
    "attempts.csv": ["view_quiz", "view_attempt", "view_answer"],
    "export.gift.txt": [
        "view_quiz",
        "view_question",
        "view_choice",
        "view_acceptedtext",
        "view_matchpair",
        "view_numericalanswer",
    ],
    "export.moodle.xml": EXCHANGE,
    "export.qti.zip": EXCHANGE,
    "translations": ["view_quiz", "view_question", "view_choice"],
}


def _needs(tool: str) -> list[str]:
    return next(needs for name, needs in NEEDS.items() if name in tool)


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("granted", ["none", "all but one"])
def test_staff_without_a_tools_permissions_get_403_for_a_quiz_that_exists_and_one_that_does_not(
    bare_staff, bare_staff_client, tool, granted
):
    quiz = factories.make_quiz(questions=1)
    if granted == "all but one":  # view_quiz is there, the attempts' or the choices' is not
        bare_staff.user_permissions.add(*Permission.objects.filter(codename__in=_needs(tool)[:-1]))
    assert bare_staff_client.get(tool.format(id=quiz.pk)).status_code == 403
    assert bare_staff_client.get(tool.format(id=MISSING)).status_code == 403


@pytest.mark.parametrize("tool", TOOLS)
def test_with_the_permissions_a_tool_opens_its_quiz_and_a_missing_one_is_404(
    bare_staff, bare_staff_client, tool
):
    quiz = factories.make_quiz(questions=1)
    bare_staff.user_permissions.add(*Permission.objects.filter(codename__in=_needs(tool)))
    assert bare_staff_client.get(tool.format(id=quiz.pk)).status_code == 200
    assert bare_staff_client.get(tool.format(id=MISSING)).status_code == 404


def test_staff_who_may_view_questions_but_not_accepted_numbers_cannot_export_their_keys(
    bare_staff, bare_staff_client
):
    # A GIFT export carries numerical questions' accepted numbers: it needs their permission.
    quiz = factories.make_quiz(questions=1)
    factories.add_numerical_question(quiz, 2)
    bare_staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_quiz", "view_question", "view_choice"])
    )

    response = bare_staff_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/export.gift.txt")

    assert response.status_code == 403


def test_staff_who_may_not_add_accepted_numbers_cannot_import_a_file(bare_staff, bare_staff_client):
    bare_staff.user_permissions.add(
        *Permission.objects.filter(
            codename__in=[
                "add_quiz",
                "add_question",
                "add_choice",
                "add_acceptedtext",
                "add_matchpair",
            ]
        )
    )

    assert bare_staff_client.get("/en/admin/quizzes/quiz/import/").status_code == 403

    bare_staff.user_permissions.add(Permission.objects.get(codename="add_numericalanswer"))
    assert bare_staff_client.get("/en/admin/quizzes/quiz/import/").status_code == 200


@pytest.mark.parametrize("model", ["acceptedtext", "matchpair"])
def test_gift_needs_the_permissions_of_accepted_answers_and_pairs_it_holds(
    bare_staff, bare_staff_client, model
):
    quiz = factories.make_typed_quiz()
    export = f"/en/admin/quizzes/quiz/{quiz.pk}/export.gift.txt"
    needs = _needs("export.gift.txt")
    bare_staff.user_permissions.add(
        *Permission.objects.filter(codename__in=[n for n in needs if n != f"view_{model}"])
    )
    adds = ["add_quiz", "add_question", "add_choice", "add_numericalanswer"]
    adds += [f"add_{m}" for m in ("acceptedtext", "matchpair") if m != model]
    bare_staff.user_permissions.add(*Permission.objects.filter(codename__in=adds))

    assert bare_staff_client.get(export).status_code == 403
    assert bare_staff_client.get("/en/admin/quizzes/quiz/import/").status_code == 403


def test_instructors_may_write_the_parts_of_every_kind(instructor):
    for model in ("acceptedtext", "matchpair", "orderitem"):
        for action in ("add", "change", "delete", "view"):
            assert instructor.has_perm(f"quizzes.{action}_{model}")
