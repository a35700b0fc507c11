"""Instructors build bilingual quizzes in the admin; broken quizzes are stopped there."""

import re
from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.attempts.services import attempt_start
from quizzes.models import Choice, Question, Quiz
from tests.admin_posts import inline, typed_sections
from tests.factories import make_guide, make_quiz, make_user, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, instructor):
    client.force_login(instructor)
    return client


def _question_post(quiz, choices: list[tuple[int, bool]], position: int = 1) -> dict:
    data = {
        "quiz": str(quiz.pk),
        "position": str(position),
        "kind": "single",
        "prompt_en": "Which is right?",
        "prompt_ar": "أيّها الصحيح؟",
        "explanation_en": "Because.",
        "explanation_ar": "لأنّ.",
    }
    rows = [
        {"position": str(p), "text_en": f"Option {i}", "text_ar": f"الخيار {i}"}
        | ({"is_correct": "on"} if correct else {})
        for i, (p, correct) in enumerate(choices, 1)
    ]
    return data | inline("choices", rows) | inline("numerical_answers", []) | typed_sections()


def test_instructors_group_holds_exactly_the_content_permissions():
    group = Group.objects.get(name="Instructors")
    codenames = set(group.permissions.values_list("codename", flat=True))
    expected = {
        f"{a}_{m}"
        for m in (
            *("guide", "quiz", "question", "choice", "numericalanswer", "quizoverride"),
            *("acceptedtext", "matchpair", "orderitem"),
        )
        for a in ("add", "change", "delete", "view")
    }
    # Learners' reports of problems: read, and marked resolved (a change); never deleted.
    reports = {"view_questionreport", "change_questionreport"}
    # LTI: the scores sent to platforms, seen; which attempt counts, chosen per quiz.
    lti = {"view_scorepost", "view_quizgrading", "add_quizgrading", "change_quizgrading"}
    # Regrades after a key was fixed: made, and their trail read; never changed or deleted.
    regrades = {"add_regrade", "view_regrade", "view_regradedanswer", "view_regradedattempt"}
    assert codenames == expected | {"view_attempt", "view_answer"} | reports | lti | regrades


def test_make_instructor_command_gives_admin_access(client):
    user = make_user("nadia")
    call_command("make_instructor", "nadia", verbosity=0)
    user.refresh_from_db()
    assert user.is_staff and user.groups.filter(name="Instructors").exists()
    client.force_login(user)
    assert client.get("/en/admin/quizzes/quiz/").status_code == 200


def test_make_instructor_finds_the_account_in_any_case_as_sign_in_does():
    """An administrator types the name as the instructor says it: "nadia" is "Nadia"."""
    user = make_user("Nadia")
    out = StringIO()

    call_command("make_instructor", "nadia", stdout=out)

    user.refresh_from_db()
    assert user.is_staff and user.groups.filter(name="Instructors").exists()
    assert out.getvalue() == "Nadia is now an instructor and can sign in to /admin/.\n"
    call_command("make_instructor", "NADIA", "--remove", stdout=out)
    user.refresh_from_db()
    assert not user.is_staff and not user.groups.exists()


def test_make_instructor_asks_which_of_two_old_accounts_differing_in_case():
    # Made before look-alike names were refused (bulk_create skips that check).
    User.objects.bulk_create([User(username="Nadia"), User(username="NADIA")])

    with pytest.raises(CommandError, match=r"Several users are named 'nadia' \(NADIA, Nadia\)"):
        call_command("make_instructor", "nadia")
    call_command("make_instructor", "NADIA", stdout=StringIO())  # the exact spelling is one

    assert list(User.objects.filter(is_staff=True).values_list("username", flat=True)) == ["NADIA"]


@pytest.mark.parametrize(
    "url",
    [
        "/en/admin/",
        "/en/admin/quizzes/quiz/",
        "/en/admin/quizzes/quiz/add/",
        "/en/admin/quizzes/question/add/",
        "/en/admin/quizzes/guide/add/",
        "/en/admin/quizzes/attempt/",
    ],
)
def test_admin_pages_render_for_an_instructor(admin_client, url):
    assert admin_client.get(url).status_code == 200


def test_admin_quiz_page_shows_english_and_arabic_fields_with_their_direction(admin_client, quiz):
    page = admin_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    assert 'name="title_en"' in page and 'name="title_ar"' in page
    assert 'name="questions-0-prompt_ar"' in page
    assert 'dir="rtl"' in page and 'lang="ar"' in page


