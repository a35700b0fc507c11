"""Quiz settings: exam mode, time limits, attempt limits, open and close dates, shuffled
choices and learner overrides, each enforced on the server (a fixed clock, no sleeps)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.utils import timezone

from quizzes.attempts.rules import DEADLINE_GRACE
from quizzes.attempts.services import (
    Step,
    attempt_finish_if_over,
    attempt_start,
    attempt_submit_all,
)
from quizzes.attempts.state import attempt_state, quiz_availability
from quizzes.attempts.writes import AttemptError
from quizzes.models import Answer, Attempt, Choice, Quiz, QuizOverride, ReviewCard
from tests.admin_posts import inline, page_errors, question_rows
from tests.factories import correct_choice, make_quiz, make_user, wrong_choice
from tests.steps import another_tab_between_read_and_write, post_answer

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def step(attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def start(client, quiz) -> Attempt:
    client.post(f"/en/quizzes/{quiz.slug}/start/")
    return Attempt.objects.filter(quiz=quiz).latest("started_at")


# --- Exam mode: feedback when the learner finishes ------------------------------------------


@pytest.fixture
def exam(db):
    return make_quiz(questions=3, feedback=Quiz.Feedback.DEFERRED)


def correctness_shown(html: str, question) -> list[str]:
    """What would tell a learner whether an answer is right, found in a page."""
    tells = ["feedback--", "Correct.", "Not quite.", "Correct answer", "choice--correct"]
    found = [tell for tell in tells if tell in html]
    if question.explanation_en in html:
        found.append("the explanation")
    return found


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_exam_mode_saves_an_answer_and_shows_nothing_about_correctness(
    learner_client, exam, headers
):
    attempt = start(learner_client, exam)
    first = exam.questions.get(position=1)

    response = learner_client.post(step(attempt, 1), {"choice": wrong_choice(first).pk}, **headers)
    page = (
        response.content.decode()
        if headers
        else learner_client.get(response["Location"]).content.decode()
    )

    assert correctness_shown(page, first) == []
    assert "Answer saved. You can change it until you submit them all." in page
    assert re.search(rf'value="{wrong_choice(first).pk}" required checked', page)
    assert "Submit all and finish" in page
    saved = Answer.objects.get(attempt=attempt)
    assert saved.choice == wrong_choice(first)


def test_exam_mode_leaks_nothing_anywhere_before_the_finish(learner, learner_client, exam):
    attempt = start(learner_client, exam)
    for number, question in enumerate(exam.questions.order_by("position"), start=1):
        learner_client.post(step(attempt, number), {"choice": wrong_choice(question).pk})

    attempt.refresh_from_db()
    assert not attempt.is_finished  # the last answer does not finish an exam
    first = exam.questions.get(position=1)
    for url in [
        step(attempt, 1),
        step(attempt, 3),
        "/en/",
        f"/en/quizzes/{exam.slug}/",
        "/en/attempts/",
        "/en/review/",
        f"/en/attempts/{attempt.pk}/finish/",
    ]:
        page = learner_client.get(url, follow=True).content.decode()
        assert correctness_shown(page, first) == [], url
        assert "Mastery:" not in page, url
    assert learner_client.get(f"/en/attempts/{attempt.pk}/result/")["Location"] == step(attempt, 3)
    assert not ReviewCard.objects.exists()  # would tell the review page which were wrong


def test_an_exam_answer_can_be_changed_until_everything_is_submitted(learner_client, exam):
    attempt = start(learner_client, exam)
    first, second, third = exam.questions.order_by("position")
    learner_client.post(step(attempt, 1), {"choice": wrong_choice(first).pk})
    learner_client.post(step(attempt, 2), {"choice": correct_choice(second).pk})
    learner_client.post(step(attempt, 1), {"choice": correct_choice(first).pk})  # changed

    confirm = learner_client.get(f"/en/attempts/{attempt.pk}/finish/").content.decode()
    assert "1 question is not answered yet; it will count as wrong." in confirm
    assert third.prompt_en in confirm and first.prompt_en not in confirm

    response = learner_client.post(f"/en/attempts/{attempt.pk}/finish/")

    assert response["Location"] == f"/en/attempts/{attempt.pk}/result/"
    attempt.refresh_from_db()
    assert attempt.is_finished and (attempt.score, attempt.total) == (2, 3)
    result = learner_client.get(response["Location"]).content.decode()
    assert "2 / 3" in result and first.explanation_en in result
    assert "Not answered" in result and "Added after this attempt" not in result
    # Finished: a late change is refused and changes nothing.
    learner_client.post(step(attempt, 2), {"choice": wrong_choice(second).pk})
    assert Answer.objects.get(attempt=attempt, question=second).is_correct
    # Now the review page may know: the missed question (unanswered) has no card, none wrong.
    assert not ReviewCard.objects.exists()


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_change_posted_to_a_finished_exam_says_it_is_finished(learner_client, exam, headers):
    attempt = start(learner_client, exam)
    first = exam.questions.get(position=1)
    learner_client.post(step(attempt, 1), {"choice": wrong_choice(first).pk})
    learner_client.post(f"/en/attempts/{attempt.pk}/finish/")

    response = learner_client.post(
        step(attempt, 1), {"choice": correct_choice(first).pk}, follow=True, **headers
    )

    page = response.content.decode()
    assert "This attempt is finished; it accepts no more answers." in page
    assert "your first answer counts" not in page  # an exam's last saved answer counts
    assert not Answer.objects.get(attempt=attempt).is_correct


def test_finishing_an_exam_creates_the_review_cards_of_its_wrong_answers(
    learner, learner_client, exam
):
    attempt = start(learner_client, exam)
    first, second, _third = exam.questions.order_by("position")
    learner_client.post(step(attempt, 1), {"choice": wrong_choice(first).pk})
    learner_client.post(step(attempt, 2), {"choice": correct_choice(second).pk})
    assert not ReviewCard.objects.exists()

    learner_client.post(f"/en/attempts/{attempt.pk}/finish/")

    assert list(ReviewCard.objects.values_list("question", flat=True)) == [first.pk]


def test_exam_questions_can_be_answered_in_any_order_through_the_navigator(learner_client, exam):
    attempt = start(learner_client, exam)
    third = exam.questions.get(position=3)

    page = learner_client.get(step(attempt, 3)).content.decode()
    assert 'aria-label="Questions of this attempt"' in page
    learner_client.post(step(attempt, 3), {"choice": correct_choice(third).pk})

    page = learner_client.get(step(attempt, 1)).content.decode()
    assert re.search(r"navigator__item--answered[^>]*>3<", page)
    assert not re.search(r"navigator__item--answered[^>]*>1<", page)


def test_a_practice_quiz_still_answers_in_order_with_feedback(learner_client, quiz):
    attempt = start(learner_client, quiz)
    assert learner_client.get(step(attempt, 2))["Location"] == step(attempt, 1)
    first = quiz.questions.get(position=1)
    response = learner_client.post(step(attempt, 1), {"choice": correct_choice(first).pk}, **HX)
    assert "feedback--right" in response.content.decode()


# --- Time limits ----------------------------------------------------------------------------


@pytest.fixture
def timed(db):
    return make_quiz(questions=3, time_limit=timedelta(minutes=20))


def test_the_deadline_is_the_start_plus_the_limit_and_the_learners_extra_time(learner, timed):
    now = timezone.now()
    QuizOverride.objects.create(quiz=timed, user=learner, extra_time=timedelta(minutes=10))

    attempt = attempt_start(user=learner, quiz=timed, now=now)

    assert attempt.deadline == now + timedelta(minutes=30)
    other = attempt_start(user=make_user(), quiz=timed, now=now)
    assert other.deadline == now + timedelta(minutes=20)


def test_the_deadline_is_capped_by_the_closing_time(learner, timed):
    now = timezone.now()
    timed.closes_at = now + timedelta(minutes=5)
    timed.save()

    assert attempt_start(user=learner, quiz=timed, now=now).deadline == timed.closes_at


def test_an_answer_after_the_deadline_is_refused_and_the_attempt_finished_with_what_was_saved(
    learner, timed
):
    now = timezone.now()
    attempt = attempt_start(user=learner, quiz=timed, now=now)
    first, second, _third = timed.questions.order_by("position")
    post_answer(attempt, first, choice=correct_choice(first), now=now + timedelta(minutes=19))

    late = now + timedelta(minutes=20) + DEADLINE_GRACE + timedelta(seconds=1)
    outcome = post_answer(attempt, second, choice=correct_choice(second), now=late)

    assert outcome.step is Step.TIME_UP
    assert "Time is up" in str(outcome.message)
    attempt.refresh_from_db()
    assert attempt.is_finished and (attempt.score, attempt.total) == (1, 3)
    assert Answer.objects.filter(attempt=attempt).count() == 1


def test_an_answer_within_the_grace_after_the_deadline_counts(learner, timed):
    now = timezone.now()
    attempt = attempt_start(user=learner, quiz=timed, now=now)
    first = timed.questions.get(position=1)

    outcome = post_answer(
        attempt,
        first,
        choice=correct_choice(first),
        now=now + timedelta(minutes=20) + DEADLINE_GRACE,
    )

    assert outcome.step is Step.ANSWERED


@pytest.fixture
def overdue(learner, timed):
    """The learner's attempt on `timed`, a minute past its deadline."""
    attempt = attempt_start(user=learner, quiz=timed)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    return attempt


