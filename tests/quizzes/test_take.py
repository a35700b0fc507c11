"""Taking a quiz, step by step, with and without htmx."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.utils.html import escape

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.models import Answer, Attempt, Question, Quiz
from tests.factories import add_question, correct_choice, make_quiz, make_user, wrong_choice
from tests.steps import post_answer, right_answer_data

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def step_url(attempt: Attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def choice_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'name="choice" value="(\d+)"', html)]


def is_fragment(html: str) -> bool:
    return "<html" not in html and "<body" not in html


def start(client: Client, quiz: Quiz, **headers) -> Attempt:
    response = client.post(f"/en/quizzes/{quiz.slug}/start/", **headers)
    assert response.status_code in (200, 302)
    return Attempt.objects.filter(quiz=quiz).latest("started_at")


@pytest.mark.parametrize("slug", ["zero-sharded-optimizers", "activation-recomputation"])
def test_a_learner_takes_a_whole_seed_quiz_with_plain_forms(seed_quizzes, learner_client, slug):
    quiz = Quiz.objects.get(slug=slug)
    response = learner_client.post(f"/en/quizzes/{slug}/start/")
    attempt = Attempt.objects.get(quiz=quiz)
    assert response.status_code == 302
    assert response["Location"] == step_url(attempt, 1)

    questions = list(quiz.questions.order_by("position"))
    count = len(questions)
    # The ZeRO quiz ends with a short-answer, a matching, an ordering, a several-answer, a
    # true-or-false and a number question.
    typed = [q for q in questions if not q.has_choices]
    assert len(typed) == (4 if slug == "zero-sharded-optimizers" else 0)
    for number, question in enumerate(questions, 1):
        page = learner_client.get(step_url(attempt, number)).content.decode()
        assert f"Question {number} of {count}" in page
        assert set(choice_ids(page)) == set(question.choices.values_list("pk", flat=True))
        if question.has_choices:
            # Right on odd questions of choices, wrong on even ones: 4 / 8 for the first eight.
            right = bool(number % 2)
            pick = correct_choice(question) if right else wrong_choice(question)
            data = {"choice": pick.pk}
        else:  # typed, matched and ordered right
            right, data = True, right_answer_data(attempt, question)
        response = learner_client.post(step_url(attempt, number), data)
        assert response.status_code == 302
        assert response["Location"] == step_url(attempt, number)
        feedback = learner_client.get(step_url(attempt, number)).content.decode()
        assert ("Correct." if right else "Not quite.") in feedback
        assert escape(question.explanation_en) in feedback
        if question.has_choices:
            assert escape(correct_choice(question).text_en) in feedback
        if number < count:
            assert f'href="{step_url(attempt, number + 1)}"' in feedback
        else:
            assert f'href="/en/attempts/{attempt.pk}/result/"' in feedback

    attempt.refresh_from_db()
    assert attempt.is_finished
    score = sum(1 for n, q in enumerate(questions, 1) if n % 2 and q.has_choices) + len(typed)
    assert (attempt.score, attempt.total) == (score, count)
    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    assert f"{score} / {count}" in result and f"{attempt.percent}% correct" in result
    if not typed:
        assert attempt.percent == 50
    for question in questions:
        assert escape(question.explanation_en) in result
    assert quiz.guide.url in result
    assert f'action="/en/quizzes/{slug}/start/"' in result

    history = learner_client.get("/en/attempts/").content.decode()
    assert escape(quiz.title_en) in history and f"/en/attempts/{attempt.pk}/result/" in history


def test_a_learner_takes_a_quiz_over_htmx_and_gets_fragments(seed_quizzes, learner_client):
    quiz = Quiz.objects.get(slug="zero-sharded-optimizers")
    response = learner_client.post(f"/en/quizzes/{quiz.slug}/start/", **HX)
    attempt = Attempt.objects.get(quiz=quiz)
    assert response.status_code == 200
    assert is_fragment(response.content.decode())
    assert response["HX-Push-Url"] == step_url(attempt, 1)
    assert "HX-Request" in response["Vary"]

    questions = list(quiz.questions.order_by("position"))
    for number, question in enumerate(questions, 1):
        response = learner_client.get(step_url(attempt, number), **HX)
        assert is_fragment(response.content.decode())
        assert "HX-Request" in response["Vary"]
        response = learner_client.post(
            step_url(attempt, number), right_answer_data(attempt, question), **HX
        )
        html = response.content.decode()
        assert response.status_code == 200
        assert is_fragment(html)
        assert "HX-Request" in response["Vary"]
        assert "Correct." in html and escape(question.explanation_en) in html
        # The Next control swaps in place and pushes the next step's own URL.
        if number < len(questions):
            assert f'hx-get="{step_url(attempt, number + 1)}"' in html
            assert 'hx-push-url="true"' in html
    attempt.refresh_from_db()
    assert (attempt.score, attempt.total) == (len(questions), len(questions))


def test_the_same_step_url_gives_a_whole_page_without_htmx(learner_client, quiz):
    attempt = start(learner_client, quiz)
    response = learner_client.get(step_url(attempt, 1))
    html = response.content.decode()
    assert "<html" in html and 'id="quiz-area"' in html
    assert "HX-Request" in response["Vary"]


def test_a_history_restore_request_gets_the_whole_page(learner_client, quiz):
    attempt = start(learner_client, quiz)
    response = learner_client.get(
        step_url(attempt, 1), HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in response.content.decode()


def test_head_requests_are_answered_like_gets_and_record_nothing(learner_client, quiz):
    attempt = start(learner_client, quiz)
    pages = ["/healthz", "/en/", f"/en/quizzes/{quiz.slug}/", step_url(attempt, 1), "/en/attempts/"]
    for url in pages:
        response = learner_client.head(url)
        assert response.status_code == 200, url
        assert response.content == b"", url
    assert not Answer.objects.exists()


def test_an_unfinished_attempt_resumes_where_it_was_left_from_another_device(learner, quiz):
    laptop, phone = Client(), Client()
    laptop.force_login(learner)
    phone.force_login(learner)
    attempt = start(laptop, quiz)
    question = quiz.questions.get(position=1)
    laptop.post(step_url(attempt, 1), {"choice": correct_choice(question).pk})

    quiz_page = phone.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "Resume quiz" in quiz_page
    response = phone.post(f"/en/quizzes/{quiz.slug}/start/")
    assert response["Location"] == step_url(attempt, 2)
    assert Attempt.objects.filter(user=learner).count() == 1
    assert phone.get(f"/en/attempts/{attempt.pk}/")["Location"] == step_url(attempt, 2)


def test_a_later_question_is_not_reachable_before_the_current_one(learner_client, quiz):
    attempt = start(learner_client, quiz)
    response = learner_client.get(step_url(attempt, 3))
    assert response.status_code == 302 and response["Location"] == step_url(attempt, 1)
    question = quiz.questions.get(position=3)
    response = learner_client.post(step_url(attempt, 3), {"choice": correct_choice(question).pk})
    assert not Answer.objects.exists()


def test_an_answered_question_shows_its_recorded_outcome_on_a_resubmit(learner_client, quiz):
    attempt = start(learner_client, quiz)
    question = quiz.questions.get(position=1)
    learner_client.post(step_url(attempt, 1), {"choice": wrong_choice(question).pk})
    response = learner_client.post(
        step_url(attempt, 1), {"choice": correct_choice(question).pk}, **HX
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Not quite." in html and "your first answer counts" in html
    answer = Answer.objects.get()
    assert answer.choice_id == wrong_choice(question).pk and not answer.is_correct


def test_the_same_answer_sent_twice_counts_once_without_a_warning(learner_client, quiz):
    attempt = start(learner_client, quiz)
    question = quiz.questions.get(position=1)
    pick = {"choice": correct_choice(question).pk}
    learner_client.post(step_url(attempt, 1), pick, **HX)

    response = learner_client.post(step_url(attempt, 1), pick, **HX)  # a double click

    assert "Correct." in response.content.decode()
    assert "already answered" not in response.content.decode()
    assert Answer.objects.count() == 1


def test_an_error_during_an_htmx_request_reloads_the_page_instead_of_swapping_it_in(
    learner_client, other_learner, quiz
):
    theirs = attempt_start(user=other_learner, quiz=quiz)

    response = learner_client.get(step_url(theirs, 1), **HX)

    assert response.status_code == 404
    assert response["HX-Refresh"] == "true" and response.content == b""
    assert "HX-Request" in response["Vary"]
    plain = learner_client.get(step_url(theirs, 1))
    assert plain.status_code == 404 and "<html" in plain.content.decode()


@pytest.mark.parametrize(
    "bad_choice", ["", "abc", "-1", "0", "1.5", "9" * 40, "1; DROP TABLE", "١"]
)
def test_a_malformed_choice_gets_a_clear_message_and_changes_nothing(
    learner_client, quiz, bad_choice
):
    attempt = start(learner_client, quiz)
    response = learner_client.post(step_url(attempt, 1), {"choice": bad_choice})
    assert response.status_code == 422
    assert "error-summary" in response.content.decode()
    assert not Answer.objects.exists()


def test_a_missing_choice_asks_the_learner_to_choose(learner_client, quiz):
    attempt = start(learner_client, quiz)
    response = learner_client.post(step_url(attempt, 1), {}, **HX)
    assert response.status_code == 422
    assert "Choose an answer before submitting." in response.content.decode()
    assert is_fragment(response.content.decode())


def test_a_choice_of_another_question_is_refused(learner_client, quiz):
    attempt = start(learner_client, quiz)
    other = quiz.questions.get(position=2)
    response = learner_client.post(step_url(attempt, 1), {"choice": correct_choice(other).pk})
    assert response.status_code == 409
    assert "Choose one of this question" in response.content.decode()
    assert not Answer.objects.exists()


def test_a_finished_attempt_accepts_no_more_answers(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.all():
        post_answer(attempt, question, choice=wrong_choice(question))
    client = Client()
    client.force_login(learner)
    question = quiz.questions.get(position=1)
    response = client.post(step_url(attempt, 1), {"choice": correct_choice(question).pk})
    attempt.refresh_from_db()
    assert attempt.score == 0
    assert not Answer.objects.filter(is_correct=True).exists()
    assert response.status_code in (200, 302)


def test_learner_cannot_open_another_learners_attempt(learner_client, other_learner, quiz):
    theirs = attempt_start(user=other_learner, quiz=quiz)
    question = quiz.questions.get(position=1)
    for url in [
        f"/en/attempts/{theirs.pk}/",
        step_url(theirs, 1),
        f"/en/attempts/{theirs.pk}/result/",
    ]:
        assert learner_client.get(url).status_code == 404
    response = learner_client.post(step_url(theirs, 1), {"choice": correct_choice(question).pk})
    assert response.status_code == 404
    assert not Answer.objects.exists()


@pytest.mark.parametrize("pk", [2**63 - 1, 2**63, 10**30])
def test_an_attempt_number_too_large_for_any_row_is_not_found(learner_client, pk):
    for url in [f"/en/attempts/{pk}/", f"/en/attempts/{pk}/questions/1/"]:
        assert learner_client.get(url).status_code == 404
        assert learner_client.get(url, HTTP_HX_REQUEST="true").status_code == 404
    assert learner_client.post(f"/en/attempts/{pk}/questions/1/", {"choice": 1}).status_code == 404
    assert not Answer.objects.exists()


def test_an_unpublished_quiz_cannot_be_seen_or_started(learner_client):
    draft = make_quiz(is_published=False)
    assert learner_client.get(f"/en/quizzes/{draft.slug}/").status_code == 404
    assert learner_client.post(f"/en/quizzes/{draft.slug}/start/").status_code == 404
    assert draft.title_en not in learner_client.get("/en/").content.decode()
    assert not Attempt.objects.exists()


def test_anonymous_visitors_browse_but_must_sign_in_to_start(client, quiz):
    assert client.get("/en/").status_code == 200
    page = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "Sign in to start" in page
    response = client.post(f"/en/quizzes/{quiz.slug}/start/")
    assert response.status_code == 302
    assert response["Location"].startswith("/en/accounts/login/?next=")
    response = client.post(
        f"/en/quizzes/{quiz.slug}/start/",
        HTTP_HX_CURRENT_URL=f"http://testserver/en/quizzes/{quiz.slug}/",
        **HX,
    )
    assert response["HX-Redirect"] == f"/en/accounts/login/?next=/en/quizzes/{quiz.slug}/"
    assert not Attempt.objects.exists()


def test_opening_the_start_address_goes_to_the_quiz_page_and_starts_nothing(client, learner, quiz):
    """Only the Start form's POST starts. A reload, a bookmark, or the way back from signing
    in after the session ended on the quiz page (without JavaScript, sign-in returns to the
    address the form was sent to) lands on the quiz page, not on an empty error."""
    start = f"/en/quizzes/{quiz.slug}/start/"
    assert client.post(start)["Location"].startswith("/en/accounts/login/?next=")
    assert client.get(start)["Location"] == f"/en/quizzes/{quiz.slug}/"
    client.force_login(learner)
    for response in (client.get(start), client.head(start)):
        assert response.status_code == 302
        assert response["Location"] == f"/en/quizzes/{quiz.slug}/"
    assert "Start quiz" in client.get(start, follow=True).content.decode()
    assert not Attempt.objects.exists()
    assert client.put(start).status_code == 405


def test_a_learner_whose_session_ended_signs_in_again_to_the_step_they_asked_for(
    client, learner, quiz
):
    attempt = attempt_start(user=learner, quiz=quiz)
    # Signed out elsewhere, the learner presses Next on question 1's feedback.
    response = client.get(
        step_url(attempt, 2), HTTP_HX_CURRENT_URL="http://testserver" + step_url(attempt, 1), **HX
    )
    assert response["HX-Redirect"] == f"/en/accounts/login/?next={step_url(attempt, 2)}"


def test_nothing_before_an_answer_reveals_the_correct_choice_or_the_explanation(
    learner_client, quiz
):
    attempt = start(learner_client, quiz)
    question = quiz.questions.get(position=1)
    pages = [
        learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode(),
        learner_client.get(step_url(attempt, 1)).content.decode(),
        learner_client.get(step_url(attempt, 1), **HX).content.decode(),
    ]
    for html in pages:
        assert escape(question.explanation_en) not in html
        assert "correct" not in html.lower().replace("correct.", "")
        # Choices are listed in their own order with nothing to tell them apart.
        assert "choice--correct" not in html and "is_correct" not in html


class _ChoiceMarkup(HTMLParser):
    """Each child of the element with id="id_choice" (the choices), as a list of its tags,
    attributes and texts."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside the choices: 1 is the container, 2 a choice
        self.choices: list[list] = []

    def handle_starttag(self, tag, attrs):
        if self.depth == 0 and ("id", "id_choice") in attrs:
            self.depth = 1
        elif self.depth:
            if self.depth == 1:
                self.choices.append([])
            self.choices[-1].append((tag, sorted(attrs, key=str)))
            if tag not in {"input", "br", "img"}:  # void elements have no end tag
                self.depth += 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth > 1 and data.strip():
            self.choices[-1].append(data.strip())


