"""The step path's shared parts: an attempt read in one statement with its quiz content found
by (quiz id, version), and the parts of a step every learner sees alike rendered once per
content version, language, order of choices and answer (quizzes/fragments.py)."""

import pytest
from django.test import Client
from django.utils import translation

from quizzes import fragments
from quizzes.attempts import answer_record, attempt_of_learner, attempt_start
from quizzes.content import quiz_touch
from quizzes.models import Question
from tests.factories import correct_choice, make_quiz, make_user, wrong_choice

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def step(attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


@pytest.fixture
def renders(monkeypatch):
    """The partials that fragments.py renders, in order (the real rendering runs)."""
    rendered: list[str] = []
    real = fragments.render_to_string

    def counting(name, context=None, *args, **kwargs):
        rendered.append(name.split("#")[1])
        return real(name, context, *args, **kwargs)

    monkeypatch.setattr(fragments, "render_to_string", counting)
    return rendered


def test_an_attempt_is_read_with_its_answers_in_one_statement_and_no_quiz_row(
    django_assert_num_queries,
):
    learner = make_user()
    quiz = make_quiz(questions=3)
    attempt = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    answer_record(attempt=attempt, question=first, choice_id=wrong_choice(first).pk)
    attempt_of_learner(user=learner, pk=attempt.pk)  # the content version, cached
    guide_title = quiz.guide.title_en
    in_order = list(quiz.questions.order_by("position").values_list("pk", flat=True))
    picked = wrong_choice(first).text_en

    with django_assert_num_queries(1):
        state = attempt_of_learner(user=learner, pk=attempt.pk)
        assert state is not None
        assert state.attempt.quiz.guide.title_en == guide_title
        assert [q.pk for q in state.content.questions] == in_order
        answer = state.answer_for(first)
        assert answer is not None and not answer.is_correct
        assert answer.choice.text_en == picked
    assert state.current_number == 2
    assert state.attempt.started_at == attempt.started_at


def test_another_learners_attempt_reads_as_none():
    owner, stranger = make_user(), make_user()
    attempt = attempt_start(user=owner, quiz=make_quiz())
    assert attempt_of_learner(user=stranger, pk=attempt.pk) is None
    assert attempt_of_learner(user=owner, pk=attempt.pk + 1000) is None


def test_an_edit_reaches_the_next_step_read():
    learner = make_user()
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    attempt_of_learner(user=learner, pk=attempt.pk)
    Question.objects.filter(quiz=quiz, position=1).update(prompt_en="Edited prompt")
    quiz_touch(quiz)
    state = attempt_of_learner(user=learner, pk=attempt.pk)
    assert state is not None and state.content.at(1).prompt_en == "Edited prompt"


def test_a_questions_fields_are_rendered_once_for_every_learner_per_version(renders):
    quiz = make_quiz(questions=2)
    learners = [make_user(), make_user()]
    pages = []
    for learner in learners:
        attempt = attempt_start(user=learner, quiz=quiz)
        client = signed_in(learner)
        pages.append(client.get(step(attempt, 1), **HX).content.decode())
        client.get(step(attempt, 1), **HX)
    assert renders == ["question_fields"]
    first = quiz.questions.get(position=1)
    assert all(f'value="{correct_choice(first).pk}"' in page for page in pages)
    # Each page has its own form: its own attempt's address around the shared fields.
    assert all(
        f'action="{step(attempt, 1)}"' in page
        for page, attempt in zip(
            pages, [learner.attempts.get() for learner in learners], strict=True
        )
    )

    Question.objects.filter(pk=first.pk).update(prompt_en="A new prompt")
    quiz_touch(quiz)
    attempt = learners[0].attempts.get()
    page = signed_in(learners[0]).get(step(attempt, 1), **HX).content.decode()
    assert renders == ["question_fields", "question_fields"]
    assert "A new prompt" in page


def test_fields_in_another_language_or_order_are_their_own(renders):
    quiz = make_quiz(questions=1, shuffle_choices=True)
    learner = make_user()
    attempt = attempt_start(user=learner, quiz=quiz)
    client = signed_in(learner)
    english = client.get(step(attempt, 1), **HX).content.decode()
    arabic = client.get(f"/ar/attempts/{attempt.pk}/questions/1/", **HX).content.decode()
    question = quiz.questions.get()
    assert question.prompt_en in english and question.prompt_ar in arabic
    assert renders == ["question_fields", "question_fields"]

    order = [int(pk) for pk in reversed(attempt.choice_order[str(question.pk)])]
    with translation.override("en"):
        shared = fragments.question_fields(
            question=question,
            choices=sorted(question.choices.all(), key=lambda c: order.index(c.pk)),
        )
    assert renders[-1] == "question_fields" and len(renders) == 3
    assert shared.index(f'value="{order[0]}"') < shared.index(f'value="{order[-1]}"')


def test_learners_who_answer_alike_share_a_feedback_and_unlike_do_not(renders):
    quiz = make_quiz(questions=2)
    question = quiz.questions.get(position=1)
    picks = [correct_choice(question), wrong_choice(question), correct_choice(question)]
    verdicts = []
    for pick in picks:
        learner = make_user()
        attempt = attempt_start(user=learner, quiz=quiz)
        response = signed_in(learner).post(step(attempt, 1), {"choice": pick.pk}, **HX)
        assert response.status_code == 200
        page = response.content.decode()
        verdicts.append(
            "Correct." if "Correct." in page else "Not quite." if "Not quite." in page else None
        )
        # Each learner's own report link, around the shared body.
        assert f"?next={step(attempt, 1)}" in page
    assert verdicts == ["Correct.", "Not quite.", "Correct."]
    assert renders.count("feedback_body") == 2  # the right answer's body served twice
