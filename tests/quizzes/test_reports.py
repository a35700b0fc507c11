"""Report a problem with a question: from the feedback, as a page and as an htmx fragment."""

import pytest
from django.test import Client

from quizzes.attempts.services import attempt_start
from quizzes.grading import Posted
from quizzes.models import QuestionReport
from tests.factories import make_instructor, make_quiz, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(learner, quiz):
    """The learner has answered question 1 of the quiz; its feedback is on show."""
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get(position=1)
    post_answer(attempt, question, choice=wrong_choice(question))
    return attempt, question


def _url(question) -> str:
    return f"/en/questions/{question.pk}/report/"


def test_the_feedback_offers_to_report_a_problem_and_the_form_does_not_give_the_answer(
    learner_client, answered
):
    attempt, question = answered
    step = f"/en/attempts/{attempt.pk}/questions/1/"
    feedback = learner_client.get(step).content.decode()
    assert f'href="{_url(question)}?next=' in feedback
    assert "Report a problem with this question" in feedback

    page = learner_client.get(f"{_url(question)}?next={step}")
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert "Question 1 prompt?" in html and "The answer marked right is wrong" in html
    assert "Because of reason 1." not in html
    assert "HX-Request" in page["Vary"]


def test_a_learner_reports_a_problem_and_goes_back_to_the_question(learner_client, answered):
    attempt, question = answered
    step = f"/en/attempts/{attempt.pk}/questions/1/"
    response = learner_client.post(
        _url(question), {"reason": "wrong_key", "text": "Choice 2 is right.", "next": step}
    )
    assert response.status_code == 302 and response["Location"] == step
    report = QuestionReport.objects.get()
    assert (report.question, report.reason, report.text) == (
        question,
        "wrong_key",
        "Choice 2 is right.",
    )
    assert "your report went to the" in learner_client.get(step).content.decode()


def test_over_htmx_the_form_and_the_thanks_are_fragments(learner_client, answered):
    _attempt, question = answered
    form = learner_client.get(_url(question), HTTP_HX_REQUEST="true")
    assert "<html" not in form.content.decode() and 'hx-post="' in form.content.decode()
    done = learner_client.post(
        _url(question), {"reason": "unclear", "text": ""}, HTTP_HX_REQUEST="true"
    )
    html = done.content.decode()
    assert done.status_code == 200 and "<html" not in html and "Thank you" in html


def test_one_open_report_per_learner_and_question(learner_client, answered, instructor):
    _attempt, question = answered
    learner_client.post(_url(question), {"reason": "unclear"})
    again = learner_client.post(_url(question), {"reason": "other", "text": "And more."})
    assert "already reported a problem with this question" in again.content.decode()
    assert QuestionReport.objects.count() == 1
    # Once an instructor resolved it, a new problem can be reported.
    QuestionReport.objects.update(resolved_by=instructor, resolved_at="2026-01-01T00:00Z")
    learner_client.post(_url(question), {"reason": "other", "text": "Still wrong."})
    assert QuestionReport.objects.count() == 2


def test_the_database_holds_one_open_report_per_learner_and_question(learner, answered):
    from django.db import IntegrityError, transaction

    _attempt, question = answered
    QuestionReport.objects.create(user=learner, question=question, reason="unclear")
    with pytest.raises(IntegrityError), transaction.atomic():
        QuestionReport.objects.create(user=learner, question=question, reason="other")


def test_reports_are_limited_per_learner(frozen_clock, settings, learner, learner_client):
    settings.QUESTION_REPORT_RATE = "2/h"
    quiz = make_quiz(questions=3)
    attempt = attempt_start(user=learner, quiz=quiz)
    questions = list(quiz.questions.order_by("position"))
    for question in questions:
        post_answer(attempt, question, choice=wrong_choice(question))
    for question in questions[:2]:
        assert learner_client.post(_url(question), {"reason": "unclear"}).status_code == 302
    response = learner_client.post(_url(questions[2]), {"reason": "unclear"})
    assert response.status_code == 429
    assert "many reports in a short time" in response.content.decode()
    assert QuestionReport.objects.count() == 2