def _choice_markup(html: str, question: Question) -> list[list]:
    """The choices' markup with each choice's own id, value and text replaced by placeholders."""
    parser = _ChoiceMarkup()
    parser.feed(html)
    own = {str(c.pk): "PK" for c in question.choices.all()}
    own |= {c.text_en: "TEXT" for c in question.choices.all()}
    return [
        [
            own.get(item, item)
            if isinstance(item, str)
            else (item[0], [(name, own.get(value, value)) for name, value in item[1]])
            for item in choice
        ]
        for choice in parser.choices
    ]


def test_every_choice_has_the_same_markup_but_its_value_and_text(learner_client, quiz):
    # So that no attribute, class or pre-checked box tells the correct choice apart.
    attempt = start(learner_client, quiz)
    question = quiz.questions.get(position=1)
    for html in (
        learner_client.get(step_url(attempt, 1)).content.decode(),
        learner_client.get(step_url(attempt, 1), **HX).content.decode(),
    ):
        choices = _choice_markup(html, question)
        assert len(choices) == question.choices.count() == 4
        assert all(choice == choices[0] for choice in choices), choices
        assert ("PK" in str(choices[0])) and ("TEXT" in choices[0])


def test_the_quiz_page_previews_every_question_and_links_its_guide(learner_client, seed_quizzes):
    quiz = Quiz.objects.get(slug="activation-recomputation")
    page = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "8 questions" in page and "Medium level" in page
    assert quiz.guide.url in page
    for question in Question.objects.filter(quiz=quiz):
        assert escape(question.prompt_en) in page
        assert escape(question.explanation_en) not in page