def test_an_overdue_attempt_is_finished_when_the_learner_comes_back(learner_client, overdue):
    response = learner_client.get(step(overdue, 1))

    assert response["Location"] == f"/en/attempts/{overdue.pk}/result/"
    overdue.refresh_from_db()
    assert overdue.is_finished and overdue.score == 0


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_late_post_says_time_is_up_and_shows_the_result(learner_client, timed, overdue, headers):
    first = timed.questions.get(position=1)

    response = learner_client.post(
        step(overdue, 1), {"choice": correct_choice(first).pk}, **headers
    )

    result_url = f"/en/attempts/{overdue.pk}/result/"
    if headers:
        # A followed redirect would swap the whole result page into the quiz's area.
        assert response.status_code == 200 and response["HX-Redirect"] == result_url
        assert "HX-Request" in response["Vary"]
    else:
        assert response["Location"] == result_url
    result = learner_client.get(result_url).content.decode()
    assert "Time is up: this answer came after the deadline and was not saved." in result
    assert not Answer.objects.exists()


def test_a_late_post_without_a_pick_finishes_the_attempt_and_shows_the_result(
    learner_client, overdue
):
    response = learner_client.post(step(overdue, 1), {})

    assert response["Location"] == f"/en/attempts/{overdue.pk}/result/"
    overdue.refresh_from_db()
    assert overdue.is_finished


