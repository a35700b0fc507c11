"""The grades report: a row per attempt, a column per question, filters, CSV, permissions."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.http import StreamingHttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.instructors.grades import ReportFilters, grades_report
from quizzes.models import Answer, Attempt, Choice, Question
from tests import factories

from .conftest import record_attempt

pytestmark = pytest.mark.django_db


def _url(quiz, suffix: str = "results/", lang: str = "en") -> str:
    return f"/{lang}/admin/quizzes/quiz/{quiz.pk}/{suffix}"


@pytest.fixture
def graded(quiz, learner, other_learner):
    """Two learners' attempts at three questions (choice 1 right); picks → score:

    Amina  a1 120 min ago  1 2 2  → 1/3
           a2  60 min ago  1 1 1  → 3/3   (her best)
           a3  10 min ago  1 1 2  → 2/3   (her last)
    Bilal   b1  90 min ago  2 2 2  → 0/3
           b2   5 min ago  1      → in progress (his last)
    """
    return {
        "a1": record_attempt(learner, quiz, [1, 2, 2], minutes_ago=120),
        "a2": record_attempt(learner, quiz, [1, 1, 1], minutes_ago=60),
        "a3": record_attempt(learner, quiz, [1, 1, 2], minutes_ago=10),
        "b1": record_attempt(other_learner, quiz, [2, 2, 2], minutes_ago=90),
        "b2": record_attempt(other_learner, quiz, [1], minutes_ago=5, finished=False),
    }


def _grid(quiz, **filters) -> dict[int, list[int | None]]:
    report = grades_report(quiz, ReportFilters(**filters))
    return {
        row.attempt.pk: [None if mark is None else mark.value for mark in row.marks]
        for row in report.rows
    }


def _names(graded, grid) -> list[str]:
    by_pk = {attempt.pk: name for name, attempt in graded.items()}
    return [by_pk[pk] for pk in grid]


def test_every_attempt_has_its_marks_per_question(quiz, graded):
    grid = _grid(quiz)

    assert grid == {
        graded["b2"].pk: [1, None, None],
        graded["a3"].pk: [1, 1, 0],
        graded["a2"].pk: [1, 1, 1],
        graded["b1"].pk: [0, 0, 0],
        graded["a1"].pk: [1, 0, 0],
    }


def test_first_attempt_of_each_learner(quiz, graded):
    assert _names(graded, _grid(quiz, which="first")) == ["b1", "a1"]


def test_best_attempt_ranks_a_finished_attempt_above_one_in_progress(quiz, graded):
    assert _names(graded, _grid(quiz, which="best")) == ["a2", "b1"]


def test_last_attempt_of_each_learner_in_any_state_or_finished(quiz, graded):
    assert _names(graded, _grid(quiz, which="last")) == ["b2", "a3"]
    assert _names(graded, _grid(quiz, which="last", state="finished")) == ["a3", "b1"]


def test_state_filters(quiz, graded):
    assert _names(graded, _grid(quiz, state="in_progress")) == ["b2"]
    assert "b2" not in _names(graded, _grid(quiz, state="finished"))


def test_sorted_by_score_or_date_either_way(quiz, graded):
    assert _names(graded, _grid(quiz, order="-score")) == ["a2", "a3", "a1", "b1", "b2"]
    # Attempts in progress have no score: last either way.
    assert _names(graded, _grid(quiz, order="score")) == ["b1", "a1", "a3", "a2", "b2"]
    assert _names(graded, _grid(quiz, order="started")) == ["a1", "b1", "a2", "a3", "b2"]


def test_foot_counts_and_averages_each_question_over_the_chosen_attempts(quiz, graded):
    report = grades_report(quiz, ReportFilters())
    assert [foot.answers for foot in report.foot] == [5, 4, 4]
    # Q1: 4 of 5 right; Q2: 2 of 4; Q3: 1 of 4.
    assert [foot.average_percent for foot in report.foot] == [80, 50, 25]

    first = grades_report(quiz, ReportFilters(which="first"))
    assert [foot.average_percent for foot in first.foot] == [50, 0, 0]


def test_histogram_counts_finished_attempts_by_score_band(quiz, graded):
    chart = grades_report(quiz, ReportFilters()).histogram

    counts = {bar.low: bar.count for bar in chart.bars}
    # 0 %, 33 %, 66 %, 100 % (the top band includes 100).
    assert counts == {0: 1, 10: 0, 20: 0, 30: 1, 40: 0, 50: 0, 60: 1, 70: 0, 80: 0, 90: 1}
    assert chart.total == 4
    assert chart.average_percent == 50


def test_histogram_runs_from_the_right_in_arabic(quiz, graded):
    ltr = grades_report(quiz, ReportFilters()).histogram
    rtl = grades_report(quiz, ReportFilters(), rtl=True).histogram

    assert ltr.bars[0].x < ltr.bars[-1].x
    assert rtl.bars[0].x > rtl.bars[-1].x
    assert rtl.bars[0].x == pytest.approx(ltr.bars[-1].x)


def test_report_page_shows_the_marks_with_words_not_only_symbols(instructor_client, graded):
    quiz = graded["a1"].quiz
    response = instructor_client.get(_url(quiz), {"attempts": "first"})

    page = response.content.decode()
    assert response.status_code == 200
    rows = re.findall(r"<tr>\s*<th scope=\"row\">.*?</tr>", page, re.S)
    assert len(rows) == 2
    amina = next(row for row in rows if "Amina" in row)
    marks = re.findall(r'class="visually-hidden">(Right|Wrong|Not answered)<', amina)
    assert marks == ["Right", "Wrong", "Wrong"]
    assert "✓" in amina and "✗" in amina
    assert f"/en/admin/quizzes/quiz/{quiz.pk}/results/{graded['a1'].pk}/" in amina
    assert f"/en/admin/quizzes/quiz/learners/{graded['a1'].user_id}/" in amina


def test_report_histogram_has_a_title_a_text_alternative_and_visible_numbers(
    instructor_client, graded
):
    page = instructor_client.get(_url(graded["a1"].quiz)).content.decode()

    svg = re.search(
        r"<svg[^>]*aria-labelledby=\"histogram-title histogram-desc\".*?</svg>", page, re.S
    )
    assert svg is not None
    assert 'role="img"' in svg[0]
    assert '<title id="histogram-title">Score distribution' in svg[0]
    desc = re.search(r'<desc id="histogram-desc">(.*?)</desc>', svg[0], re.S)[1]
    assert "0–10%: 1 attempt." in desc and "30–40%: 1 attempt." in desc
    assert "10–20%: 0 attempts." in desc
    assert re.search(r'class="chart-count">1</text>', svg[0])
    assert "Mean score: 50%." in page


def test_report_in_arabic(instructor_client, graded):
    response = instructor_client.get(_url(graded["a1"].quiz, lang="ar"))

    page = response.content.decode()
    assert response.status_code == 200
    assert 'dir="rtl"' in page
    assert "Score distribution" not in page


def test_report_pages_through_many_attempts(instructor_client, quiz, learner):
    now = timezone.now()
    Attempt.objects.bulk_create(
        Attempt(
            user=learner,
            quiz=quiz,
            started_at=now - timedelta(minutes=n + 1),
            finished_at=now - timedelta(minutes=n),
            total=3,
        )
        for n in range(60)
    )
    first = instructor_client.get(_url(quiz), {"state": "finished"}).content.decode()
    second = instructor_client.get(_url(quiz), {"state": "finished", "p": "2"}).content.decode()

    assert "Page 1 of 2" in first and "Page 2 of 2" in second
    assert first.count('<th scope="row"><a href="/en/admin/quizzes/quiz/learners/') == 50
    assert second.count('<th scope="row"><a href="/en/admin/quizzes/quiz/learners/') == 10
    assert "state=finished" in re.search(r'<a href="([^"]*)" rel="next"', first)[1]


def test_unknown_filters_fall_back_to_the_defaults(instructor_client, graded):
    response = instructor_client.get(
        _url(graded["a1"].quiz), {"attempts": "worst", "state": "<x>", "o": "pk", "p": "zz"}
    )

    assert response.status_code == 200
    assert (
        response.content.decode().count('<th scope="row"><a href="/en/admin/quizzes/quiz/learners/')
        == 5
    )


# --- CSV -----------------------------------------------------------------------------------


def _csv(response) -> list[list[str]]:
    assert isinstance(response, StreamingHttpResponse)
    body = b"".join(response.streaming_content).decode("utf-8")
    assert body.startswith("\ufeff")
    return list(csv.reader(io.StringIO(body.removeprefix("\ufeff"))))


def test_csv_has_a_column_per_question_for_the_chosen_attempts(instructor_client, graded):
    quiz = graded["a1"].quiz
    response = instructor_client.get(_url(quiz, "results.csv"), {"attempts": "best", "o": "-score"})

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="grades-{quiz.slug}-best.csv"'
    header, *rows = _csv(response)
    assert header[-3:] == ["Q1", "Q2", "Q3"]
    assert [(row[1], row[2], row[6], row[7], row[8:]) for row in rows] == [
        ("Amina", "finished", "3", "3", ["1", "1", "1"]),
        ("Bilal", "finished", "0", "3", ["0", "0", "0"]),
    ]
    assert rows[0][0] == str(graded["a2"].pk)
    assert rows[0][5] == "300"  # Five minutes.


def test_csv_leaves_unanswered_questions_and_in_progress_scores_empty(instructor_client, graded):
    response = instructor_client.get(
        _url(graded["a1"].quiz, "results.csv"), {"state": "in_progress"}
    )

    _header, row = _csv(response)
    assert row[2] == "in_progress"
    assert row[4:8] == ["", "", "", ""]
    assert row[8:] == ["1", "", ""]


def test_csv_defuses_a_username_a_spreadsheet_would_run(instructor_client, quiz):
    record_attempt(factories.make_user("=HYPERLINK(1)"), quiz, [1, 1, 1])

    _header, row = _csv(instructor_client.get(_url(quiz, "results.csv")))

    assert row[1] == "'=HYPERLINK(1)"


def test_csv_reads_attempts_in_chunks_with_their_answers(quiz, learner, monkeypatch):
    from quizzes.instructors import grades

    monkeypatch.setattr(grades, "CSV_CHUNK", 2)
    for minutes in (50, 40, 30, 20, 10):
        record_attempt(learner, quiz, [1, 2, 1], minutes_ago=minutes)

    rows = list(grades.grades_csv_rows(quiz, ReportFilters(order="started")))

    assert len(rows) == 6
    assert all(row[8:] == [1, 0, 1] for row in rows[1:])


# --- The query bound -----------------------------------------------------------------------


def _fill(quiz, learners: int, attempts_each: int) -> None:
    """Finished attempts of `learners` learners, each question answered (right or wrong)."""
    User = get_user_model()
    users = User.objects.bulk_create(
        User(username=f"{quiz.slug}-{n}", password="!") for n in range(learners)
    )
    now = timezone.now()
    total = quiz.questions.count()
    Attempt.objects.bulk_create(
        Attempt(
            user=user,
            quiz=quiz,
            started_at=now - timedelta(hours=n + 1),
            finished_at=now - timedelta(hours=n),
            score=n % (total + 1),
            total=total,
        )
        for user in users
        for n in range(attempts_each)
    )
    # Tens of thousands of answers in one statement: as model instances they took most of
    # the test's time. Choice 1 is right; attempts pick 1 or 2 by their id and the position.
    table = {model: model._meta.db_table for model in (Answer, Attempt, Question, Choice)}
    json = "jsonb" if connection.vendor == "postgresql" else "text"
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table[Answer]}
                (attempt_id, question_id, choice_id, correct_choice_id, is_correct, answered_at,
                 choice_ids, key, fraction, text, arrangement)
            SELECT a.id, q.id, picked.id, rightful.id, picked.is_correct, a.started_at,
                   CAST('[]' AS {json}), CAST('{{}}' AS {json}), picked.fraction, '',
                   CAST('[]' AS {json})
            FROM {table[Attempt]} a
            JOIN {table[Question]} q ON q.quiz_id = a.quiz_id
            JOIN {table[Choice]} rightful ON rightful.question_id = q.id AND rightful.position = 1
            JOIN {table[Choice]} picked
                ON picked.question_id = q.id AND picked.position = 1 + (a.id + q.position) %% 2
            WHERE a.quiz_id = %s
            """,
            [quiz.pk],
        )


