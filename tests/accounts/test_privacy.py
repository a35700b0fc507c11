import json
from decimal import Decimal

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client

from accounts.models import Profile
from accounts.privacy import SECTIONS
from quizzes.attempts.services import attempt_start, attempt_submit_all
from quizzes.grading import Posted, Response
from quizzes.models import (
    Answer,
    Attempt,
    Question,
    QuestionReport,
    Quiz,
    ReviewAnswer,
    ReviewCard,
)
from quizzes.review.services import review_answer_post
from tests.factories import (
    PASSWORD,
    make_mixed_quiz,
    make_quiz,
    make_typed_quiz,
    make_user,
    wrong_choice,
)
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

User = get_user_model()


def _take(user, quiz, count):
    attempt = attempt_start(user=user, quiz=quiz)
    for question in quiz.questions.order_by("position")[:count]:
        post_answer(attempt, question, choice=wrong_choice(question))
    return attempt


@pytest.fixture
def quiz(db):
    return make_quiz(questions=3)


@pytest.fixture
def huda(db, quiz, bystander):
    """Huda's attempts, cards, review answer and report, beside the bystander's of the same quiz
    (tests/conftest.py): nothing of theirs may be exported or deleted with hers."""
    user = make_user("Huda", email="huda@example.org")  # signs in as "huda"
    _take(user, quiz, 3)
    _take(user, quiz, 1)
    QuestionReport.objects.create(
        user=user, question=quiz.questions.first(), reason="unclear", text="<b>Which one?</b>"
    )
    # The missed questions came back for review; one was answered there, right this time.
    card = ReviewCard.objects.get(user=user, question__position=1)
    right = card.question.choices.get(is_correct=True)
    review_answer_post(
        user_id=user.pk,
        card_id=card.pk,
        revision=card.reviews,
        posted=Posted(choices=(right.pk,)),
    )
    return user


def _data(response) -> dict:
    """The downloaded document: streamed, as a large one is."""
    assert response.streaming
    return json.loads(b"".join(response.streaming_content))


def _signed_in(user, **extra):
    client = Client(**extra)
    client.force_login(user)
    return client