def test_resuming_an_overdue_attempt_through_htmx_sends_the_browser_to_its_result(
    learner_client, timed, overdue
):
    response = learner_client.post(f"/en/quizzes/{timed.slug}/start/", **HX)

    assert response["HX-Redirect"] == f"/en/attempts/{overdue.pk}/result/"
    overdue.refresh_from_db()
    assert overdue.is_finished


def test_the_quiz_page_finishes_an_overdue_attempt_instead_of_offering_to_resume_it(
    learner_client, timed, overdue
):
    Quiz.objects.filter(pk=timed.pk).update(max_attempts=1)

    page = learner_client.get(f"/en/quizzes/{timed.slug}/").content.decode()

    overdue.refresh_from_db()
    assert overdue.is_finished
    assert "Resume quiz" not in page and "Start quiz" not in page
    assert "You have used every attempt this quiz allows." in page


def test_close_overdue_attempts_finishes_only_the_overdue(learner, timed):
    overdue = attempt_start(user=learner, quiz=timed)
    Attempt.objects.filter(pk=overdue.pk).update(deadline=timezone.now() - timedelta(hours=1))
    running = attempt_start(user=make_user(), quiz=timed)
    untimed = attempt_start(user=learner, quiz=make_quiz(questions=1))

    call_command("close_overdue_attempts", verbosity=0)

    overdue.refresh_from_db(), running.refresh_from_db(), untimed.refresh_from_db()
    assert overdue.is_finished and (overdue.score, overdue.total) == (0, 3)
    assert not running.is_finished and not untimed.is_finished