def _statements(client: Client, url: str, query: dict) -> int:
    with CaptureQueriesContext(connection) as context:
        response = client.get(url, query)
        assert response.status_code == 200
    return sum(
        1 for q in context.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    )


def test_report_page_costs_the_same_queries_for_3_attempts_and_for_10000(
    instructor_client, django_assert_max_num_queries
):
    small = factories.make_quiz(questions=2)
    _fill(small, learners=3, attempts_each=1)
    large = factories.make_quiz(questions=8)
    _fill(large, learners=1000, attempts_each=10)
    assert Answer.objects.filter(attempt__quiz=large).count() == 80_000

    for query in ({}, {"attempts": "best", "o": "-score", "p": "3"}):
        small_count = _statements(instructor_client, _url(small), query)
        large_count = _statements(instructor_client, _url(large), query)
        assert large_count == small_count, query
        with django_assert_max_num_queries(12):
            instructor_client.get(_url(large), query)


# --- Permissions ---------------------------------------------------------------------------


def _tool_urls(quiz, attempt) -> list[str]:
    return [
        _url(quiz),
        _url(quiz, "results.csv"),
        _url(quiz, f"results/{attempt.pk}/"),
        f"/en/admin/quizzes/quiz/learners/{attempt.user_id}/",
    ]


