"""The admin's "Duplicate" action: an unpublished copy with every question, choice and number."""

import pytest
from django.contrib.auth.models import Permission

from quizzes.attempts.services import attempt_start
from quizzes.models import Quiz
from tests.factories import make_mixed_quiz, make_typed_quiz, make_user

pytestmark = pytest.mark.django_db

CHANGELIST = "/en/admin/quizzes/quiz/"


def _duplicate(client, *quizzes):
    return client.post(
        CHANGELIST,
        {"action": "duplicate", "_selected_action": [str(quiz.pk) for quiz in quizzes]},
        follow=True,
    )


def _content(quiz):
    return [
        (
            q.position,
            q.kind,
            q.prompt_en,
            q.prompt_ar,
            q.explanation_en,
            [(c.position, c.text_en, c.text_ar, c.is_correct, c.fraction) for c in q.choices.all()],
            [(n.position, n.value, n.tolerance, n.fraction) for n in q.numerical_answers.all()],
        )
        for q in quiz.questions.order_by("position").prefetch_related(
            "choices", "numerical_answers"
        )
    ]


def test_a_quiz_is_duplicated_unpublished_with_all_its_content(instructor_client, learner):
    quiz = make_mixed_quiz(shuffle_choices=True, feedback=Quiz.Feedback.DEFERRED)
    attempt_start(user=learner, quiz=quiz)

    response = _duplicate(instructor_client, quiz)

    copy = Quiz.objects.get(slug=f"{quiz.slug}-copy")
    assert "unpublished: check it, then publish it" in response.content.decode()
    assert not copy.is_published and quiz.is_published
    assert (copy.title_en, copy.title_ar) == (f"{quiz.title_en} (copy)", f"{quiz.title_ar} (نسخة)")
    assert (copy.guide, copy.feedback, copy.shuffle_choices) == (
        quiz.guide,
        quiz.feedback,
        quiz.shuffle_choices,
    )
    assert _content(copy) == _content(quiz)
    assert not copy.attempts.exists() and quiz.attempts.count() == 1
    assert Quiz.objects.get(pk=quiz.pk).title_en == quiz.title_en  # the original untouched


def test_each_copy_gets_its_own_slug(instructor_client):
    quiz = make_mixed_quiz()
    _duplicate(instructor_client, quiz)
    _duplicate(instructor_client, quiz)
    assert set(Quiz.objects.values_list("slug", flat=True)) == {
        quiz.slug,
        f"{quiz.slug}-copy",
        f"{quiz.slug}-copy-2",
    }


def test_staff_who_may_not_add_quizzes_cannot_duplicate_one(client):
    quiz = make_mixed_quiz()
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_quiz"))
    client.force_login(viewer)
    page = client.get(CHANGELIST).content.decode()
    assert 'value="duplicate"' not in page
    _duplicate(client, quiz)
    assert Quiz.objects.count() == 1


def test_a_copy_keeps_the_accepted_answers_pairs_and_items_of_its_typed_questions(
    instructor_client,
):
    quiz = make_typed_quiz()

    _duplicate(instructor_client, quiz)

    copy = Quiz.objects.get(slug=f"{quiz.slug}-copy")

    def parts(quiz):
        short, matching, ordering = quiz.questions.order_by("position")
        return (
            [
                (t.position, t.text_en, t.text_ar, t.fraction, t.exact)
                for t in short.accepted_texts.order_by("position")
            ],
            [
                (p.position, p.prompt_en, p.prompt_ar, p.match_en, p.match_ar)
                for p in matching.pairs.order_by("position")
            ],
            [(i.position, i.text_en, i.text_ar) for i in ordering.order_items.order_by("position")],
        )

    assert parts(copy) == parts(quiz)
    assert all(parts(copy))
    # Its own rows, not the original's.
    assert not set(copy.questions.values_list("pk", flat=True)) & set(
        quiz.questions.values_list("pk", flat=True)
    )
