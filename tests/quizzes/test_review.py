"""Spaced review of missed questions: cards, their schedule, the review page and its rules."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.grading import Posted
from quizzes.models import Answer, Attempt, ReviewAnswer, ReviewCard
from quizzes.review.badge import review_due_badge, review_due_count, review_due_counts
from quizzes.review.scheduler import card_of, card_record_quiz_answer, cards_record_answers
from quizzes.review.services import Review, review_answer_post, review_next
from tests.factories import correct_choice, make_quiz, make_user, wrong_choice
from tests.steps import post_answer as post_step_answer

# Another learner with activity on the same quiz: none of it may show here (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("among_others")]

HX = {"HTTP_HX_REQUEST": "true"}
MONDAY = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def answer(attempt, question, *, right: bool):
    choice = correct_choice(question) if right else wrong_choice(question)
    return post_step_answer(attempt, question, choice=choice)


def miss_first_question(learner, quiz):
    """A quiz attempt whose first question the learner got wrong; returns that question."""
    first = quiz.questions.get(position=1)
    answer(attempt_start(user=learner, quiz=quiz), first, right=False)
    return first


def due_now(card: ReviewCard) -> ReviewCard:
    ReviewCard.objects.filter(pk=card.pk).update(due=MONDAY - timedelta(days=1))
    card.refresh_from_db()
    return card


# --- Cards and their schedule ---------------------------------------------------------------


def test_a_wrong_answer_in_a_quiz_creates_a_card_due_at_the_first_learning_step(learner, quiz):
    first = miss_first_question(learner, quiz)

    card = ReviewCard.objects.get(user=learner, question=first)
    answered_at = Answer.objects.get(attempt__user=learner, question=first).answered_at
    assert card.due - answered_at == timedelta(minutes=1)  # REVIEW_LEARNING_STEPS_MINUTES
    assert card.state == ReviewCard.State.LEARNING
    assert card.reviews == 1


def test_right_answers_to_questions_without_a_card_create_none(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.order_by("position"):
        answer(attempt, question, right=True)

    assert not ReviewCard.objects.filter(user=learner).exists()


def test_a_miss_goes_through_minute_steps_then_days_further_each_time_and_relearns_in_minutes(
    learner, quiz
):
    question = quiz.questions.get(position=1)
    card_record_quiz_answer(
        card_of(learner.pk, question.pk),
        user_id=learner.pk,
        question_id=question.pk,
        is_correct=False,
        at=MONDAY,
    )
    card = ReviewCard.objects.get(user=learner)
    assert card.due == MONDAY + timedelta(minutes=1)
    intervals = []
    for right in (True, True, True, True, False, True):
        before = card.due
        outcome = review_answer_post(
            user_id=learner.pk,
            card_id=card.pk,
            revision=card.reviews,
            posted=Posted(choices=((correct_choice if right else wrong_choice)(question).pk,)),
            now=before,
        )
        assert outcome.kind is Review.ANSWERED
        card.refresh_from_db()
        intervals.append(card.due - before)

    minutes, days = timedelta(minutes=1), timedelta(days=1)
    assert intervals[0] == 10 * minutes  # the second learning step, the same session
    assert intervals[1] >= days and intervals[1] % days == timedelta(0)  # graduated: days
    assert intervals[2] > intervals[1] and intervals[3] > intervals[2]  # further each time
    assert intervals[4] == 10 * minutes  # a miss: the relearning step, the same session
    assert intervals[5] >= days  # relearned: back to days
    assert card.state == ReviewCard.State.REVIEW


def test_a_later_quiz_answer_to_a_missed_question_moves_its_card(learner, quiz):
    first = miss_first_question(learner, quiz)
    card = ReviewCard.objects.get(user=learner, question=first)

    answer(attempt_start(user=make_user(), quiz=quiz), first, right=True)  # someone else
    card.refresh_from_db()
    assert card.reviews == 1

    Attempt.objects.filter(user=learner).update(finished_at=MONDAY)  # a retake
    answer(attempt_start(user=learner, quiz=quiz), first, right=True)
    card.refresh_from_db()
    assert card.reviews == 2


def test_a_question_deleted_takes_its_cards_and_reworded_content_keeps_them(learner, quiz):
    first = miss_first_question(learner, quiz)
    first.prompt_en = "Reworded, same question?"
    first.save()
    content_changed(quiz=quiz)
    assert ReviewCard.objects.filter(question=first).exists()
    assert review_next(user_id=learner.pk, practise=True).question.prompt == (
        "Reworded, same question?"
    )

    Attempt.objects.filter(quiz=quiz).delete()  # answered questions are protected
    deleted = first.pk
    first.delete()

    assert not ReviewCard.objects.filter(question_id=deleted).exists()
    # The bystander's cards of the other two questions stay (tests/conftest.py).
    assert ReviewCard.objects.filter(question__quiz=quiz).count() == 2


# --- The review page -------------------------------------------------------------------------


@pytest.fixture
def due_card(learner, quiz):
    first = miss_first_question(learner, quiz)
    return due_now(ReviewCard.objects.get(user=learner, question=first))


def post_answer(client, card, choice, **headers):
    return client.post(
        "/en/review/",
        {
            "card": card.pk,
            "revision": card.reviews,
            "choice": choice.pk,
            "question": card.question_id,
        },
        **headers,
    )


def test_the_review_page_offers_the_due_question_with_its_choices_and_no_answer(
    learner_client, due_card
):
    page = learner_client.get("/en/review/").content.decode()

    assert "1 question due now" in page
    assert due_card.question.prompt_en in page
    for choice in due_card.question.choices.all():
        assert choice.text_en in page
    assert "Correct answer" not in page and due_card.question.explanation_en not in page


def test_answering_a_review_shows_the_feedback_and_moves_the_card_without_touching_scores(
    learner, learner_client, due_card
):
    attempts = list(Attempt.objects.filter(user=learner).values("pk", "score", "finished_at"))

    response = post_answer(learner_client, due_card, correct_choice(due_card.question))

    recorded = ReviewAnswer.objects.get(user=due_card.user_id)
    assert response["Location"] == f"/en/review/answers/{recorded.pk}/"
    page = learner_client.get(response["Location"]).content.decode()
    assert "Correct." in page and due_card.question.explanation_en in page
    due_card.refresh_from_db()
    assert due_card.reviews == 2 and due_card.due > MONDAY
    assert list(Attempt.objects.filter(user=learner).values("pk", "score", "finished_at")) == (
        attempts
    )
    assert Answer.objects.filter(attempt__user=learner).count() == 1


def test_an_htmx_review_answer_swaps_the_feedback_in_place_with_its_own_address(
    learner_client, due_card
):
    response = post_answer(learner_client, due_card, wrong_choice(due_card.question), **HX)

    assert response.status_code == 200
    body = response.content.decode()
    assert "Not quite." in body and "<html" not in body
    assert (
        response["HX-Push-Url"]
        == f"/en/review/answers/{ReviewAnswer.objects.get(user=due_card.user_id).pk}/"
    )


def test_a_replayed_or_double_clicked_review_answer_moves_the_card_once(learner_client, due_card):
    first = post_answer(learner_client, due_card, wrong_choice(due_card.question))
    second = post_answer(learner_client, due_card, correct_choice(due_card.question))

    assert ReviewAnswer.objects.filter(user=due_card.user_id).count() == 1
    assert second["Location"] == first["Location"]  # the recorded answer, unchanged
    due_card.refresh_from_db()
    assert due_card.reviews == 2
    assert not ReviewAnswer.objects.get(user=due_card.user_id).is_correct


def test_a_review_shown_before_a_quiz_answer_moved_the_card_is_shown_anew(
    learner, learner_client, due_card
):
    stale = ReviewCard.objects.get(pk=due_card.pk)
    card_record_quiz_answer(
        card_of(learner.pk, due_card.question_id),
        user_id=learner.pk,
        question_id=due_card.question_id,
        is_correct=True,
        at=MONDAY,
    )

    response = post_answer(learner_client, stale, correct_choice(due_card.question))

    assert response["Location"] == "/en/review/"
    assert not ReviewAnswer.objects.filter(user=learner).exists()
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "You answered this question elsewhere meanwhile; here it is again." in messages


def test_other_learners_review_questions_and_answers_do_not_exist(learner_client, quiz):
    other = make_user()
    first = miss_first_question(other, quiz)
    card = due_now(ReviewCard.objects.get(user=other, question=first))
    theirs = review_answer_post(
        user_id=other.pk,
        card_id=card.pk,
        revision=card.reviews,
        posted=Posted(choices=(wrong_choice(first).pk,)),
    ).answer

    assert post_answer(learner_client, card, correct_choice(first)).status_code == 404
    assert learner_client.get(f"/en/review/answers/{theirs.pk}/").status_code == 404
    assert "question due" not in learner_client.get("/en/review/").content.decode()
    card.refresh_from_db()
    assert card.reviews == 2  # theirs alone


def test_a_choice_from_another_question_is_refused_and_changes_nothing(
    learner_client, quiz, due_card
):
    other_question = quiz.questions.get(position=2)

    response = post_answer(learner_client, due_card, correct_choice(other_question))

    assert response.status_code == 409
    assert "Choose one of this question&#x27;s answers." in response.content.decode()
    due_card.refresh_from_db()
    assert due_card.reviews == 1 and not ReviewAnswer.objects.filter(user=due_card.user_id).exists()


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"card": "x", "revision": "0", "choice": "1"},
        {"card": "1", "revision": "-1", "choice": "1"},
        {"card": "999999", "revision": "0", "choice": "1"},
    ],
)
def test_junk_review_posts_are_not_found_and_change_nothing(learner_client, due_card, data):
    assert learner_client.post("/en/review/", data).status_code == 404
    due_card.refresh_from_db()
    assert due_card.reviews == 1


def test_a_missing_pick_asks_for_one_on_the_same_question(learner_client, due_card):
    response = learner_client.post(
        "/en/review/", {"card": due_card.pk, "revision": due_card.reviews}
    )

    assert response.status_code == 422
    page = response.content.decode()
    assert "Choose an answer before submitting." in page and due_card.question.prompt_en in page


def test_questions_of_unpublished_quizzes_are_not_offered(learner, learner_client, due_card, quiz):
    quiz.is_published = False
    quiz.save()

    assert review_due_count(user_id=learner.pk) == 0
    page = learner_client.get("/en/review/").content.decode()
    assert due_card.question.prompt_en not in page
    assert post_answer(learner_client, due_card, correct_choice(due_card.question)).status_code == (
        404
    )


def test_with_nothing_due_the_page_says_when_and_offers_practice(learner, learner_client, quiz):
    first = miss_first_question(learner, quiz)

    page = learner_client.get("/en/review/").content.decode()
    assert "Nothing to review now" in page
    # A first miss comes back at the first learning step, a minute later: the same day.
    assert "1 question comes back later today, the first in 1 minute." in page
    assert first.prompt_en not in page

    practice = learner_client.get("/en/review/?practise").content.decode()
    assert first.prompt_en in practice
    assert (
        "Practice: questions not due yet, soonest first. Your answers here move nothing."
        in practice
    )


@pytest.mark.site_time_zone("UTC")
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_next_due_time_is_said_as_the_learners_day_goes_without_a_zone(
    learner, learner_client, quiz, lang
):
    miss_first_question(learner, quiz)
    ReviewCard.objects.filter(user=learner).update(due=datetime(2030, 3, 1, 14, 30, tzinfo=UTC))

    page = learner_client.get(f"/{lang}/review/").content.decode()

    said = re.search(r"<p>((?:The next question|يعود السؤال)[^<]*)</p>", page).group(1)
    expected = {
        "en": "The next question comes back on March 1, 2030.",
        "ar": "يعود السؤال التالي في 1 مارس 2030.",
    }
    assert said == expected[lang]
    assert "(UTC)" not in page and "+00" not in page


@pytest.mark.site_time_zone("UTC")
@pytest.mark.parametrize(
    ("later", "said"),
    [
        (timedelta(minutes=4, seconds=10), "in 5 minutes"),
        (timedelta(hours=3), "later today at 1 p.m."),
        (timedelta(hours=20), "tomorrow at 6 a.m."),
        (timedelta(days=3), "on Nov. 5, 2026"),
    ],
)
def test_when_a_question_comes_back_is_said_in_the_learners_day(later, said):
    from quizzes.templatetags.daleel import comes_back

    now = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
    with time_machine.travel(now, tick=False):
        assert comes_back(now + later) == said
        assert comes_back(now - timedelta(minutes=1)) == "now"


@time_machine.travel(datetime(2026, 11, 2, 10, 0, tzinfo=UTC), tick=False)
def test_the_badge_the_review_page_and_the_statistics_count_what_is_due_alike(
    learner, learner_client
):
    """Due now: two; later today (same-day relearning): one; tomorrow: one. Every page says
    two due now, and the pages that say more say one later today."""
    quiz = make_quiz(questions=4)
    now = timezone.now()
    dues = [now - timedelta(hours=1), now, now + timedelta(minutes=10), now + timedelta(days=1)]
    for question, due in zip(quiz.questions.order_by("position"), dues, strict=True):
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=False,
        )
        ReviewCard.objects.filter(question=question).update(due=due)

    review = learner_client.get("/en/review/").content.decode()
    statistics = learner_client.get("/en/review/statistics/").content.decode()
    catalog = learner_client.get("/en/").content.decode()

    badge = '<span class="count-badge" aria-hidden="true">2</span>'
    assert badge in review and badge in statistics and badge in catalog
    assert "2 questions due now (1 more later today)" in " ".join(review.split())
    assert "2 questions are due now. 1 more comes back later today." in " ".join(statistics.split())
    # The chart's "today" holds the three, as the two sentences add up.
    assert review_due_counts(user_id=learner.pk).today == 3


def test_a_learner_without_cards_is_told_how_review_works(learner_client):
    page = learner_client.get("/en/review/").content.decode()

    assert "Nothing to review yet" in page


def test_the_navigation_shows_how_many_questions_are_due(learner_client, due_card, quiz):
    second = quiz.questions.get(position=2)
    attempt = Attempt.objects.get(user=due_card.user_id)
    answer(attempt, second, right=False)
    due_now(ReviewCard.objects.get(user=due_card.user_id, question=second))

    page = learner_client.get("/en/").content.decode()

    assert (
        '<span class="count-badge" aria-hidden="true">2</span>'
        '<span class="visually-hidden"> 2 questions due' in page
    )


def test_the_review_page_is_in_arabic_on_arabic_pages(learner_client, due_card):
    page = learner_client.get("/ar/review/").content.decode()

    assert "سؤال واحد مستحق الآن" in page and due_card.question.prompt_ar in page


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get("/en/review/")

    assert response.status_code == 302 and response["Location"].startswith("/en/accounts/login/")


def test_each_learner_sees_only_their_own_due_count(quiz):
    amina, bilal = make_user(), make_user()
    due_now(ReviewCard.objects.get(user=amina, question=miss_first_question(amina, quiz)))
    client = Client()
    client.force_login(bilal)

    assert "count-badge" not in client.get("/en/").content.decode()


# --- The navigation's count, kept per learner -------------------------------------------------


def test_the_badge_counts_a_card_as_it_falls_due_without_reading_the_cards_again(
    learner, quiz, django_assert_num_queries
):
    due = ReviewCard.objects.get(user=learner, question=miss_first_question(learner, quiz)).due

    assert review_due_badge(user_id=learner.pk, now=due - timedelta(minutes=1)) == 0
    with django_assert_num_queries(0):
        assert review_due_badge(user_id=learner.pk, now=due) == 1


def test_a_review_answer_takes_its_card_off_the_badge_at_once(learner_client, due_card):
    assert (
        '<span class="count-badge" aria-hidden="true">1<'
        in learner_client.get("/en/").content.decode()
    )

    post_answer(learner_client, due_card, correct_choice(due_card.question))

    assert "count-badge" not in learner_client.get("/en/").content.decode()


def test_a_quiz_answer_that_moves_a_due_card_takes_it_off_the_badge_at_once(
    learner, learner_client, due_card
):
    assert (
        '<span class="count-badge" aria-hidden="true">1<'
        in learner_client.get("/en/").content.decode()
    )

    card_record_quiz_answer(
        card_of(learner.pk, due_card.question_id),
        user_id=learner.pk,
        question_id=due_card.question_id,
        is_correct=True,
    )

    assert "count-badge" not in learner_client.get("/en/").content.decode()


def test_an_exam_finished_now_takes_a_card_that_fell_due_during_it_off_the_badge(
    learner, learner_client, quiz
):
    """Its answers were given before the card fell due; the badge counts by now."""
    question = miss_first_question(learner, quiz)
    card = ReviewCard.objects.get(user=learner, question=question)
    now = timezone.now()
    ReviewCard.objects.filter(pk=card.pk).update(due=now - timedelta(minutes=5))
    assert (
        '<span class="count-badge" aria-hidden="true">1<'
        in learner_client.get("/en/").content.decode()
    )

    cards_record_answers(
        user_id=learner.pk, answers=[(question.pk, True, now - timedelta(minutes=2), None)]
    )

    assert "count-badge" not in learner_client.get("/en/").content.decode()


def _miss_every_question(learner, quiz, dues: dict[int, datetime]) -> None:
    """Every question of `quiz` missed, each card then due at `dues[position]`."""
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.order_by("position"):
        answer(attempt, question, right=False)
    for position, due in dues.items():
        ReviewCard.objects.filter(user=learner, question__position=position).update(due=due)


def test_review_offers_the_card_due_longest_ago_first(learner, quiz):
    _miss_every_question(
        learner,
        quiz,
        {
            1: MONDAY - timedelta(hours=1),
            2: MONDAY - timedelta(days=3),
            3: MONDAY - timedelta(days=1),
        },
    )

    step = review_next(user_id=learner.pk, now=MONDAY)

    assert step.card.question.position == 2
    assert step.due_count == 3


def test_practice_offers_the_card_due_soonest_first(learner, quiz):
    _miss_every_question(
        learner,
        quiz,
        {
            1: MONDAY + timedelta(days=5),
            2: MONDAY + timedelta(days=1),
            3: MONDAY + timedelta(days=3),
        },
    )

    assert review_next(user_id=learner.pk, now=MONDAY) is None
    assert review_next(user_id=learner.pk, practise=True, now=MONDAY).card.question.position == 2


def _nav_review(html: str) -> str:
    """The navigation's review link as `html` has it (a page's, or a fragment's out of band)."""
    return re.search(r'<a id="nav-review"[^>]*>.*?</a>', html, re.DOTALL).group(0)


