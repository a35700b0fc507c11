"""The data export read in chunks (quizzes/privacy.py) writes the same document as reading
everything at once from the models would: every kind of answer, exams withheld, confidence
levels, review cards and their answers; chunk boundaries and the content it keeps change
nothing."""

import json

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.test import Client

from accounts.privacy import account_export
from quizzes import privacy
from quizzes.attempts.services import attempt_start, attempt_submit_all
from quizzes.grading import Posted
from quizzes.models import Attempt, Question, Quiz, ReviewCard
from quizzes.review.services import Review, review_answer_post
from tests.factories import make_quiz_of_every_kind, make_typed_quiz, make_user, wrong_choice
from tests.steps import right_answer_data

pytestmark = pytest.mark.django_db


def _answer_everything(client: Client, attempt: Attempt, *, right: bool, levels: bool) -> None:
    """Every question of `attempt` answered through its page: right, or a wrong choice where
    the question has choices (the others right), with a level of confidence where asked."""
    questions = attempt.quiz.questions.order_by("position")
    for number, question in enumerate(questions, start=1):
        data = right_answer_data(attempt, question)
        if not right and question.kind in (Question.Kind.SINGLE, Question.Kind.TRUEFALSE):
            data = {"choice": str(wrong_choice(question).pk)}
        if levels:
            data["confidence"] = str(1 + number % 3)
        response = client.post(f"/en/attempts/{attempt.pk}/questions/{number}/", data)
        assert response.status_code in (200, 302), response.content[:300]


@pytest.fixture
def learner(db):
    """A learner with finished attempts on a quiz of every kind (one asking how sure), an exam
    still running, and review cards, some answered in review."""
    learner = make_user("yara")
    client = Client()
    client.force_login(learner)
    asking = make_quiz_of_every_kind(questions=12, confidence="ask")
    plain = make_quiz_of_every_kind(questions=8)
    for quiz, right, levels in ((asking, False, True), (asking, True, True), (plain, False, False)):
        attempt = attempt_start(user=learner, quiz=quiz)
        _answer_everything(client, attempt, right=right, levels=levels)
        attempt_submit_all(user=learner, attempt_id=attempt.pk)
    exam = attempt_start(user=learner, quiz=make_typed_quiz(feedback=Quiz.Feedback.DEFERRED))
    _answer_everything(client, exam, right=False, levels=False)
    cards = list(ReviewCard.objects.filter(user=learner).order_by("pk"))
    assert len(cards) >= 4
    for card in cards[::2]:
        question = card.question
        if question.kind in (Question.Kind.SINGLE, Question.Kind.TRUEFALSE):
            picked = (question.choices.get(is_correct=True).pk,)
            outcome = review_answer_post(
                user_id=learner.pk,
                card_id=card.pk,
                revision=card.reviews,
                posted=Posted(choices=picked, confidence=3),
            )
            assert outcome.kind == Review.ANSWERED, outcome
    return learner


def _iso(moment) -> str | None:
    return moment.isoformat() if moment is not None else None


def _response(answer, shows: bool) -> dict:
    """An answer as the export writes it, read through the models one answer at a time."""
    question = answer.question
    texts = {choice.pk: choice.text for choice in question.choices.all()}
    arrangement = None
    if question.kind == Question.Kind.MATCHING:
        pairs = {pair.pk: pair for pair in question.pairs.order_by("position")}
        picked = answer.arrangement or {}
        arrangement = [
            {"prompt": pair.prompt, "match": getattr(pairs.get(picked[str(pk)]), "match", None)}
            for pk, pair in pairs.items()
            if str(pk) in picked
        ]
    elif question.kind == Question.Kind.ORDERING:
        items = {item.pk: item.text for item in question.order_items.all()}
        arrangement = [items.get(pk) for pk in answer.arrangement or []]
    return {
        "choice": texts.get(answer.choice_id),
        "correct_choice": texts.get(answer.correct_choice_id) if shows else None,
        "choices_ticked": [texts.get(pk) for pk in answer.choice_ids or []],
        "number": answer.number,
        "text": answer.text or None,
        "arrangement": arrangement,
        "mark": answer.fraction if shows else None,
        "is_correct": answer.is_correct if shows else None,
        "confidence": answer.confidence,
    }


