import re

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.models import Attempt
from tests.factories import correct_choice, make_quiz, wrong_choice
from tests.steps import bystander_on, post_answer

pytestmark = pytest.mark.django_db


def finish(user, quiz, right: int) -> Attempt:
    """Finish an attempt with the first `right` questions answered correctly."""
    attempt = attempt_start(user=user, quiz=quiz)
    for number, question in enumerate(quiz.questions.order_by("position"), 1):
        choice = correct_choice(question) if number <= right else wrong_choice(question)
        post_answer(attempt, question, choice=choice)
    attempt.refresh_from_db()
    return attempt


def test_history_lists_every_attempt_newest_first_with_best_and_latest(learner_client, learner):
    quiz = make_quiz(questions=4, title_en="Pipelines")
    theirs = Attempt.objects.get(user=bystander_on(quiz))  # 0 / 4, the oldest
    first = finish(learner, quiz, right=3)
    second = finish(learner, quiz, right=1)
    Attempt.objects.filter(pk=first.pk).update(started_at=timezone.now() - timezone.timedelta(1))
    in_progress = attempt_start(user=learner, quiz=quiz)

    page = learner_client.get("/en/attempts/").content.decode()

    rows = page.split("All attempts")[1]
    positions = [rows.index(f"/en/attempts/{a.pk}/") for a in (in_progress, second, first)]
    assert positions == sorted(positions)
    assert "In progress" in rows and "Finished" in rows
    by_quiz = page.split("By quiz")[1].split("All attempts")[0]
    assert "3 / 4" in by_quiz and "1 / 4" in by_quiz  # best, latest
    assert page.count('class="score-bars__item"') == 2  # two attempts: bars, not a line
    assert len(re.findall(r'href="/en/attempts/\d+/', page)) == 3
    assert f"/en/attempts/{theirs.pk}/" not in page
    assert "0 / 4" not in page


def _chart(page: str) -> str:
    return page.split('<figure class="chart', 1)[1].split("</figure>", 1)[0]


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize("count", [1, 2])
def test_fewer_than_three_attempts_show_as_bars_with_their_scores_not_a_line(
    learner_client, learner, lang, count
):
    quiz = make_quiz(questions=4, title_en="Pipelines", title_ar="الأنابيب")
    attempts = [finish(learner, quiz, right=right) for right in (1, 3)[:count]]

    chart = _chart(learner_client.get(f"/{lang}/attempts/").content.decode())

    assert "chart__line" not in chart and "chart__dot" not in chart
    assert chart.count('class="score-bars__item"') == count
    fills = [f'<rect class="score-bars__fill" width="{a.percent}"' for a in attempts]
    assert [chart.index(fill) for fill in fills] == sorted(chart.index(fill) for fill in fills)
    score = "{} / 4" if lang == "en" else "{} من 4"
    for attempt in attempts:
        assert score.format(int(attempt.score)) in chart
    assert ("Pipelines" if lang == "en" else "الأنابيب") in chart


def test_three_attempts_draw_the_line_chart(learner_client, learner):
    quiz = make_quiz(questions=4)
    for right in (1, 2, 4):
        finish(learner, quiz, right=right)

    chart = _chart(learner_client.get("/en/attempts/").content.decode())

    assert chart.count('class="chart__dot"') == 3 and 'class="chart__line"' in chart
    assert "score-bars" not in chart


def test_a_learner_sees_only_their_own_attempts(learner_client, learner, other_learner):
    mine = finish(learner, make_quiz(questions=1, title_en="Mine"), right=1)
    theirs = finish(other_learner, make_quiz(questions=1, title_en="Theirs"), right=0)
    page = learner_client.get("/en/attempts/").content.decode()
    assert f"/en/attempts/{mine.pk}/result/" in page
    assert f"/en/attempts/{theirs.pk}/" not in page and "Theirs" not in page


def test_an_empty_history_invites_the_learner_to_a_quiz(learner_client):
    page = learner_client.get("/en/attempts/").content.decode()
    assert "No attempts yet" in page and 'href="/en/"' in page


def test_history_is_paginated(learner):
    quiz = make_quiz(questions=1)
    for _ in range(25):
        finish(learner, quiz, right=1)
    client = Client()
    client.force_login(learner)
    first = client.get("/en/attempts/").content.decode()
    second = client.get("/en/attempts/?page=2").content.decode()
    assert "Page 1 of 2" in first and 'rel="next"' in first
    assert "Page 2 of 2" in second
    assert first.count("/result/") == 20 and second.count("/result/") == 5