def test_the_catalog_shows_each_learners_own_state(learner, quiz):
    other_quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=other_quiz)
    for question in other_quiz.questions.all():
        post_answer(attempt, question, choice=correct_choice(question))
    attempt_start(user=learner, quiz=quiz)
    client = Client()
    client.force_login(learner)
    page = client.get("/en/").content.decode()
    assert "In progress" in page and "Best score: 2 / 2" in page

    stranger = Client()
    stranger.force_login(make_user())
    page = stranger.get("/en/").content.decode()
    assert "Not started" in page and "Best score" not in page


def test_the_catalogs_best_score_is_out_of_the_questions_that_attempt_had(learner, quiz):
    def finish(right: int) -> None:
        attempt = attempt_start(user=learner, quiz=quiz)
        for number, question in enumerate(quiz.questions.order_by("position"), 1):
            pick = correct_choice(question) if number <= right else wrong_choice(question)
            post_answer(attempt, question, choice=pick)

    finish(right=3)  # 3 / 3, then the instructor adds a question
    add_question(quiz, 4)
    quiz.refresh_from_db()  # the new version, as the next request reads it
    finish(right=3)  # 3 / 4: the same score, a lower share
    client = Client()
    client.force_login(learner)

    page = client.get("/en/").content.decode()

    assert "Best score: 3 / 3" in page