def test_the_step_shows_the_time_left_as_text_for_the_countdown(learner_client, timed):
    attempt = start(learner_client, timed)

    page = learner_client.get(step(attempt, 1)).content.decode()

    assert re.search(r'class="timer" data-deadline="[^"]+"', page)
    assert re.search(r"Time left: <span class=\"timer__value\">(19|20)\xa0minutes", page)


# --- Attempts allowed -----------------------------------------------------------------------


def test_one_more_start_than_allowed_is_refused_with_a_message(learner, learner_client):
    quiz = make_quiz(questions=1, max_attempts=1)
    attempt = start(learner_client, quiz)
    question = quiz.questions.get()
    learner_client.post(step(attempt, 1), {"choice": correct_choice(question).pk})

    response = learner_client.post(f"/en/quizzes/{quiz.slug}/start/")

    assert response["Location"] == f"/en/quizzes/{quiz.slug}/"
    assert Attempt.objects.filter(user=learner, quiz=quiz).count() == 1
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == ["You have used every attempt this quiz allows."]
    page = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "Start quiz" not in page and "1 attempt allowed." in page


def test_resuming_is_always_allowed_and_extra_attempts_come_from_an_override(learner):
    quiz = make_quiz(questions=2, max_attempts=1)
    first = attempt_start(user=learner, quiz=quiz)
    assert attempt_start(user=learner, quiz=quiz) == first  # resumed, not refused
    Attempt.objects.filter(pk=first.pk).update(finished_at=timezone.now())

    with pytest.raises(AttemptError):
        attempt_start(user=learner, quiz=quiz)
    QuizOverride.objects.create(quiz=quiz, user=learner, extra_attempts=1)
    second = attempt_start(user=learner, quiz=quiz)

    assert second != first
    Attempt.objects.filter(pk=second.pk).update(finished_at=timezone.now())
    with pytest.raises(AttemptError):
        attempt_start(user=learner, quiz=quiz)


@pytest.mark.django_db(transaction=True)
def test_two_tabs_starting_with_one_attempt_left_make_one_attempt():
    from tests.security.test_answers_count_once import _post_concurrently

    learner = make_user()
    quiz = make_quiz(questions=2, max_attempts=1)

    statuses = _post_concurrently(learner, f"/en/quizzes/{quiz.slug}/start/", [{}] * 8)

    assert 500 not in statuses
    assert Attempt.objects.filter(user=learner, quiz=quiz).count() == 1


# --- Open and close dates -------------------------------------------------------------------


def test_a_quiz_not_open_yet_says_when_and_refuses_a_start(learner_client):
    quiz = make_quiz(questions=1, opens_at=timezone.now() + timedelta(days=2))

    page = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    response = learner_client.post(f"/en/quizzes/{quiz.slug}/start/")

    assert "This quiz is not open yet." in page and "Opens " in page
    assert "Start quiz" not in page
    assert response.status_code == 302 and not Attempt.objects.exists()


def test_a_closed_quiz_says_so_and_refuses_a_start(learner_client):
    quiz = make_quiz(questions=1, closes_at=timezone.now() - timedelta(minutes=1))

    page = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    learner_client.post(f"/en/quizzes/{quiz.slug}/start/", **HX)

    assert "This quiz has closed." in page and "Start quiz" not in page
    assert not Attempt.objects.exists()


@pytest.mark.site_time_zone("UTC")
@pytest.mark.parametrize(
    ("lang", "opens", "closes"),
    [("en", "Opens ", "Closes "), ("ar", "يُفتح في ", "يُغلق في ")],
)
def test_the_quiz_page_gives_its_window_with_the_time_zone(learner_client, lang, opens, closes):
    opens_at = timezone.make_aware(timezone.datetime(2026, 3, 1, 14, 30))
    quiz = make_quiz(questions=1, opens_at=opens_at, closes_at=opens_at + timedelta(days=2))

    page = learner_client.get(f"/{lang}/quizzes/{quiz.slug}/").content.decode()

    rules = re.findall(r"<li>((?:Opens|Closes|يُفتح|يُغلق).*?)</li>", page)
    assert len(rules) == 2 and rules[0].startswith(opens) and rules[1].startswith(closes)
    # The server's zone, said by name and isolated: "UTC time", «بتوقيت UTC».
    assert all("<bdi>UTC</bdi>" in rule for rule in rules)
    assert not any(".." in rule for rule in rules)  # "p.m." then the sentence's own full stop