def test_learners_are_sent_to_the_admin_sign_in(learner_client, graded):
    for url in _tool_urls(graded["a1"].quiz, graded["a1"]):
        response = learner_client.get(url)
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]


def test_staff_without_the_permissions_are_refused_even_for_unknown_ids(
    bare_staff_client, bare_staff, graded
):
    quiz, attempt = graded["a1"].quiz, graded["a1"]
    unknown = [
        "/en/admin/quizzes/quiz/999999/results/",
        "/en/admin/quizzes/quiz/999999/results.csv",
    ]
    for url in [*_tool_urls(quiz, attempt), *unknown]:
        assert bare_staff_client.get(url).status_code == 403, url
    # Viewing quizzes and attempts is not enough: the marks come from the answers.
    bare_staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_quiz", "view_attempt"])
    )
    for url in _tool_urls(quiz, attempt):
        assert bare_staff_client.get(url).status_code == 403, url


def test_unknown_quiz_attempt_or_learner_is_not_found(instructor_client, graded, quiz):
    other_quiz = factories.make_quiz(questions=1)
    assert instructor_client.get("/en/admin/quizzes/quiz/999999/results/").status_code == 404
    # An attempt is reviewed under its own quiz only.
    assert instructor_client.get(_url(other_quiz, f"results/{graded['a1'].pk}/")).status_code == 404
    assert instructor_client.get("/en/admin/quizzes/quiz/learners/999999/").status_code == 404


