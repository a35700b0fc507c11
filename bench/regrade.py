"""Benchmark: a regrade of one quiz's 100,000 answers after its keys were fixed (target: under
60 seconds on PostgreSQL), preview and application as the worker's task runs them.

    .venv/bin/python bench/regrade.py [--answers N] [--questions K] [--max-seconds S]

The answers come from bench/item_analysis.py's generator (bulk inserts: learners of varied
ability, one finished attempt each), in a throwaway SQLite database or the database of
DATABASE_URL (rolled back afterwards). Then every question's key is fixed (the second choice
is the right one, not the first), so that every answer that picked either changes: the
worst case, about half of all answers, with the review cards they move. Prints one line:

    bench: regrade of N answers (C changed, A attempts): S s (preview P s, apply Q s)

and exits 1 if --max-seconds is given and exceeded. The whole run is bounded by --timeout.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import bench.* from the project folder
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.item_analysis import generate, setup_django


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100_000, help="Answers regraded.")
    parser.add_argument("--questions", type=int, default=20, help="Questions in the quiz.")
    parser.add_argument("--max-seconds", type=float, help="Exit 1 if the regrade is slower.")
    parser.add_argument("--timeout", type=int, default=900, help="Give up after this long.")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    signal.alarm(args.timeout)
    scratch = setup_django()
    from django.db import connection, transaction

    from quizzes.attempts.regrade import regrade_apply, regrade_preview
    from quizzes.content import content_changed
    from quizzes.models import Answer, Choice

    class Rollback(Exception):
        pass

    try:
        with transaction.atomic():
            quiz = generate(
                answers=args.answers,
                questions=args.questions,
                retakes=0,
                rng=random.Random(2024),
            )
            answers = Answer.objects.filter(attempt__quiz=quiz).count()
            Choice.objects.filter(question__quiz=quiz).update(is_correct=False, fraction=0)
            Choice.objects.filter(question__quiz=quiz, position=2).update(
                is_correct=True, fraction=1
            )
            content_changed(quiz=quiz)
            started = time.perf_counter()
            preview = regrade_preview(quiz=quiz)
            previewed = time.perf_counter()
            regrade = regrade_apply(preview=preview)
            applied = time.perf_counter()
            assert regrade.answers_changed == preview.answer_count
            print(
                f"bench: regrade of {answers} answers ({regrade.answers_changed} changed, "
                f"{regrade.attempts_changed} attempts) on {connection.vendor}: "
                f"{applied - started:.1f} s (preview {previewed - started:.1f} s, "
                f"apply {applied - previewed:.1f} s)"
            )
            raise Rollback
    except Rollback:
        pass
    finally:
        if scratch is not None:
            scratch.cleanup()
    seconds = applied - started
    if args.max_seconds is not None and seconds > args.max_seconds:
        print(f"bench: slower than {args.max_seconds} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
