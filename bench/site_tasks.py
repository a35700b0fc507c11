"""Benchmark tasks run inside the site's environment: `python bench/site_tasks.py COMMAND`.

  prepare          collectstatic, migrate and seed_quizzes, in one process
  create N PREFIX  N learners, each signed in: prints [{"username", "session"}] as JSON
  content          the published quizzes: {slug: [[choice id, ...] per question, correct ids]}
  verify           every finished attempt scored from its own answers: prints a summary
  scores FILE      {pk: score or null if unfinished} for the attempt ids listed in FILE
  edit SLUG N TEXT question N's English prompt becomes TEXT, saved as the admin saves it

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
from django.db.models import Count, Q  # noqa: E402

from quizzes.content import quiz_touch  # noqa: E402
from quizzes.models import Attempt, Question, Quiz  # noqa: E402


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
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        learners.append({"username": user.username, "session": session.session_key})
    return learners


def content() -> dict[str, dict[str, list[int]]]:
    quizzes = {}
    for quiz in Quiz.objects.published().prefetch_related("questions__choices"):
        questions = sorted(quiz.questions.all(), key=lambda q: q.position)
        quizzes[quiz.slug] = {
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


def scores(path: str) -> dict[str, int | None]:
    pks = json.loads(Path(path).read_text())
    found = Attempt.objects.filter(pk__in=pks).values_list("pk", "finished_at", "score")
    return {str(pk): (score if finished else None) for pk, finished, score in found}


def edit(slug: str, position: int, prompt: str) -> dict[str, str]:
    question = Question.objects.get(quiz__slug=slug, position=position)
    question.prompt_en = prompt
    question.save()
    quiz_touch(question.quiz)  # a new content version: every process's cache misses it
    return {"edited": str(question)}


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
    elif command == "edit":
        result = edit(args[0], int(args[1]), args[2])
    else:
        raise SystemExit(f"unknown command {command!r}")
    json.dump(result, sys.stdout)