def test_download_my_data_is_a_json_file_of_everything_held_about_the_learner(huda, quiz):
    Client(REMOTE_ADDR="198.51.100.7").post(
        "/en/accounts/login/", {"login": "huda", "password": PASSWORD}
    )
    response = _signed_in(huda).get("/en/accounts/profile/data.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="daleel-')
    assert "no-store" in response["Cache-Control"]
    data = _data(response)

    assert data["format"] == "daleel-account-export"
    assert set(SECTIONS) <= set(data)
    assert data["account"]["username"] == "Huda"
    assert data["account"]["email"] == "huda@example.org"
    assert data["account"]["time_zone"] == "" and data["account"]["reminder_hour"] is None
    assert [a["quiz"] for a in data["attempts"]] == [quiz.slug, quiz.slug]
    first, second = data["attempts"]
    assert first["finished_at"] is not None and first["total"] == 3
    assert [a["question"] for a in first["answers"]] == [1, 2, 3]
    assert all(a["is_correct"] is False for a in first["answers"])
    assert first["answers"][0]["choice"] == "Choice 1.2"
    assert first["answers"][0]["correct_choice"] == "Choice 1.1"
    assert second["finished_at"] is None and len(second["answers"]) == 1
    assert data["question_reports"][0]["text"] == "<b>Which one?</b>"
    cards = {card["question"]: card for card in data["review_cards"]}
    assert set(cards) == {1, 2, 3}
    assert cards[1]["answers"] == [
        {
            "choice": "Choice 1.1",
            "correct_choice": "Choice 1.1",
            "choices_ticked": [],
            "number": None,
            "text": None,
            "arrangement": None,
            "mark": "1.0000",
            "is_correct": True,
            "confidence": None,
            "answered_at": cards[1]["answers"][0]["answered_at"],
            "rating": "Good",
        }
    ]
    assert cards[2]["due"] is not None and cards[2]["answers"] == []
    assert data["sign_ins"][0]["ip_address"] == "198.51.100.7"


def test_the_export_holds_nothing_of_other_learners(huda, quiz, bystander):
    other = make_user("omar", email="omar@example.org")
    _take(other, quiz, 2)
    data = _data(_signed_in(huda).get("/en/accounts/profile/data.json"))
    assert "omar" not in json.dumps(data)
    assert "bystander" not in json.dumps(data).casefold()
    assert len(data["attempts"]) == 2
    # The bystander's finished attempt, cards, review answer, report and sign-in are theirs.
    assert [len(a["answers"]) for a in data["attempts"]] == [3, 1]
    assert len(data["review_cards"]) == 3
    assert sum(len(card["answers"]) for card in data["review_cards"]) == 1
    assert len(data["question_reports"]) == 1
    assert "192.0.2.77" not in json.dumps(data)  # the bystander's sign-in address


def test_download_my_data_needs_a_signed_in_learner(client):
    assert client.get("/en/accounts/profile/data.json").status_code == 302


def test_delete_page_says_what_instructors_statistics_lose(huda):
    page = _signed_in(huda).get("/en/accounts/delete/").content.decode()
    assert "Instructors' statistics lose your attempts" in page
    assert "item analysis" in page


def test_a_wrong_password_deletes_nothing(huda):
    client = _signed_in(huda)
    response = client.post("/en/accounts/delete/", {"password": "not-it"})
    assert response.status_code == 400
    assert "password was entered incorrectly" in response.content.decode()
    assert User.objects.filter(pk=huda.pk).exists()
    assert Attempt.objects.filter(user=huda).count() == 2


def test_deleting_an_account_removes_the_learner_and_everything_of_theirs_only(
    huda, quiz, bystander
):
    other = make_user("omar")
    _take(other, quiz, 3)
    QuestionReport.objects.create(user=other, question=quiz.questions.last(), reason="other")
    Profile.for_user(other)
    Client(REMOTE_ADDR="198.51.100.7").post(
        "/en/accounts/login/", {"login": "huda", "password": "wrong"}
    )
    Client(REMOTE_ADDR="198.51.100.7").post(
        "/en/accounts/login/", {"login": "huda", "password": PASSWORD}
    )
    Profile.for_user(huda)
    phone = _signed_in(huda)
    laptop = _signed_in(huda)
    others_session = _signed_in(other)
    huda_sessions = [phone.session.session_key, laptop.session.session_key]

    response = laptop.post("/en/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/en/accounts/deleted/"
    assert "deleted" in laptop.get("/en/accounts/deleted/").content.decode()

    assert not User.objects.filter(username__iexact="huda").exists()
    assert not Profile.objects.filter(user_id=huda.pk).exists()
    assert not Attempt.objects.filter(user_id=huda.pk).exists()
    assert not Answer.objects.filter(attempt__user_id=huda.pk).exists()
    assert not QuestionReport.objects.filter(user_id=huda.pk).exists()
    assert not ReviewCard.objects.filter(user_id=huda.pk).exists()
    assert not ReviewAnswer.objects.filter(user_id=huda.pk).exists()
    assert not AccessLog.objects.filter(username__iexact="huda").exists()
    assert not AccessAttempt.objects.filter(username__iexact="huda").exists()
    # Every session ended, in the table and in the cache; the phone is signed out too.
    assert not Session.objects.filter(session_key__in=huda_sessions).exists()
    assert all(
        cache.get(f"django.contrib.sessions.cached_db{key}") is None for key in huda_sessions
    )
    assert phone.get("/en/attempts/").status_code == 302

    # Nothing of the other learners, nor the quiz, changed.
    assert Attempt.objects.filter(user=bystander).count() == 1
    assert ReviewCard.objects.filter(user=bystander).count() == 3
    assert ReviewAnswer.objects.filter(user=bystander).count() == 1
    assert QuestionReport.objects.filter(user=bystander).count() == 1
    assert AccessLog.objects.filter(username=bystander.get_username()).exists()
    assert Attempt.objects.filter(user=other).count() == 1
    assert Answer.objects.filter(attempt__user=other).count() == 3
    assert QuestionReport.objects.filter(user=other).count() == 1
    assert ReviewCard.objects.filter(user=other).count() == 3
    assert Question.objects.filter(quiz=quiz).count() == 3
    assert others_session.get("/en/attempts/").status_code == 200


def test_an_instructor_who_resolved_reports_can_delete_their_account(huda, quiz):
    from tests.factories import make_instructor

    instructor = make_instructor("Ustadha")
    QuestionReport.objects.filter(user=huda).update(resolved_by=instructor)
    response = _signed_in(instructor).post("/en/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 302
    assert QuestionReport.objects.get(user=huda).resolved_by is None


def test_deleting_needs_a_csrf_token(huda):
    client = Client(enforce_csrf_checks=True)
    client.force_login(huda)
    assert client.post("/en/accounts/delete/", {"password": PASSWORD}).status_code == 403
    assert User.objects.filter(pk=huda.pk).exists()


def test_guessing_the_password_on_the_delete_page_locks_out(settings, huda):
    client = _signed_in(huda, REMOTE_ADDR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/en/accounts/delete/", {"password": "guess"})
    assert client.post("/en/accounts/delete/", {"password": PASSWORD}).status_code == 429
    assert User.objects.filter(pk=huda.pk).exists()


def test_the_export_says_what_was_answered_to_every_kind_of_question(db):
    learner = make_user("rana")
    quiz = make_mixed_quiz()
    client = _signed_in(learner)
    client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = learner.attempts.get()
    questions = list(quiz.questions.order_by("position"))
    boxes = list(questions[1].choices.filter(position=1).values_list("pk", flat=True))
    for number, data in enumerate(
        [
            {"choice": questions[0].choices.get(position=1).pk},
            {"choice": boxes},
            {"choice": questions[2].choices.get(position=1).pk},
            {"number": "8"},
        ],
        start=1,
    ):
        client.post(f"/en/attempts/{attempt.pk}/questions/{number}/", data)

    response = client.get("/en/accounts/profile/data.json")

    assert response.status_code == 200
    answers = _data(response)["attempts"][0]["answers"]
    assert answers[1]["choices_ticked"] == ["Box 2.1"] and answers[1]["mark"] == "0.5000"
    assert answers[1]["choice"] is None
    assert answers[3]["number"] == "8.0000000000" and answers[3]["mark"] == "0.5000"
    assert [a["is_correct"] for a in answers] == [True, False, True, False]


def _exam_in_progress(learner):
    """A learner part-way through an exam of every kind: a wrong single pick, boxes with one
    right and one wrong, true/false right, a number in the half-mark range."""
    quiz = make_mixed_quiz(feedback=Quiz.Feedback.DEFERRED)
    attempt = attempt_start(user=learner, quiz=quiz)
    by_position = {q.position: q for q in quiz.questions.prefetch_related("choices")}
    single, boxes, truefalse, number = (by_position[n] for n in (1, 2, 3, 4))
    right_boxes = [c.pk for c in boxes.choices.all() if c.fraction > 0]
    wrong_box = next(c.pk for c in boxes.choices.all() if c.fraction <= 0)
    for question, response in [
        (single, Response(choice_ids=(wrong_choice(single).pk,))),
        (boxes, Response(choice_ids=(right_boxes[0], wrong_box))),
        (truefalse, Response(choice_ids=(truefalse.choices.get(is_correct=True).pk,))),
        (number, Response(number=Decimal(8))),
    ]:
        post_answer(attempt, question, response=response)
    return quiz, attempt


def _exported_attempt(learner):
    response = _signed_in(learner).get("/en/accounts/profile/data.json")
    assert response.status_code == 200
    (attempt,) = _data(response)["attempts"]
    return attempt


def test_an_unfinished_exam_exports_the_learners_picks_and_nothing_about_correctness(db):
    learner = make_user("noor")
    quiz, _attempt = _exam_in_progress(learner)

    exported = _exported_attempt(learner)

    assert exported["finished_at"] is None
    assert exported["score"] is None and exported["total"] is None
    single, boxes, truefalse, number = exported["answers"]
    # Every field of every answer: the learner's own response is there ...
    assert set(single) == {
        "question",
        "prompt",
        "choice",
        "correct_choice",
        "choices_ticked",
        "number",
        "text",
        "arrangement",
        "mark",
        "is_correct",
        "confidence",
        "answered_at",
    }
    assert single["choice"] == wrong_choice(quiz.questions.get(position=1)).text
    assert len(boxes["choices_ticked"]) == 2
    assert truefalse["choice"] is not None
    assert Decimal(number["number"]) == 8
    # ... and nothing that tells which choice is right, or what a pick earned.
    for answer in exported["answers"]:
        assert answer["correct_choice"] is None
        assert answer["mark"] is None
        assert answer["is_correct"] is None
    assert not ReviewCard.objects.filter(user=learner).exists()


def test_changing_an_exam_pick_and_downloading_again_tells_nothing_new(db):
    learner = make_user("sami")
    quiz, attempt = _exam_in_progress(learner)
    single = quiz.questions.get(position=1)
    before = _exported_attempt(learner)

    right = single.choices.get(is_correct=True)
    post_answer(attempt, single, choice=right)
    after = _exported_attempt(learner)

    def without_picks(attempt):
        return sorted(
            (
                {k: v for k, v in a.items() if k not in {"choice", "answered_at"}}
                for a in attempt["answers"]
            ),
            key=lambda a: a["question"],
        )

    changed = next(a for a in after["answers"] if a["question"] == 1)
    assert changed["choice"] == right.text
    assert without_picks(after) == without_picks(before)


def test_a_finished_exam_exports_its_marks_and_right_answers(db):
    learner = make_user("rana")
    quiz, attempt = _exam_in_progress(learner)
    assert attempt_submit_all(user=learner, attempt_id=attempt.pk).finished

    exported = _exported_attempt(learner)

    assert Decimal(exported["score"]) == Decimal("1.5") and exported["total"] == 4
    single, boxes, truefalse, number = exported["answers"]
    assert single["is_correct"] is False and Decimal(single["mark"]) == 0
    assert (
        single["correct_choice"] == quiz.questions.get(position=1).choices.get(is_correct=True).text
    )
    assert Decimal(boxes["mark"]) == Decimal("0")
    assert truefalse["is_correct"] is True
    assert Decimal(number["mark"]) == Decimal("0.5")


def _typed_exam(learner):
    """An exam of a short-answer, a matching and an ordering question, all answered and not
    yet submitted: a half-right short answer, ZeRO-1 and ZeRO-2's matches swapped, the steps
    as 1 3 2 4."""
    quiz = make_typed_quiz(feedback=Quiz.Feedback.DEFERRED)
    short, matching, ordering = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    pairs = {pair.position: pair.pk for pair in matching.pairs.all()}
    items = {item.position: item.pk for item in ordering.order_items.all()}
    swapped = ((pairs[1], pairs[2]), (pairs[2], pairs[1]), (pairs[3], pairs[3]))
    for question, response in [
        (short, Response(text="  States ")),
        (matching, Response(arrangement=swapped)),
        (ordering, Response(arrangement=tuple(items[p] for p in (1, 3, 2, 4)))),
    ]:
        post_answer(attempt, question, response=response)
    return attempt


def test_the_export_holds_the_text_typed_and_the_arrangement_of_an_exams_answers(db):
    learner = make_user("lina")
    attempt = _typed_exam(learner)
    assert attempt.finished_at is None  # an exam is finished when its learner submits it

    exported = _exported_attempt(learner)

    short, matching, ordering = exported["answers"]
    assert short["text"] == "  States "  # as typed
    assert matching["arrangement"] == [
        {"prompt": "ZeRO-1", "match": "gradients"},
        {"prompt": "ZeRO-2", "match": "optimizer states"},
        {"prompt": "ZeRO-3", "match": "parameters"},
    ]
    assert ordering["arrangement"] == ["forward", "all-reduce", "backward", "optimizer step"]
    # Nothing about which is right, nor what they earned, while the exam runs.
    for answer in exported["answers"]:
        assert answer["mark"] is None and answer["is_correct"] is None
        assert answer["correct_choice"] is None
    assert exported["score"] is None

    assert attempt_submit_all(user=learner, attempt_id=attempt.pk).finished
    finished = _exported_attempt(learner)
    assert [Decimal(a["mark"]) for a in finished["answers"]] == [
        Decimal("0.5"),
        Decimal("0.3333"),
        Decimal("0.75"),
    ]
    assert finished["answers"][1]["arrangement"] == matching["arrangement"]


def test_the_export_holds_no_review_card_of_another_learner(huda):
    other_quiz = make_quiz(questions=2, slug="other-quiz")
    other = make_user("omar")
    _take(other, other_quiz, 2)  # two cards of omar's, on questions huda never saw
    assert ReviewCard.objects.filter(user=other).count() == 2

    data = _data(_signed_in(huda).get("/en/accounts/profile/data.json"))

    assert len(data["review_cards"]) == ReviewCard.objects.filter(user=huda).count() == 3
    assert {card["quiz"] for card in data["review_cards"]} == {huda.attempts.first().quiz.slug}


def test_the_export_holds_no_problem_report_of_another_learner(huda, quiz):
    other = make_user("omar")
    _take(other, quiz, 1)
    QuestionReport.objects.create(
        user=other, question=quiz.questions.last(), reason="other", text="Omar's own words"
    )

    data = _data(_signed_in(huda).get("/en/accounts/profile/data.json"))

    assert [report["text"] for report in data["question_reports"]] == ["<b>Which one?</b>"]


def test_download_my_data_is_limited_per_learner_with_a_bilingual_429(frozen_clock, settings, huda):
    settings.DATA_EXPORT_RATE = "2/h"
    client = _signed_in(huda)
    for _download in range(2):
        assert client.get("/en/accounts/profile/data.json").status_code == 200

    refused = client.get("/en/accounts/profile/data.json")
    arabic = client.get("/ar/accounts/profile/data.json")

    assert refused.status_code == arabic.status_code == 429
    assert "You downloaded your data many times in a short time." in refused.content.decode()
    assert 'lang="ar"' in arabic.content.decode()
    assert "حمّلت بياناتك مرات كثيرة في وقت قصير." in arabic.content.decode()
    # Another learner is not held back by huda's downloads.
    assert _signed_in(make_user("omar")).get("/en/accounts/profile/data.json").status_code == 200


def test_deleting_an_account_removes_its_email_addresses_and_second_factors():
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    user = make_user("rania", email="rania@example.org")
    TOTP.activate(user, generate_totp_secret())
    client = Client()
    client.force_login(user)
    response = client.post("/en/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 302
    assert not EmailAddress.objects.filter(email="rania@example.org").exists()
    assert not Authenticator.objects.exists()


def test_deleting_an_account_whose_username_has_capitals_removes_axes_records_of_it(quiz):
    user = make_user("Huda_Ali", email="huda.ali@example.org")
    other = make_user("omar")
    browser = Client(REMOTE_ADDR="198.51.100.7")
    # A sign-in (axes logs it under the name as stored), then failures (counted case-folded).
    browser.post("/en/accounts/login/", {"login": "Huda_Ali", "password": PASSWORD})
    for login in ("Huda_Ali", "HUDA_ALI", "omar"):
        Client(REMOTE_ADDR="198.51.100.7").post(
            "/en/accounts/login/", {"login": login, "password": "wrong"}
        )
    axes = (AccessAttempt, AccessFailureLog, AccessLog)
    assert AccessLog.objects.filter(username="Huda_Ali").exists()
    assert AccessAttempt.objects.filter(username="huda_ali").exists()

    response = _signed_in(user).post("/en/accounts/delete/", {"password": PASSWORD})

    assert response.status_code == 302
    for model in axes:
        assert not model.objects.filter(username__iexact="huda_ali").exists(), model
    # Another account's records are its own.
    assert AccessAttempt.objects.filter(username__iexact="omar").exists()
    assert User.objects.filter(pk=other.pk).exists()


def test_the_export_streams_in_statements_that_grow_with_its_chunks_not_its_attempts(db):
    """A learner with years of attempts downloads in pieces, read in chunks: as many
    statements for 2 attempts as for a chunk's worth, one more (the chunk's answers) for each
    further chunk."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from quizzes.privacy import EXPORT_ATTEMPTS_CHUNK

    quiz = make_quiz(questions=2)
    learner = make_user("sami", email="sami@example.org")
    client = _signed_in(learner)
    counts = []
    for size in (2, EXPORT_ATTEMPTS_CHUNK, 3 * EXPORT_ATTEMPTS_CHUNK):
        while Attempt.objects.filter(user=learner).count() < size:
            _take(learner, quiz, 2)
        with CaptureQueriesContext(connection) as queries:
            data = _data(client.get("/en/accounts/profile/data.json"))
        counts.append(len(queries.captured_queries))
        assert len(data["attempts"]) == size
    assert counts[0] == counts[1] == counts[2] - 2
    assert all(len(attempt["answers"]) == 2 for attempt in data["attempts"])