def test_a_question_not_answered_by_the_learner_cannot_be_reported(
    learner_client, other_learner, quiz
):
    unanswered = quiz.questions.get(position=1)
    assert learner_client.get(_url(unanswered)).status_code == 404
    assert learner_client.post(_url(unanswered), {"reason": "unclear"}).status_code == 404
    # Another learner's answer does not make it the learner's to report.
    attempt = attempt_start(user=other_learner, quiz=quiz)
    post_answer(attempt, unanswered, choice=wrong_choice(unanswered))
    assert learner_client.get(_url(unanswered)).status_code == 404
    assert QuestionReport.objects.count() == 0


def test_anonymous_visitors_are_sent_to_sign_in(client, answered):
    _attempt, question = answered
    response = client.post(_url(question), {"reason": "unclear"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Choose what is wrong with the question."),
        ({"reason": "nonsense"}, "Choose one of the reasons listed."),
        ({"reason": "other", "text": "   "}, "Say in a few words what is wrong."),
        ({"reason": "unclear", "text": "x" * 1001}, "1,000 characters or fewer (you wrote 1001)"),
        ({"reason": "unclear", "text": "bad\x00byte"}, "Null characters are not allowed."),
    ],
)
def test_junk_reports_get_a_clear_error_and_store_nothing(learner_client, answered, data, message):
    _attempt, question = answered
    response = learner_client.post(_url(question), data)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert QuestionReport.objects.count() == 0


def test_a_report_never_sends_the_learner_off_site(learner_client, answered):
    _attempt, question = answered
    response = learner_client.post(
        _url(question), {"reason": "unclear", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/en/attempts/"


def test_the_report_form_needs_a_csrf_token(learner, answered):
    _attempt, question = answered
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    assert client.post(_url(question), {"reason": "unclear"}).status_code == 403


def test_instructors_see_reports_per_quiz_escaped_and_mark_them_resolved(learner, answered, quiz):
    _attempt, question = answered
    report = QuestionReport.objects.create(
        user=learner, question=question, reason="wrong_key", text="<script>alert(1)</script>"
    )
    instructor = make_instructor("ustadha")
    client = Client()
    client.force_login(instructor)

    quiz_list = client.get("/en/admin/quizzes/quiz/").content.decode()
    assert (
        f"/en/admin/quizzes/questionreport/?status=open&amp;question__quiz__id__exact={quiz.pk}"
        in quiz_list
    )

    listing = client.get(
        f"/en/admin/quizzes/questionreport/?status=open&question__quiz__id__exact={quiz.pk}"
    )
    html = listing.content.decode()
    assert listing.status_code == 200
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
    assert f'href="/en/admin/quizzes/question/{question.pk}/change/"' in html

    analysis = client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/item-analysis/").content.decode()
    assert f"question__id__exact={question.pk}" in analysis
    assert "1 open report of a problem" in analysis

    response = client.post(
        "/en/admin/quizzes/questionreport/",
        {"action": "mark_resolved", "_selected_action": [report.pk]},
    )
    assert response.status_code == 302
    report.refresh_from_db()
    assert report.resolved_by == instructor and report.resolved_at is not None
    assert (
        f"question__quiz__id__exact={quiz.pk}"
        not in client.get("/en/admin/quizzes/quiz/").content.decode()
    )


def test_instructors_cannot_add_or_delete_reports(learner, answered, instructor):
    _attempt, question = answered
    report = QuestionReport.objects.create(user=learner, question=question, reason="unclear")
    client = Client()
    client.force_login(instructor)
    assert client.get("/en/admin/quizzes/questionreport/add/").status_code == 403
    assert client.post(f"/en/admin/quizzes/questionreport/{report.pk}/delete/").status_code == 403
    assert QuestionReport.objects.filter(pk=report.pk).exists()


def test_a_review_step_offers_to_report_its_question_too(learner, learner_client, answered):
    from quizzes.models import ReviewCard
    from quizzes.review.services import review_answer_post

    _attempt, question = answered
    card = ReviewCard.objects.get(user=learner, question=question)
    outcome = review_answer_post(
        user_id=learner.pk,
        card_id=card.pk,
        revision=card.reviews,
        posted=Posted(choices=(wrong_choice(question).pk,)),
    )
    page = learner_client.get(f"/en/review/answers/{outcome.answer.pk}/").content.decode()
    assert f'href="{_url(question)}?next=/en/review/answers/{outcome.answer.pk}/"' in page