def _expected(learner) -> dict:
    """The attempts and cards sections, from the models, everything at once."""
    attempts = []
    for attempt in Attempt.objects.filter(user=learner).order_by("started_at", "pk"):
        shows = attempt.shows_feedback
        attempts.append(
            {
                "quiz": attempt.quiz.slug,
                "quiz_title": attempt.quiz.title,
                "started_at": _iso(attempt.started_at),
                "finished_at": _iso(attempt.finished_at),
                "score": attempt.score if shows else None,
                "total": attempt.total if shows else None,
                "confidence": attempt.confidence,
                "certainty_based_score": attempt.cbm_score if shows else None,
                "certainty_based_grade": attempt.grade_score
                if shows and attempt.cbm_score is not None
                else None,
                "answers": [
                    {
                        "question": answer.question.position,
                        "prompt": answer.question.prompt,
                        **_response(answer, shows),
                        "answered_at": _iso(answer.answered_at),
                    }
                    for answer in attempt.answers.order_by("answered_at", "pk")
                ],
            }
        )
    cards = [
        {
            "quiz": card.question.quiz.slug,
            "question": card.question.position,
            "prompt": card.question.prompt,
            "created_at": _iso(card.created_at),
            "due": _iso(card.due),
            "state": card.get_state_display(),
            "stability": card.stability,
            "difficulty": card.difficulty,
            "last_review": _iso(card.last_review),
            "missed_when_very_sure": card.sure_miss,
            "answers": [
                {
                    **_response(answer, True),
                    "answered_at": _iso(answer.answered_at),
                    "rating": answer.get_rating_display() if answer.rating else None,
                }
                for answer in card.answers.order_by("answered_at", "pk")
            ],
        }
        for card in ReviewCard.objects.filter(user=learner).order_by("created_at", "pk")
    ]
    document = {"attempts": attempts, "review_cards": cards}
    return json.loads(json.dumps(document, cls=DjangoJSONEncoder))


def _sections(data: dict) -> dict:
    return {"attempts": data["attempts"], "review_cards": data["review_cards"]}


def test_the_export_read_in_chunks_is_the_document_the_models_give(learner):
    exported = _sections(account_export(user=learner))
    expected = _expected(learner)

    assert exported == expected
    kinds = {kind for kind, _label in Question.Kind.choices}
    answered = Question.objects.filter(answers__attempt__user=learner).values_list("kind")
    assert {kind for (kind,) in answered} == kinds  # every kind of answer is in it
    answers = [answer for attempt in exported["attempts"] for answer in attempt["answers"]]
    assert {answer["confidence"] for answer in answers} == {None, 1, 2, 3}
    assert any(answer["arrangement"] for answer in answers)
    assert any(answer["mark"] is None for answer in answers)  # the exam, withheld
    reviewed = [answer for card in exported["review_cards"] for answer in card["answers"]]
    assert reviewed and {answer["confidence"] for answer in reviewed} == {3}


def test_chunks_of_two_and_little_content_kept_change_nothing_in_the_export(learner, monkeypatch):
    whole = account_export(user=learner)
    monkeypatch.setattr(privacy, "EXPORT_ATTEMPTS_CHUNK", 2)
    monkeypatch.setattr(privacy, "EXPORT_CHUNK", 2)
    monkeypatch.setattr(privacy, "EXPORT_CONTENT_KEPT", 3)

    chunked = account_export(user=learner)

    assert _sections(chunked) == _sections(whole) == _expected(learner)
    assert len(chunked["attempts"]) == 4 and len(chunked["review_cards"]) >= 4


def test_the_download_is_streamed_in_pieces(learner, monkeypatch):
    from accounts import privacy as account_privacy

    monkeypatch.setattr(account_privacy, "EXPORT_PIECE", 1024)
    client = Client()
    client.force_login(learner)
    response = client.get("/en/accounts/profile/data.json")

    assert response.streaming
    pieces = list(response.streaming_content)
    assert len(pieces) > 3
    assert _sections(json.loads(b"".join(pieces))) == _expected(learner)
