"""The regrade in the admin (issue 55): the buttons, the preview page, its confirmation (the
worker applies it, with its progress), "Accept" from the item analysis, the trail,
permissions, the learner's result and history, and the mail."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from django.utils.formats import date_format

from quizzes.content import content_changed
from quizzes.models import AcceptedText, Answer, Attempt, NumericalAnswer, Regrade, RegradedAttempt
from tests import factories

from .conftest import record_attempt

pytestmark = pytest.mark.django_db


def fix_key(question, right: int = 2) -> None:
    for choice in question.choices.all():
        choice.is_correct = choice.position == right
        choice.fraction = Decimal(int(choice.position == right))
        choice.save()
    content_changed(quiz=question.quiz)


def regrade_url(quiz, question=None) -> str:
    url = f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/"
    return f"{url}?question={question.pk}" if question else url


@pytest.fixture
def regraded_quiz(learner, other_learner):
    """A quiz of 2 questions whose first question's key was wrong (choice 1, not 2): Amina
    picked 2 (marked wrong), Bilal 1 (marked right)."""
    quiz = factories.make_quiz(questions=2)
    amina = record_attempt(learner, quiz, [2, 1])
    bilal = record_attempt(other_learner, quiz, [1, 1])
    fix_key(quiz.questions.get(position=1))
    return quiz, amina, bilal


def test_the_quiz_and_question_pages_offer_regrade_answers(instructor_client, regraded_quiz):
    quiz, _amina, _bilal = regraded_quiz
    question = quiz.questions.get(position=1)

    quiz_page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    question_page = instructor_client.get(f"/en/admin/quizzes/question/{question.pk}/change/")

    assert f'href="{regrade_url(quiz)}"' in quiz_page.content.decode()
    assert f'href="{regrade_url(quiz, question)}"' in question_page.content.decode()


def test_the_preview_lists_each_change_and_changes_nothing(instructor_client, regraded_quiz):
    quiz, amina, bilal = regraded_quiz
    before = list(Answer.objects.order_by("pk").values())

    page = instructor_client.get(regrade_url(quiz))

    assert page.status_code == 200
    html = page.content.decode()
    assert "2 answers change" in html and "2 attempts’ scores change" in html
    assert "Amina" in html and "Bilal" in html
    assert "1 → 2" in html and "2 → 1" in html
    assert list(Answer.objects.order_by("pk").values()) == before
    assert not Regrade.objects.exists()


def test_confirming_applies_the_preview_through_the_worker_and_shows_its_progress(
    instructor_client, instructor, regraded_quiz, django_capture_on_commit_callbacks, mailoutbox
):
    quiz, amina, bilal = regraded_quiz
    digest = instructor_client.get(regrade_url(quiz)).context["preview"].digest

    with django_capture_on_commit_callbacks(execute=True):
        confirmed = instructor_client.post(regrade_url(quiz), {"digest": digest})

    regrade = Regrade.objects.get()
    assert confirmed.status_code == 302
    assert confirmed["Location"] == f"/en/admin/quizzes/quiz/regrades/{regrade.pk}/"
    assert (regrade.status, regrade.by, regrade.done_answers, regrade.planned_answers) == (
        "done",
        instructor,
        2,
        2,
    )
    amina.refresh_from_db()
    bilal.refresh_from_db()
    assert (amina.score, bilal.score) == (2, 1)
    progress = instructor_client.get(confirmed["Location"])
    assert "2 of 2 answers" in progress.content.decode()
    assert 'http-equiv="refresh"' not in progress.content.decode()


def test_a_confirmation_of_a_preview_that_changed_since_applies_nothing(
    instructor_client, regraded_quiz
):
    quiz, amina, _bilal = regraded_quiz
    digest = instructor_client.get(regrade_url(quiz)).context["preview"].digest
    fix_key(quiz.questions.get(position=2))  # another fix since: the preview changed

    refused = instructor_client.post(regrade_url(quiz), {"digest": digest})

    assert refused.status_code == 409
    assert not Regrade.objects.exists()
    amina.refresh_from_db()
    assert amina.score == 1


def test_one_questions_regrade_leaves_the_others(instructor_client, regraded_quiz):
    quiz, amina, _bilal = regraded_quiz
    second = quiz.questions.get(position=2)
    fix_key(second)  # Amina and Bilal picked 1 on question 2: both lose it, if regraded

    page = instructor_client.get(regrade_url(quiz, quiz.questions.get(position=1)))

    assert page.context["preview"].answer_count == 2
    assert {c.question_id for c in page.context["preview"].changes} == {
        quiz.questions.get(position=1).pk
    }


def test_the_learner_sees_regraded_on_date_on_the_result_and_history(
    regraded_quiz, learner, learner_client
):
    quiz, amina, _bilal = regraded_quiz
    from quizzes.attempts.regrade import regrade_apply, regrade_preview

    regrade_apply(preview=regrade_preview(quiz=quiz))
    row = RegradedAttempt.objects.get(attempt=amina)
    date = date_format(timezone.localtime(row.at), "DATE_FORMAT")

    result = learner_client.get(f"/en/attempts/{amina.pk}/result/").content.decode()
    history = learner_client.get("/en/attempts/").content.decode()
    arabic = learner_client.get(f"/ar/attempts/{amina.pk}/result/").content.decode()

    assert f"Regraded on {date}: 1 → 2" in result
    assert f"Regraded on {date}: 1 → 2" in history
    assert "أُعيد تصحيحها في" in arabic and "1 ← 2" in arabic


def test_the_learner_whose_score_changed_gets_one_mail_unless_they_turned_it_off(
    django_capture_on_commit_callbacks, mailoutbox, settings
):
    settings.SITE_ORIGIN = "https://daleel.example"
    quiz = factories.make_quiz(questions=2)
    amina = factories.make_user("amina2", email="amina@example.org")
    bilal = factories.make_user("bilal2", email="bilal@example.org")
    nadia = factories.make_user("nadia2", email="nadia@example.org")
    nadia.profile.regrade_mail = False
    nadia.profile.save()
    record_attempt(amina, quiz, [2, 2])  # both questions regraded: one mail all the same
    record_attempt(amina, quiz, [2, 3], minutes_ago=30)
    record_attempt(bilal, quiz, [3, 3])  # unchanged: no mail
    record_attempt(nadia, quiz, [2, 1])  # changed, but she said no
    for question in quiz.questions.all():
        fix_key(question)
    from quizzes.attempts.regrade import regrade_preview
    from quizzes.regrading import regrade_queue

    with django_capture_on_commit_callbacks(execute=True):
        regrade_queue(preview=regrade_preview(quiz=quiz), by=None)

    (mail,) = mailoutbox
    assert mail.to == ["amina@example.org"]
    assert quiz.title_en in mail.subject
    assert "0 → 2 out of 2" in mail.body and "0 → 1 out of 2" in mail.body
    assert "https://daleel.example/en/attempts/" in mail.body


# --- Accept this answer ----------------------------------------------------------------------


def test_accepting_a_common_wrong_short_answer_adds_it_and_opens_the_regrade_preview(
    instructor_client, learner
):
    quiz = factories.make_quiz(questions=0)
    question = factories.add_short_question(quiz, 1)
    content_changed(quiz=quiz)
    attempt = Attempt.objects.create(user=learner, quiz=quiz)
    from quizzes.attempts.services import attempt_start  # noqa: F401
    from quizzes.grading import Response
    from tests.steps import post_answer

    post_answer(attempt, question, response=Response(text="Optimiser states"))
    analysis = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/item-analysis/")
    assert 'value="Optimiser states"' in analysis.content.decode()

    accepted = instructor_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/accept/",
        {"question": question.pk, "text": "Optimiser states", "weight": "1"},
    )

    assert accepted.status_code == 302
    assert accepted["Location"] == regrade_url(quiz, question)
    new = AcceptedText.objects.get(question=question, text_en="Optimiser states")
    assert new.fraction == 1 and not new.exact
    preview = instructor_client.get(accepted["Location"]).context["preview"]
    assert [(c.old_fraction, c.new_fraction) for c in preview.changes] == [(0, 1)]


def test_accepting_a_number_outside_the_tolerance(instructor_client, learner):
    quiz = factories.make_quiz(questions=0)
    question = factories.add_numerical_question(quiz, 1, answers=((16, 0, 1),))
    content_changed(quiz=quiz)
    from quizzes.grading import Response
    from tests.steps import post_answer

    attempt = Attempt.objects.create(user=learner, quiz=quiz)
    post_answer(attempt, question, response=Response(number=Decimal("16.5")))
    analysis = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/item-analysis/")
    assert 'name="number" value="16.5"' in analysis.content.decode()

    instructor_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/accept/",
        {"question": question.pk, "number": "16.5", "weight": "0.5"},
    )

    added = NumericalAnswer.objects.get(question=question, value=Decimal("16.5"))
    assert added.fraction == Decimal("0.5")
    preview = instructor_client.get(regrade_url(quiz, question)).context["preview"]
    assert [(c.old_fraction, c.new_fraction) for c in preview.changes] == [(0, Decimal("0.5"))]


def test_an_answer_that_cannot_be_accepted_is_refused_and_adds_nothing(
    instructor_client, regraded_quiz
):
    quiz, _amina, _bilal = regraded_quiz
    question = quiz.questions.get(position=1)  # one answer: no accepted texts

    refused = instructor_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/accept/",
        {"question": question.pk, "text": "anything", "weight": "1"},
    )
    tampered = instructor_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/accept/",
        {"question": "x", "text": "anything", "weight": "7"},
    )

    assert (refused.status_code, tampered.status_code) == (422, 422)
    assert not AcceptedText.objects.exists()


def test_accepting_an_answer_takes_only_a_post(instructor_client, regraded_quiz):
    quiz, _amina, _bilal = regraded_quiz

    response = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/accept/")

    assert response.status_code == 405 and response["Allow"] == "POST"
    assert not AcceptedText.objects.exists()


# --- Permissions and the trail ----------------------------------------------------------------


def test_staff_without_the_permissions_get_403_and_learn_nothing(
    bare_staff, bare_staff_client, regraded_quiz
):
    quiz, amina, _bilal = regraded_quiz
    # Staff who may view attempts but not change questions: still refused.
    bare_staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_attempt", "view_answer", "view_quiz"])
    )
    urls = [regrade_url(quiz), "/en/admin/quizzes/quiz/999999/regrade/"]
    for url in urls:
        assert bare_staff_client.get(url).status_code == 403
        assert bare_staff_client.post(url, {"digest": "x"}).status_code == 403
    accept = f"/en/admin/quizzes/quiz/{quiz.pk}/regrade/accept/"
    assert bare_staff_client.post(accept, {"question": 1, "text": "a"}).status_code == 403
    page = bare_staff_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    assert "/regrade/" not in page.content.decode()
    amina.refresh_from_db()
    assert amina.score == 1


def test_a_learner_cannot_reach_the_regrade(learner_client, regraded_quiz):
    quiz, _amina, _bilal = regraded_quiz
    response = learner_client.get(regrade_url(quiz))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_trail_is_read_only_in_the_admin_and_on_the_learners_record(
    instructor_client, regraded_quiz, instructor
):
    quiz, amina, _bilal = regraded_quiz
    from quizzes.attempts.regrade import regrade_apply, regrade_preview

    regrade = regrade_apply(preview=regrade_preview(quiz=quiz), by=instructor)

    listing = instructor_client.get("/en/admin/quizzes/regradedanswer/")
    record = instructor_client.get(f"/en/admin/quizzes/regrade/{regrade.pk}/change/")
    learner_record = instructor_client.get(f"/en/admin/quizzes/quiz/learners/{amina.user_id}/")

    assert listing.status_code == 200 and "Amina" in listing.content.decode()
    assert record.status_code == 200 and 'name="_save"' not in record.content.decode()
    assert "Regraded on" in learner_record.content.decode()
    add = instructor_client.get("/en/admin/quizzes/regrade/add/")
    assert add.status_code == 403


# --- At size -------------------------------------------------------------------------------


def test_the_preview_page_costs_the_same_queries_for_a_few_attempts_and_for_many(
    instructor_client, django_assert_max_num_queries
):
    small = factories.make_quiz(questions=2)
    large = factories.make_quiz(questions=10)
    learners = [factories.make_user() for _ in range(60)]
    record_attempt(learners[0], small, [2, 1])
    for user in learners:
        record_attempt(user, large, [2] * 10)
    fix_key(small.questions.get(position=1))
    for question in large.questions.all():
        fix_key(question)

    with django_assert_max_num_queries(14) as small_queries:
        instructor_client.get(regrade_url(small))
    with django_assert_max_num_queries(14) as large_queries:
        page = instructor_client.get(regrade_url(large))

    assert page.context["preview"].answer_count == 600
    assert len(large_queries.captured_queries) == len(small_queries.captured_queries)


def test_the_grades_csv_item_analysis_and_mastery_follow_a_regrade(instructor_client, learner):
    from quizzes.attempts.regrade import regrade_apply, regrade_preview
    from quizzes.mastery import quiz_levels

    quiz = factories.make_quiz(questions=2)
    record_attempt(learner, quiz, [2, 1])
    record_attempt(factories.make_user("chadi"), quiz, [2, 1])
    fix_key(quiz.questions.get(position=1))

    def facility_of_first_question() -> float:
        page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/item-analysis/")
        return page.context["analysis"].items[0].facility

    def amina_score_in_csv() -> str:
        response = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/results.csv")
        lines = b"".join(response.streaming_content).decode().splitlines()
        rows = [line.split(",") for line in lines]
        score = rows[0].index("score")
        return next(row[score] for row in rows[1:] if "Amina" in row)

    def level() -> str:
        return quiz_levels(user_id=learner.pk, question_counts={quiz.pk: 2})[quiz.pk]

    before = level()
    assert facility_of_first_question() == 0
    assert float(amina_score_in_csv()) == 1

    regrade_apply(preview=regrade_preview(quiz=quiz))

    assert facility_of_first_question() == 1
    assert float(amina_score_in_csv()) == 2
    assert (before, level()) == ("attempted", "proficient")  # every question right now