def test_an_exams_question_preview_does_not_promise_answers_as_you_go(learner_client, exam, quiz):
    exam_page = learner_client.get(f"/en/quizzes/{exam.slug}/").content.decode()
    practice_page = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()

    assert "appear as you take the quiz" not in exam_page
    assert "Answers and explanations appear when you finish." in exam_page
    assert "Answers and explanations appear as you take the quiz." in practice_page


# --- Shuffled choices -----------------------------------------------------------------------


def test_each_attempt_keeps_its_own_order_of_choices(learner, learner_client):
    quiz = make_quiz(questions=1, choices=5, shuffle_choices=True)
    question = quiz.questions.get()
    ids = sorted(question.choices.values_list("pk", flat=True))
    orders = set()
    for _ in range(12):
        attempt = attempt_start(user=make_user(), quiz=quiz)
        order = attempt.choice_order[str(question.pk)]
        assert sorted(order) == ids
        orders.add(tuple(order))
    assert len(orders) > 1  # 12 draws of 120 orders: all equal has odds of 1 in 10^24

    attempt = start(learner_client, quiz)

    def shown() -> list[str]:
        page = learner_client.get(step(attempt, 1)).content.decode()
        return re.findall(r'<span class="choice__text">(?:<[^>]+>)*([^<]+)<', page)

    in_order = [Choice.objects.get(pk=pk).text_en for pk in attempt.choice_order[str(question.pk)]]
    assert shown() == shown() == in_order


# --- Settings changed meanwhile, admin, seeds ----------------------------------------------


def test_changing_a_quizs_mode_strands_nobody_the_attempt_keeps_its_own(learner, exam):
    attempt = attempt_start(user=learner, quiz=exam)
    Quiz.objects.filter(pk=exam.pk).update(feedback=Quiz.Feedback.IMMEDIATE)
    attempt.refresh_from_db()
    state = attempt_state(attempt)

    assert attempt.is_deferred and not state.shows_feedback
    assert attempt_finish_if_over(state=state) is False


def test_an_instructor_sets_the_settings_and_a_learners_override_in_the_admin(
    client, instructor, quiz, learner
):
    client.force_login(instructor)
    page = client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    assert "Settings" in page and "learner overrides" in page.lower()

    data = {
        "title_en": quiz.title_en,
        "slug": quiz.slug,
        "difficulty": quiz.difficulty,
        "guide": str(quiz.guide_id),
        "is_published": "on",
        "feedback": "deferred",
        "confidence": "off",
        "time_limit": "00:20:00",
        "max_attempts": "2",
        "shuffle_choices": "on",
    }
    data |= inline(
        "overrides", [{"username": "AMINA", "extra_time": "00:10:00", "extra_attempts": "0"}]
    )
    data |= inline("questions", question_rows(quiz), initial=3)
    response = client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    quiz.refresh_from_db()
    assert quiz.is_deferred and quiz.time_limit == timedelta(minutes=20) and quiz.max_attempts == 2
    override = QuizOverride.objects.get(quiz=quiz)
    assert override.user == learner and override.extra_time == timedelta(minutes=10)
    listing = client.get("/en/admin/quizzes/quiz/").content.decode()
    assert "When the learner finishes (exam)" in listing


def quiz_form(quiz, overrides: list[dict], **fields) -> dict:
    """The quiz's admin form as posted, with these learner overrides and settings."""
    data = {
        "title_en": quiz.title_en,
        "slug": quiz.slug,
        "difficulty": quiz.difficulty,
        "guide": str(quiz.guide_id),
        "feedback": "immediate",
        "confidence": "off",
        **fields,
    }
    data |= inline("overrides", overrides)
    return data | inline("questions", question_rows(quiz), initial=3)