def test_answering_due_questions_over_htmx_updates_the_navigations_count_with_the_answer(
    learner, learner_client, quiz
):
    questions = list(quiz.questions.order_by("position"))
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in questions[:2]:
        answer(attempt, question, right=False)
    cards = [due_now(card) for card in ReviewCard.objects.filter(user=learner).order_by("pk")]
    page = learner_client.get("/en/review/").content.decode()
    assert ">2</span>" in _nav_review(page)

    first = post_answer(learner_client, cards[0], correct_choice(cards[0].question), **HX)
    second = post_answer(learner_client, cards[1], correct_choice(cards[1].question), **HX)

    swapped = [_nav_review(response.content.decode()) for response in (first, second)]
    assert all('hx-swap-oob="true"' in link for link in swapped)
    assert '<span class="count-badge" aria-hidden="true">1</span>' in swapped[0]
    assert "count-badge" not in swapped[1]
    # One count: the page's "nothing due" and the navigation's, after the last one.
    assert "count-badge" not in _nav_review(learner_client.get("/en/review/").content.decode())


def retake_with_the_first_question_due(learner, quiz):
    """A finished attempt that missed the first question, its card due now, and a retake."""
    first = quiz.questions.get(position=1)
    missed = attempt_start(user=learner, quiz=quiz)
    answer(missed, first, right=False)
    for question in quiz.questions.exclude(pk=first.pk):
        answer(missed, question, right=True)
    due_now(ReviewCard.objects.get(user=learner, question=first))
    return first, attempt_start(user=learner, quiz=quiz)