def test_learners_are_refused_the_admin(client, learner):
    client.force_login(learner)
    response = client.get("/en/admin/quizzes/quiz/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_instructors_cannot_manage_users_or_groups(admin_client):
    assert admin_client.get("/en/admin/auth/user/").status_code == 403
    assert admin_client.get("/en/admin/auth/group/").status_code == 403


def test_an_instructor_builds_a_bilingual_quiz_from_scratch(admin_client):
    guide = make_guide()
    response = admin_client.post(
        "/en/admin/quizzes/quiz/add/",
        {
            "title_en": "Pipelines",
            "title_ar": "خطوط المعالجة",
            "slug": "pipelines",
            "description_en": "Pipeline parallelism.",
            "description_ar": "توازي خطوط المعالجة.",
            "difficulty": "easy",
            "guide": str(guide.pk),
            "feedback": "immediate",
            "confidence": "off",
        }
        | inline("overrides", [])
        | inline(
            "questions",
            [
                {
                    "position": "1",
                    "kind": "single",
                    "prompt_en": "What is a bubble?",
                    "prompt_ar": "ما الفقاعة؟",
                    "explanation_en": "Idle time.",
                    "explanation_ar": "وقت الخمول.",
                }
                | inline(
                    "choices",
                    [
                        {"text_en": f"Option {i}", "text_ar": f"الخيار {i}"}
                        | ({"is_correct": "on"} if i == 2 else {})
                        for i in (1, 2, 3)
                    ],
                )
            ],
        ),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    quiz = Quiz.objects.get(slug="pipelines")
    question = quiz.questions.get()
    assert question.choices.filter(is_correct=True).get().text_ar == "الخيار 2"
    assert quiz.title_ar == "خطوط المعالجة"

    data = (
        {
            "title_en": "Pipelines",
            "title_ar": "خطوط المعالجة",
            "slug": "pipelines",
            "difficulty": "easy",
            "guide": str(guide.pk),
            "is_published": "on",
            "feedback": "immediate",
            "confidence": "off",
        }
        | inline("overrides", [])
        | inline(
            "questions",
            [
                {
                    "id": str(question.pk),
                    "quiz": str(quiz.pk),
                    "position": "1",
                    "kind": "single",
                    "prompt_en": "What is a bubble?",
                    "explanation_en": "Idle time.",
                }
            ],
            initial=1,
        )
    )
    response = admin_client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data)
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert quiz.is_published


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        ([(1, False), (2, False)], "Mark one choice as correct."),
        ([(1, True), (2, True)], "Only one choice may be marked correct"),
        ([(1, True)], "A question needs at least two choices."),
        ([(1, True), (1, False)], "Two choices share a position"),
    ],
)
def test_the_admin_stops_a_broken_question_with_a_clear_message(
    admin_client, quiz, choices, message
):
    before = Question.objects.count(), Choice.objects.count()
    response = admin_client.post(
        "/en/admin/quizzes/question/add/", _question_post(quiz, choices, position=9)
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert (Question.objects.count(), Choice.objects.count()) == before


@pytest.mark.parametrize("published", [True, False])
def test_the_quiz_page_refuses_a_question_without_choices_published_or_not(admin_client, published):
    guide = make_guide()
    data = {
        "title_en": "Half done",
        "slug": "half-done",
        "difficulty": "easy",
        "guide": str(guide.pk),
        "feedback": "immediate",
        "confidence": "off",
    } | inline(
        "questions",
        [
            {
                "position": "1",
                "kind": "single",
                "prompt_en": "No choices yet?",
                "explanation_en": "x",
            }
        ],
    )
    if published:
        data["is_published"] = "on"
    response = admin_client.post("/en/admin/quizzes/quiz/add/", data)
    assert response.status_code == 200
    page = response.content.decode()
    group = page.split('id="questions-0-choices-group"')[1].split("daleel-part-rows")[0]
    # As the question's own page says it (test_admin.py's parametrised refusals).
    assert "A question needs at least two choices." in group
    assert not Quiz.objects.filter(slug="half-done").exists()


def test_the_admin_refuses_to_delete_a_question_learners_answered(admin_client, learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get(position=1)
    post_answer(attempt, question, choice=wrong_choice(question))

    page = admin_client.get(f"/en/admin/quizzes/question/{question.pk}/delete/").content.decode()
    assert "protected" in page
    admin_client.post(f"/en/admin/quizzes/question/{question.pk}/delete/", {"post": "yes"})
    assert Question.objects.filter(pk=question.pk).exists()


def test_the_admin_keeps_the_last_question_of_a_published_quiz(admin_client):
    """Deleted on its own page or from the list, the last question would take the quiz off
    the catalog without a word; the quiz's own page refuses to save it empty as well."""
    quiz = make_quiz(questions=1, title_en="Sharding with ZeRO")
    question = quiz.questions.get()
    url = f"/en/admin/quizzes/question/{question.pk}/delete/"

    response = admin_client.get(url, follow=True)
    assert response.redirect_chain[0][0] == f"/en/admin/quizzes/question/{question.pk}/change/"
    assert "“Sharding with ZeRO” is published and needs at least one question" in (
        response.content.decode()
    )
    arabic = admin_client.get(url.replace("/en/", "/ar/"), follow=True).content.decode()
    assert f"الاختبار «{quiz.title_ar}» منشور ويحتاج إلى سؤال واحد على الأقل" in arabic
    admin_client.post(url, {"post": "yes"})
    page = admin_client.post(
        "/en/admin/quizzes/question/",
        {"action": "delete_selected", "_selected_action": [question.pk], "post": "yes"},
        follow=True,
    ).content.decode()
    assert "Nothing was deleted" in page
    assert Question.objects.filter(pk=question.pk).exists()

    Quiz.objects.filter(pk=quiz.pk).update(is_published=False)
    admin_client.post(url, {"post": "yes"})
    assert not Question.objects.filter(pk=question.pk).exists()


def test_a_list_deletion_that_would_empty_published_quizzes_deletes_nothing(admin_client):
    first, second = make_quiz(questions=1, title_en="First"), make_quiz(questions=1, title_en="Two")
    spared = make_quiz(questions=2)
    doomed = [*Question.objects.filter(quiz__in=[first, second]), spared.questions.first()]
    page = admin_client.post(
        "/en/admin/quizzes/question/",
        {"action": "delete_selected", "_selected_action": [q.pk for q in doomed], "post": "yes"},
        follow=True,
    ).content.decode()
    assert "These 2 quizzes are published and each needs at least one question: " in page
    assert "“First”, “Two”." in page
    assert Question.objects.count() == 4


def test_the_admin_deletes_questions_a_published_quiz_can_spare(admin_client):
    kept, spared = make_quiz(questions=1), make_quiz(questions=3)
    doomed = [spared.questions.get(position=1).pk, spared.questions.get(position=2).pk]
    response = admin_client.post(
        "/en/admin/quizzes/question/",
        {"action": "delete_selected", "_selected_action": doomed, "post": "yes"},
    )
    assert response.status_code == 302
    assert list(spared.questions.values_list("position", flat=True)) == [3]
    assert kept.questions.count() == 1


def test_the_quiz_list_counts_questions_in_as_many_statements_for_many_quizzes(admin_client):
    make_quiz(questions=2)
    with CaptureQueriesContext(connection) as few:
        page = admin_client.get("/en/admin/quizzes/quiz/").content.decode()
    assert '<td class="field-question_count">2</td>' in page
    for questions in (1, 3, 5, 7):
        make_quiz(questions=questions)
    with CaptureQueriesContext(connection) as many:
        page = admin_client.get("/en/admin/quizzes/quiz/?o=7").content.decode()
    assert '<td class="field-question_count">7</td>' in page
    assert len(many) == len(few)


def test_a_new_question_posted_as_a_newcomer_fills_it_saves_with_positions_and_weights(
    admin_client,
):
    """What the add page posts when only the texts and "Correct" are filled: no position for
    the question or its choices, no weight (tests/e2e/test_admin_first_question.py drives
    the page itself)."""
    quiz = make_quiz(questions=2)
    rows = [
        {"text_en": text, "position": "", "fraction": ""} | ({"is_correct": "on"} if n < 2 else {})
        for n, text in enumerate(["Memory", "Time", "Colour", "Smell"])
    ]
    data = (
        {
            "quiz": str(quiz.pk),
            "position": "",
            "kind": "multiple",
            "prompt_en": "Which does recomputation trade?",
            "explanation_en": "Memory for time.",
        }
        | inline("choices", rows)
        | inline("numerical_answers", [])
        | typed_sections()
    )

    response = admin_client.post("/en/admin/quizzes/question/add/", data)

    assert response.status_code == 302, response.content.decode()[:3000]
    question = quiz.questions.get(prompt_en="Which does recomputation trade?")
    assert question.position == 3
    assert [(c.position, c.text_en, c.fraction) for c in question.choices.order_by("position")] == [
        (1, "Memory", Decimal("0.5")),
        (2, "Time", Decimal("0.5")),
        (3, "Colour", Decimal("-0.5")),
        (4, "Smell", Decimal("-0.5")),
    ]


def test_the_add_page_offers_new_choices_with_no_weight_typed(admin_client):
    page = admin_client.get("/en/admin/quizzes/question/add/").content.decode()
    empty_weight = re.search(r'<input[^>]*name="choices-__prefix__-fraction"[^>]*>', page)[0]
    assert "value=" not in empty_weight


def test_a_choices_text_is_a_box_of_several_lines_in_both_languages(admin_client, quiz):
    question = quiz.questions.first()
    page = admin_client.get(f"/en/admin/quizzes/question/{question.pk}/change/").content.decode()
    for language in ("en", "ar"):
        assert re.search(rf'<textarea name="choices-0-text_{language}"[^>]*rows="2"', page)


def _quiz_page_post(quiz, questions: list[dict]) -> dict:
    return (
        {
            "title_en": quiz.title_en,
            "slug": quiz.slug,
            "difficulty": quiz.difficulty,
            "guide": str(quiz.guide_id),
            "feedback": quiz.feedback,
            "confidence": "off",
        }
        | inline("overrides", [])
        | inline("questions", questions)
    )


def test_a_quiz_page_saves_new_questions_with_their_choices_and_numbers_in_one_go(admin_client):
    quiz = make_quiz(questions=0, is_published=False)
    choices = [
        {"text_en": text, "position": "", "fraction": ""} | ({"is_correct": "on"} if right else {})
        for text, right in [("Optimizer states", True), ("Activations", False)]
    ]
    questions = [
        {"kind": "single", "prompt_en": "What does ZeRO-1 shard?", "explanation_en": "States."}
        | inline("choices", choices),
        {"kind": "numerical", "prompt_en": "Bytes in fp16?", "explanation_en": "Two."}
        | inline(
            "numerical_answers", [{"value": "2", "position": "", "fraction": "1", "tolerance": "0"}]
        ),
    ]

    response = admin_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/change/", _quiz_page_post(quiz, questions)
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    single, numerical = quiz.questions.order_by("position")
    assert [(c.text_en, c.fraction) for c in single.choices.order_by("position")] == [
        ("Optimizer states", Decimal(1)),
        ("Activations", Decimal(0)),
    ]
    assert [(n.value, n.fraction) for n in numerical.numerical_answers.all()] == [(2, 1)]


def test_a_quiz_pages_question_with_two_correct_choices_is_refused_beside_it(admin_client):
    quiz = make_quiz(questions=0, is_published=False)
    choices = [{"text_en": text, "is_correct": "on"} for text in ("One", "Two")]
    question = {"kind": "single", "prompt_en": "Which?", "explanation_en": "."} | inline(
        "choices", choices
    )

    response = admin_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/change/", _quiz_page_post(quiz, [question])
    )

    assert response.status_code == 200
    page = response.content.decode()
    group = page.split('id="questions-0-choices-group"')[1].split("daleel-part-rows")[0]
    assert "Only one choice may be marked correct; choices 1, 2 are." in group
    assert not quiz.questions.exists()


def test_the_admin_is_named_daleels_and_lists_quizzes_first_and_lti_last(client):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))

    page = client.get("/en/admin/").content.decode()
    arabic = client.get("/ar/admin/").content.decode()

    assert "Daleel administration" in page and "Django administration" not in page
    assert "إدارة دليل" in arabic
    apps = re.findall(r'class="app-([a-z_]+) module', page)
    assert apps[0] == "quizzes" and apps[-1] == "lti", apps
    assert apps.index("auth") < apps.index("lti")


def test_the_quiz_list_shows_the_grades_link_first_and_fewer_columns(
    admin_client,
):
    make_quiz(questions=2, title_en="Pipelines")

    page = admin_client.get("/en/admin/quizzes/quiz/").content.decode()
    sorted_by_guide = admin_client.get("/en/admin/quizzes/quiz/?o=3")
    title_link = re.search(r'<th class="field-title"><a href="([^"]+)"', page)

    columns = re.findall(r'<th scope="col" class="[^"]*column-([a-z_]+)', page)
    assert columns == [
        "results_link",
        "title",
        "in_guide",
        "is_published",
        "question_count",
        "open_reports",
    ]
    assert sorted_by_guide.status_code == 200
    assert title_link and title_link[1].endswith("/change/")  # the title opens the quiz
