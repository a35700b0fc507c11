"""Item analysis: facility, discrimination and distractors, checked against hand computation."""

from __future__ import annotations

import math
import random
import re
import statistics

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from quizzes.instructors.item_analysis import discrimination_index, item_analysis
from tests import factories

from .conftest import record_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def analysed_quiz(db):
    """Five learners' first attempts at three questions (choice 1 is right in each).

    Picks (choice positions) and scores, x = 1 when right:

        learner  picks    x1 x2 x3  total
        L1       1 1 1     1  1  1   3
        L2       1 1 2     1  1  0   2
        L3       1 3 1     1  0  1   2
        L4       2 1 4     0  1  0   1
        L5       3 2 2     0  0  0   0

    plus attempts that first-attempt analysis must leave out: L5's later retake with all
    three right, L4's retake still in progress, and L6's only attempt, in progress.
    """
    quiz = factories.make_quiz(questions=3, choices=4, correct=1)
    learners = [factories.make_user(f"l{n}") for n in range(1, 7)]
    picks = [[1, 1, 1], [1, 1, 2], [1, 3, 1], [2, 1, 4], [3, 2, 2]]
    for learner, chosen in zip(learners, picks, strict=False):
        record_attempt(learner, quiz, chosen, minutes_ago=120)
    record_attempt(learners[4], quiz, [1, 1, 1], minutes_ago=30)
    record_attempt(learners[3], quiz, [1], minutes_ago=10, finished=False)
    record_attempt(learners[5], quiz, [1, 1], minutes_ago=10, finished=False)
    return quiz


def test_facility_is_the_share_of_right_answers(analysed_quiz):
    analysis = item_analysis(analysed_quiz)

    assert analysis.attempts == 5
    assert [item.answers for item in analysis.items] == [5, 5, 5]
    # Q1: 3 of 5 right, Q2: 3 of 5, Q3: 2 of 5.
    assert [item.facility for item in analysis.items] == [0.6, 0.6, 0.4]
    assert [item.facility_percent for item in analysis.items] == [60, 60, 40]


def test_discrimination_is_the_correlation_with_the_rest_of_the_test(analysed_quiz):
    # y = total - x, the score on the other two questions. r = Σ(dx·dy) / √(Σdx²·Σdy²),
    # with dx, dy deviations from the means.
    #
    # Q1: x = 1 1 1 0 0 (mean .6), y = 2 1 1 1 0 (mean 1)
    #     Σdx·dy = .4·1 + .4·0 + .4·0 + (-.6)·0 + (-.6)(-1) = 1.0
    #     Σdx² = 3(.16) + 2(.36) = 1.2;  Σdy² = 1 + 0 + 0 + 0 + 1 = 2
    #     r = 1 / √2.4 = 0.6455
    # Q2: x = 1 1 0 1 0 (mean .6), y = 2 1 2 0 0 (mean 1)
    #     Σdx·dy = .4·1 + .4·0 + (-.6)·1 + .4(-1) + (-.6)(-1) = 0  →  r = 0, flagged
    # Q3: x = 1 0 1 0 0 (mean .4), y = 2 2 1 1 0 (mean 1.2)
    #     Σdx·dy = .6·.8 + (-.4)·.8 + .6(-.2) + (-.4)(-.2) + (-.4)(-1.2) = 0.6
    #     Σdx² = 2(.36) + 3(.16) = 1.2;  Σdy² = .64 + .64 + .04 + .04 + 1.44 = 2.8
    #     r = .6 / √3.36 = 0.3273, just above the 0.3 line
    analysis = item_analysis(analysed_quiz)

    q1, q2, q3 = analysis.items
    assert q1.discrimination == pytest.approx(1 / math.sqrt(2.4))
    assert q2.discrimination == pytest.approx(0.0)
    assert q3.discrimination == pytest.approx(0.6 / math.sqrt(3.36))
    assert [item.flagged for item in analysis.items] == [False, True, False]
    assert analysis.flagged_count == 1


