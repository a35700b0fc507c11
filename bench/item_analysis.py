"""Benchmark: item analysis of one quiz with 100,000 answers (target: under 2 seconds).

    .venv/bin/python bench/item_analysis.py [--answers N] [--questions K] [--max-seconds S]

Uses a throwaway SQLite database, or the database of DATABASE_URL when it is set (which is
migrated, and left as it was: the generated data is rolled back). Learners of varied
ability answer questions of varied difficulty, so that the statistics are not degenerate;
some retake the quiz, so that picking first attempts has work to do. Prints one line:

    bench: item analysis N answers in S s

and exits 1 if --max-seconds is given and exceeded. The whole run is bounded by --timeout.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100_000, help="Answers analysed.")
    parser.add_argument("--questions", type=int, default=20, help="Questions in the quiz.")
    parser.add_argument("--retakes", type=float, default=0.05, help="Share of learners who retake.")
    parser.add_argument("--max-seconds", type=float, help="Exit 1 if the analysis is slower.")
    parser.add_argument("--timeout", type=int, default=300, help="Give up after this long.")
    return parser.parse_args()


def setup_django() -> tempfile.TemporaryDirectory | None:
    sys.path.insert(0, str(ROOT))
    scratch = None
    if not os.environ.get("DATABASE_URL"):
        scratch = tempfile.TemporaryDirectory(prefix="daleel-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return scratch


def generate(*, answers: int, questions: int, retakes: float, rng: random.Random):
    """A quiz answered `answers` times in first attempts, plus some retakes; returns it."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from quizzes.models import Answer, Attempt, Choice, Guide, Question, Quiz

    guide = Guide.objects.create(
        slug="bench-guide", title_en="Bench", title_ar="قياس", url="https://example.org/"
    )
    quiz = Quiz.objects.create(slug="bench-quiz", title_en="Bench quiz", guide=guide)
    question_objs = Question.objects.bulk_create(
        Question(quiz=quiz, position=n, prompt_en=f"Q{n}?", explanation_en="Because.")
        for n in range(1, questions + 1)
    )
    choices = Choice.objects.bulk_create(
        Choice(
            question=question, position=p, text_en=f"{p}", is_correct=p == 1, fraction=int(p == 1)
        )
        for question in question_objs
        for p in range(1, 5)
    )
    by_question = {q.pk: [c for c in choices if c.question_id == q.pk] for q in question_objs}
    difficulty = {q.pk: rng.gauss(0, 1) for q in question_objs}

    learners = answers // questions
    User = get_user_model()
    users = User.objects.bulk_create(
        (User(username=f"bench-{n}", password="!") for n in range(learners)), batch_size=2000
    )
    now = timezone.now()
    takers = users + rng.sample(users, int(len(users) * retakes))
    attempts = Attempt.objects.bulk_create(
        (
            Attempt(
                user=user,
                quiz=quiz,
                started_at=now - timedelta(days=2 if n < learners else 1),
                finished_at=now - timedelta(days=2 if n < learners else 1) + timedelta(minutes=9),
                total=questions,
            )
            for n, user in enumerate(takers)
        ),
        batch_size=2000,
    )
    ability = {user.pk: rng.gauss(0, 1) for user in users}
    rows = []
    for attempt in attempts:
        for question in question_objs:
            right, *wrong = by_question[question.pk]
            p = 1 / (1 + math.exp(difficulty[question.pk] - ability[attempt.user_id]))
            chosen = right if rng.random() < p else rng.choice(wrong)
            rows.append(
                Answer(
                    attempt=attempt,
                    question=question,
                    choice=chosen,
                    correct_choice=right,
                    is_correct=chosen is right,
                    fraction=int(chosen is right),
                    answered_at=attempt.started_at,
                )
            )
    Answer.objects.bulk_create(rows, batch_size=5000)
    return quiz


def main() -> int:
    args = parse_args()
    # A safety net: the benchmark must never hang a CI run.
    signal.alarm(args.timeout)
    scratch = setup_django()
    from django.db import transaction

    from quizzes.instructors.item_analysis import item_analysis

    try:
        with transaction.atomic():
            quiz = generate(
                answers=args.answers,
                questions=args.questions,
                retakes=args.retakes,
                rng=random.Random(2024),
            )
            started = time.perf_counter()
            analysis = item_analysis(quiz)
            elapsed = time.perf_counter() - started
            analysed = sum(item.answers for item in analysis.items)
            # Leave a DATABASE_URL database as it was.
            transaction.set_rollback(True)
    finally:
        if scratch is not None:
            from django.db import connections

            connections.close_all()
            scratch.cleanup()
    print(f"bench: item analysis {analysed} answers in {elapsed:.2f} s")
    if args.max_seconds is not None and elapsed > args.max_seconds:
        print(f"bench: slower than {args.max_seconds} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