def test_history_needs_an_account(client):
    response = client.get("/en/attempts/")
    assert response.status_code == 302 and "/en/accounts/login/" in response["Location"]


def test_the_line_chart_labels_its_dates_and_runs_from_the_right_in_arabic(learner_client, learner):
    from quizzes.history import score_chart

    quiz = make_quiz(questions=4)
    for right in (1, 2, 4):
        finish(learner, quiz, right=right)

    english = _chart(learner_client.get("/en/attempts/").content.decode())
    arabic = _chart(learner_client.get("/ar/attempts/").content.decode())
    left_to_right = score_chart(learner)
    right_to_left = score_chart(learner, right_to_left=True)

    # The time axis: the first and the last attempt's dates, and what the axes mean.
    assert english.count('class="chart__date"') == 2
    assert "Across: the day each attempt was finished. Up: its score." in english
    assert arabic.count('class="chart__date"') == 2
    # Oldest first: from the left in English, from the right in Arabic.
    xs = [point.x for point in left_to_right.points]
    assert xs == sorted(xs)
    mirrored = [point.x for point in right_to_left.points]
    assert (
        mirrored == sorted(mirrored, reverse=True) and mirrored[0] > xs[-1] - right_to_left.labels
    )
    assert left_to_right.width - max(xs) < left_to_right.labels  # the card's width used


def test_a_finished_attempts_link_is_its_answers_not_review(learner_client, learner):
    attempt = finish(learner, make_quiz(questions=2), right=1)

    page = learner_client.get("/en/attempts/").content.decode()

    assert f'<a href="/en/attempts/{attempt.pk}/result/">Answers</a>' in page


def _rows_read(client, path: str) -> int:
    """Rows the database sent for one request (every statement's), counted on the cursor."""
    from django.db import connection

    rows = 0

    def count(execute, sql, params, many, context):
        nonlocal rows
        result = execute(sql, params, many, context)
        rows += max(context["cursor"].rowcount, 0)
        return result

    with connection.execute_wrapper(count):
        assert client.get(path).status_code == 200
    return rows


def test_the_by_quiz_summary_has_the_best_latest_and_count_of_many_attempts(learner):
    quiz = make_quiz(questions=3, title_en="Sharding")
    bystander_on(quiz)  # 0 / 3, once: neither counted nor the latest
    scores = [1, 3, 2, 0, 2]
    for right in scores:
        finish(learner, quiz, right=right)
    client = Client()
    client.force_login(learner)
    page = client.get("/en/attempts/").content.decode()
    by_quiz = page.split("By quiz")[1].split("All attempts")[0]
    assert "3 / 3" in by_quiz  # the best
    assert "2 / 3" in by_quiz  # the latest
    assert ">5<" in by_quiz  # attempts


def _history_read_at(learner, sizes: tuple[int, ...]) -> list[tuple[int, int]]:
    """(statements, rows read) of the history page after each number of attempts in
    `sizes`, on two quizzes of two questions."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    quizzes = [make_quiz(questions=2) for _ in range(2)]
    client = Client()
    client.force_login(learner)
    reads, done = [], 0
    for size in sizes:
        while done < size:
            finish(learner, quizzes[done % 2], right=2)
            done += 1
        client.get("/en/attempts/")  # warm: the content's cache
        with CaptureQueriesContext(connection) as statements:
            client.get("/en/attempts/")
        reads.append((len(statements.captured_queries), _rows_read(client, "/en/attempts/")))
    return reads


def test_the_history_makes_as_many_statements_for_80_attempts_as_for_2(learner):
    """The summaries are ranked and counted in the database, the list is paged."""
    (few, _), (many, _), (more, _) = _history_read_at(learner, (2, 40, 80))
    assert few == many == more


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="rows a SELECT sent: PostgreSQL's cursor counts them (.ci/run runs it)",
)
def test_the_history_reads_what_its_page_shows_not_every_attempt(learner):
    """Rows read stop growing once the page's 20 rows and the chart's 30 points are full."""
    from quizzes.history import CHART_ATTEMPTS

    (_, few), (_, many), (_, more) = _history_read_at(learner, (2, 40, 80))
    # 2 attempts -> 40: the page's rows and the chart's points fill up, nothing else grows.
    assert many - few == (20 - 2) + (CHART_ATTEMPTS - 2)
    assert more == many