def test_distribution_counts_the_answers_on_each_choice(analysed_quiz):
    analysis = item_analysis(analysed_quiz)

    assert [[row.count for row in item.choices] for item in analysis.items] == [
        [3, 1, 1, 0],
        [3, 1, 1, 0],
        [2, 2, 0, 1],
    ]
    assert [row.share_percent for row in analysis.items[2].choices] == [40, 40, 0, 20]
    assert [row.choice.is_correct for row in analysis.items[0].choices] == [
        True,
        False,
        False,
        False,
    ]


def test_all_finished_attempts_include_retakes_but_not_attempts_in_progress(analysed_quiz):
    # With L5's retake (x = 1 1 1, total 3): Q1 x = 1 1 1 0 0 1, y = 2 1 1 1 0 2.
    # n = 6, Σx = 4, Σy = 7, Σy² = 11, Σxy = 6:
    # r = (6·6 - 4·7) / √((6·4 - 16)(6·11 - 49)) = 8 / √136 = 0.6860
    analysis = item_analysis(analysed_quiz, first_attempts_only=False)

    assert analysis.attempts == 6
    assert analysis.items[0].answers == 6
    assert analysis.items[0].facility == pytest.approx(4 / 6)
    assert analysis.items[0].discrimination == pytest.approx(8 / math.sqrt(136))


def test_a_question_nobody_answered_has_no_statistics(analysed_quiz):
    factories.add_question(analysed_quiz, 4)

    item = item_analysis(analysed_quiz).items[3]

    assert (item.answers, item.facility, item.discrimination, item.flagged) == (
        0,
        None,
        None,
        False,
    )
    assert [row.share for row in item.choices] == [None] * 4


@pytest.mark.parametrize(
    ("sums", "why"),
    [
        ((4, 4, 6, 10, 6), "everyone right"),
        ((4, 0, 6, 10, 0), "everyone wrong"),
        ((4, 2, 8, 16, 4), "the same rest score for all"),
        ((1, 1, 2, 4, 2), "one answer"),
    ],
)
def test_discrimination_is_undefined_without_spread(sums, why):
    assert discrimination_index(*sums) is None, why


def test_database_sums_agree_with_pythons_correlation_on_random_data(db):
    rng = random.Random(7)
    quiz = factories.make_quiz(questions=4, choices=3, correct=1)
    for n in range(40):
        ability = rng.random()
        picks = [1 if rng.random() < ability else rng.choice([2, 3]) for _question in range(4)]
        record_attempt(factories.make_user(f"r{n}"), quiz, picks)

    analysis = item_analysis(quiz)

    for item in analysis.items:
        answers = item.question.answers.select_related("attempt").order_by("attempt_id")
        x = [float(answer.fraction) for answer in answers]
        y = [float(answer.attempt.score - answer.fraction) for answer in answers]
        assert item.discrimination == pytest.approx(statistics.correlation(x, y))
        assert item.facility == pytest.approx(statistics.mean(x))


# --- The admin page ----------------------------------------------------------------------------


def _url(quiz) -> str:
    return f"/en/admin/quizzes/quiz/{quiz.pk}/item-analysis/"


def test_instructor_sees_the_analysis_with_the_weak_question_flagged(
    instructor_client, analysed_quiz
):
    response = instructor_client.get(_url(analysed_quiz))

    page = response.content.decode()
    assert response.status_code == 200
    assert "5 attempts analysed." in page
    assert "1 question discriminates poorly (below 0.3)." in page
    assert page.count("icon-alert.svg") == 1
    assert "0.65" in page and "0.33" in page
    # Each choice's share is a bar beside its number, with its title as a text alternative.
    assert re.search(
        r'<svg viewBox="0 0 100 10" class="share-bar" role="img" '
        r'aria-label="Picked in 40% of the answers">\s*<title>Picked in 40% of the answers</title>'
        r'.*?<rect x="0" y="0" width="40" height="10" class="chart-bar"/>.*?</svg>\s*'
        r'<bdi dir="ltr">40%</bdi>',
        page,
        re.S,
    )