def test_the_admin_refuses_an_unknown_learner_and_a_quiz_that_closes_before_it_opens(
    client, instructor, quiz
):
    client.force_login(instructor)
    now = timezone.now()
    data = quiz_form(
        quiz,
        [{"username": "nobody-here", "extra_attempts": "1"}],
        opens_at_0=(now + timedelta(days=2)).strftime("%Y-%m-%d"),
        opens_at_1="10:00:00",
        closes_at_0=(now + timedelta(days=1)).strftime("%Y-%m-%d"),
        closes_at_1="10:00:00",
    )

    page = client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data).content.decode()

    assert "A quiz must close after it opens." in page
    assert "No learner has this username." in page
    assert not QuizOverride.objects.exists()


def test_the_admin_refuses_negative_extra_time(client, instructor, learner, quiz):
    client.force_login(instructor)
    overrides = [{"username": learner.username, "extra_time": "-00:15:00"}]
    data = quiz_form(quiz, overrides, time_limit="00:20:00")

    page = client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data).content.decode()

    assert "Extra time cannot be negative." in page
    assert not QuizOverride.objects.exists()


def test_the_seed_quizzes_stay_immediate_untimed_unlimited_and_unshuffled(seed_quizzes):
    for quiz in seed_quizzes:
        assert (quiz.feedback, quiz.time_limit, quiz.max_attempts) == ("immediate", None, None)
        assert (quiz.opens_at, quiz.closes_at, quiz.shuffle_choices) == (None, None, False)


# --- Two tabs on one exam, and the time an overdue attempt ended ----------------------------


def test_a_submit_counts_an_answer_changed_in_another_tab_after_its_page_was_read(
    learner, exam, monkeypatch
):
    attempt = attempt_start(user=learner, quiz=exam)
    first = exam.questions.get(position=1)
    post_answer(attempt, first, choice=wrong_choice(first))
    changes = []
    another_tab_between_read_and_write(
        monkeypatch,
        lambda: changes.append(post_answer(attempt, first, choice=correct_choice(first))),
    )

    submitted = attempt_submit_all(user=learner, attempt_id=attempt.pk)  # read, wrong saved

    assert submitted.finished and changes[0].step is Step.SAVED
    attempt.refresh_from_db()
    assert attempt.score == 1 and Answer.objects.get(attempt=attempt).is_correct
    assert submitted.state.answer_for(first).is_correct  # the result shows what was scored


def test_an_answer_saved_from_a_tab_read_before_the_submit_is_refused(learner, exam, monkeypatch):
    attempt = attempt_start(user=learner, quiz=exam)
    first, second = exam.questions.order_by("position")[:2]
    another_tab_between_read_and_write(
        monkeypatch, lambda: attempt_submit_all(user=learner, attempt_id=attempt.pk)
    )

    late = post_answer(attempt, first, choice=correct_choice(first))  # read before the submit
    later = post_answer(attempt, second, choice=correct_choice(second))  # read after it

    assert late.step is Step.REFUSED
    assert late.message == "This attempt is finished; it accepts no more answers."
    assert later.step is Step.NOT_OPEN
    assert not Answer.objects.filter(attempt=attempt).exists()
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 0


def test_a_second_submit_from_another_tab_changes_nothing(learner, exam, monkeypatch):
    attempt = attempt_start(user=learner, quiz=exam)
    firsts = []
    another_tab_between_read_and_write(
        monkeypatch,
        lambda: firsts.append(attempt_submit_all(user=learner, attempt_id=attempt.pk)),
    )

    second = attempt_submit_all(user=learner, attempt_id=attempt.pk)

    assert firsts[0].finished and not second.finished
    finished_at = Attempt.objects.get(pk=attempt.pk).finished_at
    assert finished_at == firsts[0].state.attempt.finished_at == second.state.attempt.finished_at


