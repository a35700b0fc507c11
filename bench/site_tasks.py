"""Benchmark tasks run inside the site's environment: `python bench/site_tasks.py COMMAND`.

  prepare          collectstatic, migrate and seed_quizzes, in one process
  create N PREFIX  N learners, each signed in: prints [{"username", "session"}] as JSON
  content          the published quizzes of choice questions only: {slug: [[choice id, ...]
                   per question, correct ids]}
  verify           every finished attempt scored from its own answers: prints a summary
  scores FILE      {pk: score (a decimal, as a string) or null if unfinished} for the
                   attempt ids listed in FILE
  edit SLUG N TEXT question N's English prompt becomes TEXT, saved as the admin saves it
  catalog N [PREFIX]  N more published quizzes (bulk_create) over 50 guides, and progress
                   on them for the first learners (those named PREFIX…, "learner" unless
                   given): prints {"quizzes", "attempts"}
  two-factor NAME PASSWORD  a learner NAME with an authenticator app: prints {"secret"}

Learners get sessions the way Django's test client's force_login makes them (the session
engine's store, so cached_db writes the database and Redis): signing in a thousand learners
through the form would spend minutes hashing one password, which is not what is measured.
One learner of each run does sign up and take a quiz through the real forms (benchmark.py).
"""

from __future__ import annotations

import io
import json
import os
import sys
from importlib import import_module
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the project, not bench/
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import (  # noqa: E402
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
)
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count, Q  # noqa: E402
from django.utils import timezone  # noqa: E402

from quizzes.content import content_changed  # noqa: E402
from quizzes.models import Attempt, Guide, Question, Quiz  # noqa: E402
from quizzes.search import search_text_for  # noqa: E402

# Words the generated quizzes are titled with, so that searches find some and not all.
TOPICS = [
    ("gradient checkpointing", "حفظ نقاط التنشيط"),
    ("optimizer states", "حالاتُ المُحسِّن"),
    ("tensor parallelism", "التوازي الموتّري"),
    ("mixed precision", "الدقة العددية المختلطة"),
    ("pipeline bubbles", "فقاعات خط الأنابيب"),
    ("sharding", "التجزئة"),
    ("offloading", "التفريغ إلى الذاكرة"),
    ("attention kernels", "أنوية الانتباه"),
    ("activation memory", "ذاكرة التنشيطات"),
    ("gradient accumulation", "تراكم التدرّجات"),
]


def prepare() -> dict[str, str]:
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", interactive=False, verbosity=0)
    call_command("seed_quizzes", verbosity=0, stdout=io.StringIO())
    return {"prepared": str(settings.STATIC_ROOT)}


def create(count: int, prefix: str) -> list[dict[str, str]]:
    User = get_user_model()
    password = make_password(f"{prefix}-bench-passphrase")  # hashed once, shared
    users = User.objects.bulk_create(
        User(username=f"{prefix}{n:05d}", password=password) for n in range(count)
    )
    if not all(user.pk for user in users):  # backends without RETURNING
        users = list(User.objects.filter(username__startswith=prefix).order_by("username"))
    store = import_module(settings.SESSION_ENGINE).SessionStore
    learners = []
    for user in users:
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.SIGN_IN_BACKEND
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        learners.append({"username": user.username, "session": session.session_key})
    return learners


def content() -> dict[str, dict[str, list]]:
    """The published quizzes whose questions are all answered by picking a choice (the
    benchmarks post choices; a quiz with typed, matched or ordered questions is left out)."""
    quizzes = {}
    for quiz in Quiz.objects.published().prefetch_related("questions__choices"):
        questions = sorted(quiz.questions.all(), key=lambda q: q.position)
        if not all(q.has_choices for q in questions):
            continue
        quizzes[quiz.slug] = {
            "questions": [q.pk for q in questions],
            "choices": [
                [c.pk for c in sorted(q.choices.all(), key=lambda c: c.position)] for q in questions
            ],
            "correct": [next(c.pk for c in q.choices.all() if c.is_correct) for q in questions],
        }
    return quizzes


def verify() -> dict[str, int]:
    finished = Attempt.objects.finished().annotate(
        answered=Count("answers"), right=Count("answers", filter=Q(answers__is_correct=True))
    )
    return {
        "finished": finished.count(),
        "in_progress": Attempt.objects.in_progress().count(),
        "answers": sum(a.answered for a in finished),
        "misscored": sum(1 for a in finished if a.score != a.right or a.total != a.answered),
        "score_sum": sum(a.score for a in finished),
    }