def test_a_quiz_answer_that_moves_a_due_card_updates_the_navigations_count_over_htmx(
    learner, learner_client, quiz
):
    first, retake = retake_with_the_first_question_due(learner, quiz)
    assert ">1</span>" in _nav_review(learner_client.get("/en/").content.decode())

    response = learner_client.post(
        f"/en/attempts/{retake.pk}/questions/1/",
        {"choice": correct_choice(first).pk, "question": first.pk},
        **HX,
    )

    assert "count-badge" not in _nav_review(response.content.decode())


def test_without_javascript_the_page_after_a_review_answer_counts_what_is_still_due(
    learner, learner_client, quiz
):
    first = miss_first_question(learner, quiz)
    card = due_now(ReviewCard.objects.get(user=learner, question=first))
    assert ">1</span>" in _nav_review(learner_client.get("/en/review/").content.decode())

    reviewed = post_answer(learner_client, card, correct_choice(first))

    assert reviewed.status_code == 302
    after = learner_client.get(reviewed.url).content.decode()
    assert "hx-swap-oob" not in after
    assert "count-badge" not in _nav_review(after)


def test_without_javascript_the_page_after_a_quiz_answer_counts_what_is_still_due(
    learner, learner_client, quiz
):
    first, retake = retake_with_the_first_question_due(learner, quiz)
    assert ">1</span>" in _nav_review(learner_client.get("/en/").content.decode())

    answered = learner_client.post(
        f"/en/attempts/{retake.pk}/questions/1/",
        {"choice": correct_choice(first).pk, "question": first.pk},
    )

    assert answered.status_code == 302
    after = learner_client.get(answered.url).content.decode()
    assert "hx-swap-oob" not in after
    assert "count-badge" not in _nav_review(after)