def test_an_overdue_attempt_closed_later_ended_at_its_deadline(learner, timed):
    attempt = attempt_start(user=learner, quiz=timed)
    deadline = timezone.now() - timedelta(hours=3)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=deadline)

    call_command("close_overdue_attempts", verbosity=0)

    attempt.refresh_from_db()
    assert attempt.finished_at == deadline


def test_an_attempt_noticed_past_its_deadline_ended_at_the_deadline(learner, timed):
    attempt = attempt_start(user=learner, quiz=timed)

    assert attempt_finish_if_over(
        state=attempt_state(attempt), now=attempt.deadline + DEADLINE_GRACE * 3
    )

    attempt.refresh_from_db()
    assert attempt.finished_at == attempt.deadline


def test_an_exam_submitted_in_time_ends_when_it_was_submitted(learner):
    quiz = make_quiz(questions=2, feedback=Quiz.Feedback.DEFERRED, time_limit=timedelta(minutes=20))
    attempt = attempt_start(user=learner, quiz=quiz)
    before = timezone.now()

    assert attempt_submit_all(user=learner, attempt_id=attempt.pk).finished

    attempt.refresh_from_db()
    assert before <= attempt.finished_at <= timezone.now() < attempt.deadline


def test_the_catalog_says_time_is_up_for_an_attempt_past_its_deadline(
    learner_client, timed, overdue
):
    card = learner_client.get("/en/").content.decode()

    assert "Time is up" in card and 'state--progress">In progress' not in card
    assert learner_client.get("/en/?status=in-progress").content.decode().count(timed.slug) == 0
    assert timed.slug in learner_client.get("/en/?status=finished").content.decode()
    assert "انتهى الوقت" in learner_client.get("/ar/").content.decode()


def test_the_history_finishes_and_scores_an_attempt_past_its_deadline(
    learner_client, timed, overdue
):
    first = timed.questions.get(position=1)
    Answer.objects.create(
        attempt=overdue,
        question=first,
        choice=correct_choice(first),
        correct_choice=correct_choice(first),
        fraction=1,
        is_correct=True,
        answered_at=overdue.deadline - timedelta(minutes=1),
    )

    page = learner_client.get("/en/attempts/").content.decode()

    overdue.refresh_from_db()
    assert overdue.is_finished and (overdue.score, overdue.total) == (1, 3)
    assert overdue.finished_at == overdue.deadline
    assert "In progress" not in page and "1 / 3" in page


def test_the_cron_path_keeps_the_networks_grace_before_closing_an_overdue_attempt(
    learner, timed, monkeypatch
):
    now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: now)  # the command reads the clock
    within = attempt_start(user=learner, quiz=timed)
    at_the_end = attempt_start(user=make_user(), quiz=timed)
    past = attempt_start(user=make_user(), quiz=timed)
    Attempt.objects.filter(pk=within.pk).update(deadline=now - DEADLINE_GRACE / 2)
    Attempt.objects.filter(pk=at_the_end.pk).update(deadline=now - DEADLINE_GRACE)
    Attempt.objects.filter(pk=past.pk).update(deadline=now - DEADLINE_GRACE - timedelta(seconds=1))

    call_command("close_overdue_attempts", verbosity=0)

    # An answer sent just before the deadline may still be on its way.
    assert not Attempt.objects.get(pk=within.pk).is_finished
    assert not Attempt.objects.get(pk=at_the_end.pk).is_finished
    assert Attempt.objects.get(pk=past.pk).is_finished


def test_a_quiz_is_closed_from_the_exact_instant_it_closes(learner):
    closes = timezone.now().replace(microsecond=0) + timedelta(days=1)
    quiz = make_quiz(questions=1, closes_at=closes)

    just_before = quiz_availability(quiz=quiz, user=learner, now=closes - timedelta(microseconds=1))
    at_closing = quiz_availability(quiz=quiz, user=learner, now=closes)

    assert not just_before.closed and just_before.refusal is None
    assert at_closing.closed and at_closing.refusal == "This quiz has closed."
    with pytest.raises(AttemptError, match="This quiz has closed."):
        attempt_start(user=learner, quiz=quiz, now=closes)
    assert not Attempt.objects.exists()