def scores(path: str) -> dict[str, str | None]:
    """Marks are decimals (partial credit): written exactly, as strings."""
    pks = json.loads(Path(path).read_text())
    found = Attempt.objects.filter(pk__in=pks).values_list("pk", "finished_at", "score")
    return {str(pk): (str(score) if finished else None) for pk, finished, score in found}


def edit(slug: str, position: int, prompt: str) -> dict[str, str]:
    question = Question.objects.get(quiz__slug=slug, position=position)
    question.prompt_en = prompt
    question.save()
    content_changed(quiz=question.quiz)  # a new content version: every process's cache misses it
    return {"edited": str(question)}


def catalog(count: int, prefix: str = "learner") -> dict[str, int]:
    """`count` published quizzes of two questions each, over 50 guides, and attempts on them
    (finished and in progress) for the first 40 learners named `prefix`…, as a growing site
    would have."""
    guides = Guide.objects.bulk_create(
        Guide(
            slug=f"bench-guide-{n}",
            title_en=f"Bench guide {n}",
            title_ar=f"دليل القياس {n}",
            url=f"https://example.org/bench/{n}",
        )
        for n in range(50)
    )
    if not all(guide.pk for guide in guides):
        guides = list(Guide.objects.filter(slug__startswith="bench-guide-").order_by("pk"))
    difficulties = list(Quiz.Difficulty.values)
    quizzes = []
    for n in range(count):
        english, arabic = TOPICS[n % len(TOPICS)]
        quizzes.append(
            Quiz(
                slug=f"bench-quiz-{n:05d}",
                title_en=f"{english.capitalize()}, part {n}",
                title_ar=f"{arabic}، الجزء {n}",
                description_en=f"Quiz {n} of the bench on {english}.",
                description_ar=f"الاختبار {n} من اختبارات القياس عن {arabic}.",
                difficulty=difficulties[n % 3],
                guide=guides[n % len(guides)],
                guide_position=n // len(guides) + 1,
                is_published=True,
            )
        )
    for quiz in quizzes:
        quiz.search_text = search_text_for(quiz)  # what Quiz.save() does, bulk_create not
    Quiz.objects.bulk_create(quizzes, batch_size=1000)
    made = Quiz.objects.filter(slug__startswith="bench-quiz-")
    ids = list(made.order_by("pk").values_list("pk", flat=True))
    Question.objects.bulk_create(
        (
            Question(quiz_id=pk, position=position, prompt_en="?", explanation_en=".")
            for pk in ids
            for position in (1, 2)
        ),
        batch_size=2000,
    )
    content_changed(quiz=made)  # as an import does: the catalog's generation moves
    now = timezone.now()
    learners = get_user_model().objects.filter(username__startswith=prefix).order_by("pk")
    attempts = []
    for number, user in enumerate(learners[:40]):
        for k in range(30):
            finished = k % 3 != 0
            attempts.append(
                Attempt(
                    user=user,
                    quiz_id=ids[(number * 37 + k * 11) % len(ids)],
                    started_at=now,
                    finished_at=now if finished else None,
                    score=k % 3,
                    total=2 if finished else 0,
                )
            )
    Attempt.objects.bulk_create(attempts, batch_size=1000)
    if connection.vendor == "postgresql":
        # What autovacuum does soon after on a live site: statistics for the planner, and
        # the visibility map that lets counts read indexes alone.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE quizzes_quiz, quizzes_question, quizzes_attempt")
    return {"quizzes": len(ids), "attempts": len(attempts)}


def two_factor(username: str, password: str) -> dict[str, str]:
    """A learner who signs in with a password and an authenticator app's code."""
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    user = get_user_model().objects.create_user(username=username, password=password)
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return {"secret": secret}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "prepare":
        result = prepare()
    elif command == "create":
        result = create(int(args[0]), args[1])
    elif command == "content":
        result = content()
    elif command == "verify":
        result = verify()
    elif command == "scores":
        result = scores(args[0])
    elif command == "catalog":
        result = catalog(int(args[0]), *args[1:2])
    elif command == "two-factor":
        result = two_factor(args[0], args[1])
    elif command == "edit":
        result = edit(args[0], int(args[1]), args[2])
    else:
        raise SystemExit(f"unknown command {command!r}")
    json.dump(result, sys.stdout, default=str)  # decimal scores as exact strings
