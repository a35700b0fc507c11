"""Self-rating after a right review answer, and practice that goes on without moving cards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from quizzes.models import ReviewAnswer, ReviewCard
from quizzes.review.scheduler import SCHEDULED_FIELDS, card_of, card_record_quiz_answer
from tests.factories import correct_choice, wrong_choice

# Another learner with activity on the same quiz: none of it may show here (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("among_others")]

HX = {"HTTP_HX_REQUEST": "true"}
MONDAY = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def graduated_card(learner, quiz):
    """A card in review (missed, then right twice), due on MONDAY."""
    question = quiz.questions.get(position=1)
    card_record_quiz_answer(
        card_of(learner.pk, question.pk),
        user_id=learner.pk,
        question_id=question.pk,
        is_correct=False,
        at=MONDAY - timedelta(days=9),
    )
    for minutes in (1, 11):
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=True,
            at=MONDAY - timedelta(days=9) + timedelta(minutes=minutes),
        )
    card = ReviewCard.objects.get(user=learner)
    assert card.state == ReviewCard.State.REVIEW
    ReviewCard.objects.filter(pk=card.pk).update(due=MONDAY)
    card.refresh_from_db()
    return card


def post_answer(client, card, choice, **extra):
    data = {
        "card": card.pk,
        "revision": card.reviews,
        "choice": choice.pk,
        "question": card.question_id,
    }
    return client.post("/en/review/", {**data, **extra.pop("data", {})}, **extra)


def answer_right_and_rate(client, card, rating: int | None) -> ReviewCard:
    post_answer(client, card, correct_choice(card.question))
    answer = ReviewAnswer.objects.get(user=card.user_id)
    if rating is not None:
        response = client.post(f"/en/review/answers/{answer.pk}/rating/", {"rating": rating})
        assert response.status_code == 302 and response["Location"] == "/en/review/"
    return ReviewCard.objects.get(pk=card.pk)


@time_machine.travel(MONDAY, tick=False)
def test_a_right_review_answer_offers_hard_good_and_easy_with_keys(learner_client, graduated_card):
    response = post_answer(learner_client, graduated_card, correct_choice(graduated_card.question))
    page = learner_client.get(response["Location"]).content.decode()

    for value, label in ((2, "Hard"), (3, "Good"), (4, "Easy")):
        assert f'value="{value}" data-rating-key="{value}" aria-keyshortcuts="{value}"' in page
        assert f">{label}</button>" in page
    assert ">Again</button>" not in page
    assert (
        ReviewAnswer.objects.get(user=graduated_card.user_id).rating == ReviewAnswer.Rating.GOOD
    )  # the default


@time_machine.travel(MONDAY, tick=False)
def test_a_wrong_review_answer_is_again_without_asking(learner_client, graduated_card):
    response = post_answer(learner_client, graduated_card, wrong_choice(graduated_card.question))
    page = learner_client.get(response["Location"]).content.decode()

    assert "rating__buttons" not in page and 'data-rating-key="1"' in page
    assert ReviewAnswer.objects.get(user=graduated_card.user_id).rating == ReviewAnswer.Rating.AGAIN
    card = ReviewCard.objects.get(pk=graduated_card.pk)
    assert card.state == ReviewCard.State.RELEARNING
    assert card.due == MONDAY + timedelta(minutes=10)


def test_hard_brings_a_card_back_sooner_than_good_and_easy_later(
    learner, learner_client, quiz, graduated_card, django_db_blocker
):
    dues = {}
    for rating in (2, None, 4):
        ReviewAnswer.objects.filter(user=learner).delete()
        ReviewCard.objects.filter(pk=graduated_card.pk).update(
            **{name: getattr(graduated_card, name) for name in SCHEDULED_FIELDS}
        )
        with time_machine.travel(MONDAY, tick=False):
            dues[rating] = answer_right_and_rate(learner_client, graduated_card, rating).due

    assert dues[2] < dues[None] < dues[4]  # Hard < Good (no choice) < Easy
    assert ReviewAnswer.objects.get(user=graduated_card.user_id).rating == ReviewAnswer.Rating.EASY


@time_machine.travel(MONDAY, tick=False)
def test_rating_amends_the_same_review_and_may_change_its_mind(learner_client, graduated_card):
    easy = answer_right_and_rate(learner_client, graduated_card, 4)
    answer = ReviewAnswer.objects.get(user=graduated_card.user_id)
    learner_client.post(f"/en/review/answers/{answer.pk}/rating/", {"rating": 3})

    card = ReviewCard.objects.get(pk=graduated_card.pk)
    assert card.reviews == graduated_card.reviews + 1  # one review, amended
    assert card.due < easy.due
    assert ReviewAnswer.objects.filter(user=graduated_card.user_id).count() == 1
    assert ReviewAnswer.objects.get(user=graduated_card.user_id).rating == ReviewAnswer.Rating.GOOD


@time_machine.travel(MONDAY, tick=False)
def test_a_rating_after_the_card_moved_again_changes_nothing_and_says_so(
    learner_client, graduated_card
):
    post_answer(learner_client, graduated_card, correct_choice(graduated_card.question))
    answer = ReviewAnswer.objects.get(user=graduated_card.user_id)
    card_record_quiz_answer(
        card_of(graduated_card.user_id, graduated_card.question_id),
        user_id=graduated_card.user_id,
        question_id=graduated_card.question_id,
        is_correct=False,
        at=MONDAY,
    )
    before = ReviewCard.objects.get(pk=graduated_card.pk)

    response = learner_client.post(
        f"/en/review/answers/{answer.pk}/rating/", {"rating": 4}, follow=True
    )

    assert "can no longer be rated" in response.content.decode()
    assert ReviewCard.objects.get(pk=graduated_card.pk).due == before.due
    assert ReviewAnswer.objects.get(user=graduated_card.user_id).rating == ReviewAnswer.Rating.GOOD


@time_machine.travel(MONDAY, tick=False)
def test_wrong_answers_other_learners_answers_and_junk_cannot_be_rated(
    learner_client, other_learner, graduated_card, client
):
    post_answer(learner_client, graduated_card, wrong_choice(graduated_card.question))
    answer = ReviewAnswer.objects.get(user=graduated_card.user_id)
    due = ReviewCard.objects.get(pk=graduated_card.pk).due

    learner_client.post(f"/en/review/answers/{answer.pk}/rating/", {"rating": 4})
    assert ReviewCard.objects.get(pk=graduated_card.pk).due == due
    assert (
        learner_client.post(f"/en/review/answers/{answer.pk}/rating/", {"rating": 1}).status_code
        == 404
    )
    client.force_login(other_learner)
    assert client.post(f"/en/review/answers/{answer.pk}/rating/", {"rating": 4}).status_code == 404


@time_machine.travel(MONDAY, tick=False)
def test_an_htmx_rating_swaps_in_the_next_question_at_the_review_address(
    learner_client, graduated_card
):
    post_answer(learner_client, graduated_card, correct_choice(graduated_card.question))
    answer = ReviewAnswer.objects.get(user=graduated_card.user_id)

    response = learner_client.post(f"/en/review/answers/{answer.pk}/rating/", {"rating": 2}, **HX)

    assert response.status_code == 200 and "<html" not in response.content.decode()
    assert response["HX-Push-Url"] == "/en/review/"
    assert "HX-Request" in response["Vary"]


@time_machine.travel(MONDAY, tick=False)
def test_the_feedback_says_when_the_question_comes_back_in_the_learners_words(
    learner_client, graduated_card
):
    response = post_answer(learner_client, graduated_card, wrong_choice(graduated_card.question))
    page = learner_client.get(response["Location"]).content.decode()

    # Relearning: back in ten minutes, said so, without a zone or a date.
    assert "This question comes back in 10 minutes." in page


def test_the_rating_buttons_are_arabic_on_arabic_pages(learner_client, graduated_card):
    with time_machine.travel(MONDAY, tick=False):
        response = post_answer(
            learner_client, graduated_card, correct_choice(graduated_card.question)
        )
        page = learner_client.get(response["Location"].replace("/en/", "/ar/")).content.decode()

    assert ">Hard</button>" not in page and 'data-rating-key="2"' in page


# --- Practice -------------------------------------------------------------------------------


@pytest.fixture
def three_cards_not_due(learner, quiz):
    for position in (1, 2, 3):
        question = quiz.questions.get(position=position)
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=False,
            at=MONDAY,
        )
    for position, days in ((1, 5), (2, 1), (3, 3)):
        ReviewCard.objects.filter(user=learner, question__position=position).update(
            due=MONDAY + timedelta(days=days)
        )
    return list(ReviewCard.objects.filter(user=learner).order_by("due"))


@time_machine.travel(MONDAY + timedelta(hours=1), tick=False)
def test_practice_goes_through_every_card_not_due_once_and_moves_none(
    learner_client, three_cards_not_due
):
    before = list(ReviewCard.objects.order_by("pk").values())
    url = "/en/review/?practise"
    seen = []
    for card in three_cards_not_due:
        page = learner_client.get(url).content.decode()
        assert card.question.prompt_en in page
        assert 'name="practise"' in page
        response = post_answer(
            learner_client, card, correct_choice(card.question), data={"practise": "1"}
        )
        assert response.status_code == 200  # the feedback itself: nothing recorded to show
        feedback = response.content.decode()
        assert "Correct." in feedback and "is not recorded" in feedback
        assert "rating__buttons" not in feedback and "data-rating-key" not in feedback
        url = f"/en/review/?practise&after={card.pk}"
        assert url.replace("&", "&amp;") in feedback
        seen.append(card.pk)

    last = learner_client.get(url).content.decode()
    assert "You have practised every question that is not due yet." in last
    assert seen == [card.pk for card in three_cards_not_due]
    assert list(ReviewCard.objects.order_by("pk").values()) == before
    assert not ReviewAnswer.objects.filter(user=three_cards_not_due[0].user_id).exists()


@time_machine.travel(MONDAY + timedelta(hours=1), tick=False)
def test_a_wrong_practice_answer_moves_nothing_either(learner_client, three_cards_not_due):
    card = three_cards_not_due[0]
    before = list(ReviewCard.objects.order_by("pk").values())

    response = post_answer(
        learner_client, card, wrong_choice(card.question), data={"practise": "1"}, **HX
    )

    assert "Not quite." in response.content.decode()
    assert "HX-Push-Url" not in response
    assert list(ReviewCard.objects.order_by("pk").values()) == before
    assert not ReviewAnswer.objects.filter(user=three_cards_not_due[0].user_id).exists()