def test_a_choices_own_feedback_appears_only_once_that_choice_is_answered(learner_client, quiz):
    question = quiz.questions.get(position=1)
    picked = wrong_choice(question)
    picked.feedback_en = "Tempting, but this confuses data with state."
    picked.save()
    content_changed(quiz=quiz)
    attempt = start(learner_client, quiz)
    before = learner_client.get(step_url(attempt, 1)).content.decode()
    assert "Tempting, but" not in before
    learner_client.post(step_url(attempt, 1), {"choice": picked.pk})
    after = learner_client.get(step_url(attempt, 1)).content.decode()
    assert "Tempting, but this confuses data with state." in after


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_question_without_an_explanation_shows_no_empty_why_heading(learner, language):
    quiz = make_quiz(questions=2)
    unexplained, explained = quiz.questions.order_by("position")
    Question.objects.filter(pk=unexplained.pk).update(explanation_en="", explanation_ar="")
    content_changed(quiz=quiz)
    attempt = attempt_start(user=learner, quiz=quiz)
    client = Client()
    client.force_login(learner)
    pages = []
    for number, question in enumerate((unexplained, explained), start=1):
        post_answer(attempt, question, choice=correct_choice(question))
        pages.append(
            client.get(f"/{language}/attempts/{attempt.pk}/questions/{number}/").content.decode()
        )
    result = client.get(f"/{language}/attempts/{attempt.pk}/result/").content.decode()

    assert "explanation__title" not in pages[0]
    assert "explanation__title" in pages[1]
    assert result.count('class="explanation"') == 1