def test_the_report_pages_accept_no_post(instructor_client, graded):
    for url in _tool_urls(graded["a1"].quiz, graded["a1"]):
        assert instructor_client.post(url).status_code == 405


def test_reviewing_changes_nothing_even_an_attempt_left_complete(instructor_client, quiz, learner):
    # Every question answered but not finished (its last answer came as the quiz changed):
    # the learner's own page would finish it; an instructor's look must not.
    attempt = record_attempt(learner, quiz, [1, 1, 1], finished=False)

    response = instructor_client.get(_url(quiz, f"results/{attempt.pk}/"))

    assert response.status_code == 200
    attempt.refresh_from_db()
    assert attempt.finished_at is None


# --- Links, review and the learner's record ------------------------------------------------


def test_quiz_page_and_list_link_to_the_report(instructor_client, graded):
    quiz = graded["a1"].quiz
    change = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    listing = instructor_client.get("/en/admin/quizzes/quiz/").content.decode()

    assert f'href="{_url(quiz)}"' in change
    assert f'href="{_url(quiz)}"' in listing


def test_the_list_has_no_report_column_for_staff_who_may_not_see_attempts(bare_staff, quiz):
    bare_staff.user_permissions.add(Permission.objects.get(codename="view_quiz"))
    client = Client()
    client.force_login(bare_staff)

    listing = client.get("/en/admin/quizzes/quiz/").content.decode()

    assert _url(quiz) not in listing


def test_review_shows_the_attempt_as_its_learner_saw_it(instructor_client, graded):
    attempt = graded["a1"]
    response = instructor_client.get(_url(attempt.quiz, f"results/{attempt.pk}/"))

    page = response.content.decode()
    assert response.status_code == 200
    assert page.count("review__item--right") == 1
    assert page.count("review__item--wrong") == 2
    assert "Choice 2.2" in page and "Choice 2.1" in page  # Picked, and the right one.
    assert "Because of reason 3." in page
    assert "1 / 3" in page
    assert 'id="content-main"' in page  # Inside the admin's frame.


def test_learner_record_lists_every_quiz_with_review_links(instructor_client, graded, learner):
    other_quiz = factories.make_quiz(questions=2)
    elsewhere = record_attempt(learner, other_quiz, [1, 2])

    response = instructor_client.get(f"/en/admin/quizzes/quiz/learners/{learner.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "4 attempts" in page
    assert str(other_quiz) in page and str(graded["a1"].quiz) in page
    assert f"/en/admin/quizzes/quiz/{other_quiz.pk}/results/{elsewhere.pk}/" in page
    for name in ("a1", "a2", "a3"):
        assert f"/results/{graded[name].pk}/" in page
    assert "Bilal" not in page
