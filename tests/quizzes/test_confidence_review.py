"""Confidence and review (issue 56): what a level does to a card (FSRS), review answers with
levels, the learner's setting, and calibration on the history and the review statistics."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone
from fsrs import Rating

from accounts.models import Profile
from quizzes.attempts.services import attempt_start
from quizzes.calibration import calibration
from quizzes.models import ReviewAnswer, ReviewCard
from quizzes.review.scheduler import card_of, card_record_quiz_answer, scheduler, to_fsrs
from tests.factories import correct_choice, make_quiz, wrong_choice
from tests.steps import bystander_on, post_answer

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def review_card(learner, question, *, days: int = 9) -> ReviewCard:
    """A card in review (missed, then right twice, `days` before MONDAY), due on MONDAY."""
    start = MONDAY - timedelta(days=days)
    for minutes, right in ((0, False), (1, True), (11, True)):
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=right,
            at=start + timedelta(minutes=minutes),
        )
    card = ReviewCard.objects.get(user=learner, question=question)
    assert card.state == ReviewCard.State.REVIEW
    ReviewCard.objects.filter(pk=card.pk).update(due=MONDAY)
    card.refresh_from_db()
    return card


def expected_due(card: ReviewCard, rating: Rating, at: datetime) -> datetime:
    scheduled, _log = scheduler().review_card(to_fsrs(card), rating, at)
    return scheduled.due


@time_machine.travel(MONDAY, tick=False)
def test_a_right_answer_not_sure_moves_the_card_as_hard_and_fairly_sure_as_good(learner):
    quiz = make_quiz(questions=2, confidence="ask")
    one, two = quiz.questions.order_by("position")
    guessed, known = review_card(learner, one), review_card(learner, two)
    hard, good = (
        expected_due(guessed, Rating.Hard, MONDAY),
        expected_due(known, Rating.Good, MONDAY),
    )
    assert hard < good

    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, one, choice=correct_choice(one), confidence=1)
    post_answer(attempt, two, choice=correct_choice(two), confidence=2)

    assert ReviewCard.objects.get(pk=guessed.pk).due == hard
    assert ReviewCard.objects.get(pk=known.pk).due == good


@time_machine.travel(MONDAY, tick=False)
def test_a_right_guess_creates_a_card_that_a_sure_right_answer_does_not(learner):
    quiz = make_quiz(questions=3, confidence="marking")
    one, two, three = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, one, choice=correct_choice(one), confidence=1)
    post_answer(attempt, two, choice=correct_choice(two), confidence=2)
    post_answer(attempt, three, choice=correct_choice(three), confidence=3)

    (card,) = ReviewCard.objects.filter(user=learner)
    assert card.question_id == one.pk and not card.sure_miss


@time_machine.travel(MONDAY, tick=False)
def test_a_miss_very_sure_comes_back_on_the_shortest_relearning_step_first_and_says_so(
    learner, learner_client, settings
):
    quiz = make_quiz(questions=3, confidence="ask")
    one, two, three = quiz.questions.order_by("position")
    long_due = review_card(learner, one, days=30)
    review_card(learner, two, days=30)
    ReviewCard.objects.filter(user=learner).update(due=MONDAY - timedelta(days=2))

    with time_machine.travel(MONDAY - timedelta(hours=1), tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
        post_answer(attempt, one, choice=wrong_choice(one), confidence=1)
        post_answer(attempt, two, choice=wrong_choice(two), confidence=3)
        post_answer(attempt, three, choice=wrong_choice(three), confidence=3)
    unsure = ReviewCard.objects.get(pk=long_due.pk)
    sure = ReviewCard.objects.get(user=learner, question=two)
    new_sure = ReviewCard.objects.get(user=learner, question=three)
    soonest = timedelta(minutes=min(settings.REVIEW_RELEARNING_STEPS_MINUTES))
    assert sure.sure_miss and new_sure.sure_miss and not unsure.sure_miss
    assert sure.state == ReviewCard.State.RELEARNING
    assert sure.due <= MONDAY - timedelta(hours=1) + soonest
    assert new_sure.due <= MONDAY - timedelta(hours=1) + soonest

    # All three due: the sure misses first, the one due longest ago among them first.
    ReviewCard.objects.filter(pk=unsure.pk).update(due=MONDAY - timedelta(days=5))
    page = learner_client.get("/en/review/").content.decode()
    offered = int(re.search(r'name="card" value="(\d+)"', page).group(1))
    assert offered == new_sure.pk  # due a minute after the miss, before `sure`
    assert "You were sure of this, and missed it" in page
    arabic = learner_client.get("/ar/review/").content.decode()
    assert "كنت واثقًا من هذا السؤال وأخطأت فيه" in arabic

    # Answered wrong again (even unsure), it stays one; answered right, it no longer is.
    data = {"card": sure.pk, "question": two.pk, "confidence": "1"}
    learner_client.post(
        "/en/review/", {**data, "revision": sure.reviews, "choice": wrong_choice(two).pk}
    )
    assert ReviewCard.objects.get(pk=sure.pk).sure_miss
    learner_client.post(
        "/en/review/", {**data, "revision": sure.reviews + 1, "choice": correct_choice(two).pk}
    )
    assert not ReviewCard.objects.get(pk=sure.pk).sure_miss


@time_machine.travel(MONDAY, tick=False)
def test_review_asks_for_a_level_once_the_learner_gave_one_in_a_quiz(learner, learner_client):
    plain = make_quiz(questions=1)
    card = review_card(learner, plain.questions.get())
    question = card.question
    asking = make_quiz(questions=1, confidence="ask")
    bystander_on(asking)  # who gave a level: asked in review, unlike this learner so far
    assert 'name="confidence"' not in learner_client.get("/en/review/").content.decode()

    attempt = attempt_start(user=learner, quiz=asking)
    post_answer(
        attempt, asking.questions.get(), choice=correct_choice(asking.questions.get()), confidence=2
    )
    page = learner_client.get("/en/review/").content.decode()
    assert page.count('name="confidence"') == 3

    data = {
        "card": card.pk,
        "revision": card.reviews,
        "question": question.pk,
        "choice": correct_choice(question).pk,
    }
    for junk in ({}, {"confidence": "5"}, {"confidence": "x"}):
        response = learner_client.post("/en/review/", {**data, **junk})
        assert response.status_code == 422
    assert not ReviewAnswer.objects.filter(user=learner).exists()
    assert ReviewCard.objects.get(pk=card.pk).reviews == card.reviews

    learner_client.post("/en/review/", {**data, "confidence": "1"})
    answer = ReviewAnswer.objects.get(user=learner)
    assert answer.confidence == 1 and answer.rating == Rating.Hard.value
    assert ReviewCard.objects.get(pk=card.pk).due == expected_due(card, Rating.Hard, MONDAY)


def test_the_learner_turns_review_levels_off_and_on_in_their_preferences(learner, learner_client):
    quiz = make_quiz(questions=1, confidence="ask")
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(
        attempt, quiz.questions.get(), choice=wrong_choice(quiz.questions.get()), confidence=1
    )
    page = learner_client.get("/en/accounts/profile/preferences/").content.decode()
    assert re.search(r'name="review_confidence"[^>]*checked', page)
    ReviewCard.objects.filter(user=learner).update(due=timezone.now() - timedelta(minutes=1))
    assert 'name="confidence"' in learner_client.get("/en/review/").content.decode()

    response = learner_client.post(
        "/en/accounts/profile/preferences/", {"time_zone": "", "reminder_hour": ""}
    )
    assert response.status_code == 302
    assert Profile.objects.get(user=learner).review_confidence is False
    assert 'name="confidence"' not in learner_client.get("/en/review/").content.decode()
    arabic = learner_client.get("/ar/accounts/profile/preferences/").content.decode()
    assert "اطلب مني درجة ثقتي في المراجعة" in arabic

    learner_client.post(
        "/en/accounts/profile/preferences/",
        {"time_zone": "", "reminder_hour": "", "review_confidence": "on"},
    )
    assert Profile.objects.get(user=learner).review_confidence is True


def test_review_asks_from_the_first_quiz_level_and_a_learner_who_said_no_stays_unasked(
    learner, other_learner
):
    """Not asked before a level was given; asked from the first quiz answer with one, once,
    without reading the learner's answers at each review; a "no" in the preferences holds
    through later quizzes."""
    from quizzes.review.services import review_asks_confidence

    quiz = make_quiz(questions=2, confidence="ask")
    question = quiz.questions.first()
    assert review_asks_confidence(user_id=learner.pk) is False

    post_answer(
        attempt_start(user=learner, quiz=quiz),
        question,
        choice=wrong_choice(question),
        confidence=2,
    )
    assert review_asks_confidence(user_id=learner.pk) is True

    Profile.objects.filter(user=other_learner).update(review_confidence=False)
    post_answer(
        attempt_start(user=other_learner, quiz=quiz),
        question,
        choice=wrong_choice(question),
        confidence=3,
    )
    assert review_asks_confidence(user_id=other_learner.pk) is False


def test_calibration_counts_each_levels_answers_right_in_quizzes_and_reviews(
    learner, other_learner, learner_client
):
    quiz = make_quiz(questions=4, confidence="ask")
    bystander_on(quiz)  # four misses very sure, a review answer very sure: none of them here
    q = list(quiz.questions.order_by("position"))
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, q[0], choice=correct_choice(q[0]), confidence=3)
    post_answer(attempt, q[1], choice=correct_choice(q[1]), confidence=3)
    post_answer(attempt, q[2], choice=wrong_choice(q[2]), confidence=3)
    post_answer(attempt, q[3], choice=wrong_choice(q[3]), confidence=1)
    card = ReviewCard.objects.get(user=learner, question=q[3])
    learner_client.post(
        "/en/review/",
        {
            "card": card.pk,
            "revision": card.reviews,
            "question": q[3].pk,
            "choice": correct_choice(q[3]).pk,
            "confidence": "3",
        },
    )
    # Another learner's answers and an exam still running count for nobody here.
    theirs = attempt_start(user=other_learner, quiz=quiz)
    post_answer(theirs, q[0], choice=wrong_choice(q[0]), confidence=3)
    exam = make_quiz(questions=2, confidence="ask", feedback="deferred")
    running = attempt_start(user=learner, quiz=exam)
    first = exam.questions.get(position=1)
    post_answer(running, first, choice=wrong_choice(first), confidence=3)

    levels = calibration(user_id=learner.pk).levels
    assert [(level.level, level.answers, level.right) for level in levels] == [
        (1, 1, 0),
        (2, 0, 0),
        (3, 4, 3),
    ]
    for path in ("/en/attempts/", "/en/review/statistics/"):
        page = learner_client.get(path).content.decode()
        assert "When very sure, you were right 75 % of the time." in page, path
        assert "3 of 4 answers right (75%)" in page and "0 of 1 answer right (0%)" in page
        section = page[
            page.index('class="calibration"') : page.index(
                "</section>", page.index('class="calibration"')
            )
        ]
        assert 'width="75"' in section and 'width="0"' in section
        assert "style=" not in section
    arabic = learner_client.get("/ar/attempts/").content.decode()
    assert "حين كانت ثقتك عالية، أصبت في \u206675 %\u2069 من المرات." in arabic


def test_calibration_with_only_unsure_answers_speaks_of_them(learner, learner_client):
    quiz = make_quiz(questions=2, confidence="ask")
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.order_by("position"):
        post_answer(attempt, question, choice=correct_choice(question), confidence=1)
    page = learner_client.get("/en/attempts/").content.decode()
    assert "When not sure, you were right 100 % of the time." in page