def test_facility_and_discrimination_are_bars_with_the_threshold_marked(
    instructor_client, analysed_quiz
):
    page = instructor_client.get(_url(analysed_quiz)).content.decode()

    assert "Facility 60%; the line marks 0.3" in page
    assert "Discrimination 0.65; the line marks 0.3" in page
    assert page.count('<line x1="30" x2="30" y1="0" y2="10" class="chart-threshold"/>') == 6
    # A bar grows from the start of the line: the right, in Arabic.
    arabic = instructor_client.get(_url(analysed_quiz).replace("/en/", "/ar/")).content.decode()
    assert 'transform="matrix(-1 0 0 1 100 0)"' in arabic
    assert "matrix(-1" not in page


def test_analysis_of_all_attempts_on_request(instructor_client, analysed_quiz):
    response = instructor_client.get(_url(analysed_quiz), {"attempts": "all"})

    assert "6 attempts analysed." in response.content.decode()


def test_quiz_page_links_to_its_item_analysis(instructor_client, analysed_quiz):
    response = instructor_client.get(f"/en/admin/quizzes/quiz/{analysed_quiz.pk}/change/")

    assert _url(analysed_quiz).encode() in response.content


def test_item_analysis_is_refused_without_the_right_permissions(
    learner_client, bare_staff, analysed_quiz
):
    assert "/admin/login/" in learner_client.get(_url(analysed_quiz))["Location"]
    client = Client()
    client.force_login(bare_staff)
    assert client.get(_url(analysed_quiz)).status_code == 403
    # Viewing quizzes is not enough: the analysis shows what learners answered.
    bare_staff.user_permissions.add(Permission.objects.get(codename="view_quiz"))
    assert client.get(_url(analysed_quiz)).status_code == 403


def test_item_analysis_of_an_unknown_quiz_is_not_found(instructor_client, db):
    assert instructor_client.get("/en/admin/quizzes/quiz/999999/item-analysis/").status_code == 404


def test_prompts_and_choices_are_rendered_as_learners_read_them_not_as_markdown(
    instructor_client, analysed_quiz
):
    from quizzes.models import Choice, Question

    question = analysed_quiz.questions.get(position=1)
    Question.objects.filter(pk=question.pk).update(
        prompt_en="What does **this** print?\n\n```python\nprint(2 + 3)\n```\n\n<script>x</script>",
        prompt_ar="ماذا **يطبع** هذا؟",
    )
    Choice.objects.filter(pk=question.choices.get(position=1).pk).update(
        text_en="`8`, since $2^3$", text_ar="`8`"
    )

    page = instructor_client.get(_url(analysed_quiz)).content.decode()

    assert "What does <strong>this</strong> print?" in page
    assert '<pre class="code" dir="ltr"' in page and "**this**" not in page
    assert "<script>x" not in page and "&lt;script&gt;x" in page  # shown as text, as to learners
    assert '<code dir="ltr">8</code>, since <span class="math" dir="ltr"><math' in page
    # The number links to the question, named for what it does (a link may not hold code).
    edit = f'/en/admin/quizzes/question/{question.pk}/change/" aria-label="Edit question 1">1</a>'
    assert edit in page
    arabic = instructor_client.get(_url(analysed_quiz).replace("/en/", "/ar/")).content.decode()
    assert "ماذا <strong>يطبع</strong> هذا؟" in arabic


def test_the_analysis_draws_its_prompts_math_with_the_math_font(instructor_client, analysed_quiz):
    """Prompts are shown as learners read them, math included: without the math stylesheet's
    font Chromium draws «O(√N)» as «O(N)» (no OpenType MATH table, no radical)."""
    question = analysed_quiz.questions.order_by("position").first()
    question.prompt_ar = "كم تبلغ الذاكرة $O(\\sqrt{N})$؟"
    question.save()
    page = instructor_client.get(_url(analysed_quiz).replace("/en/", "/ar/")).content.decode()
    assert "<msqrt>" in page and "css/math.css" in page
