"""A/B of the step's engine, CPU per request in one process (bench/cpu.py's site and phases),
the variants interleaved round by round (their order alternating) so that a busy machine
weighs on both alike.

  python -m bench.ab reader   the step's literal SQL read (A) against the ORM's (B)
  python -m bench.ab card     the review card read with the attempt (A) / by card_of (B)
  python -m bench.ab all      both (A) against neither (B)

Prints, per phase and variant, the median CPU per request, B's change against A, and each
round's medians. (Issue 51 also measured an answer's lone INSERT without a transaction
against one in BEGIN/COMMIT, with this script's version at 18a7c0a: the transaction cost
-3.2 %, +0.8 % and -2.8 % on question, page and answer; the skip went.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import cpu


def _orm_read():
    """B for `reader`: attempt_read through the ORM (the attempt with its version, then its
    answers; answering, the card by its own statement)."""
    from django.db.models import F

    from quizzes.attempts import state as module
    from quizzes.models import Answer, Attempt, ReviewCard

    def attempt_read(*, user_id, attempt_id, answering=False, question_id=None):
        if not 0 < attempt_id <= module._LARGEST_ID:
            return None
        if question_id is not None and not 0 < question_id <= module._LARGEST_ID:
            question_id = None
        attempt = (
            Attempt.objects.filter(pk=attempt_id, user_id=user_id)
            .annotate(version=F("quiz__updated_at"))
            .first()
        )
        if attempt is None:
            return None
        row = module.AttemptRow.of(attempt)
        content = module.quiz_content_of(quiz_id=row.quiz_id, version=attempt.version)
        state = module.state_of(row, content, Answer.objects.filter(attempt_id=row.pk).order_by())
        if not answering or question_id is None:
            return state, None
        card = ReviewCard.objects.filter(user_id=user_id, question_id=question_id).first()
        return state, module.CardRead(question_id=question_id, card=card)

    return attempt_read


def variants(experiment: str) -> dict[str, Callable[[], None]]:
    """Per variant, a function that puts it in place (each undoes the other's patches)."""
    from quizzes.attempts import services

    literal_read = services.attempt_read
    orm_read = _orm_read()

    def without_card(read):
        """The read as `read`, with no card: writes.record reads it by card_of."""

        def reading(**kwargs):
            got = read(**kwargs)
            return None if got is None else (got[0], None)

        return reading

    def use(read):
        return lambda: setattr(services, "attempt_read", read)

    chosen = {
        "reader": {"A literal SQL": use(literal_read), "B ORM": use(orm_read)},
        "card": {
            "A with the read": use(literal_read),
            "B card_of": use(without_card(literal_read)),
        },
        "all": {"A both": use(literal_read), "B neither": use(without_card(orm_read))},
    }
    if experiment not in chosen:
        raise SystemExit(f"unknown experiment {experiment}")
    return chosen[experiment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("experiment", choices=["reader", "card", "all"])
    parser.add_argument("--requests", type=int, default=200, help="per phase, variant and round")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--phases", default="question,page,answer")
    args = parser.parse_args()
    names = args.phases.split(",")

    with cpu.served() as site:
        learners = cpu.Learners(site, count=4000)
        runs = cpu.phases(site, learners, args.requests)
        chosen = variants(args.experiment)
        for apply in chosen.values():  # warm both
            apply()
            for name in names:
                for _ in range(30):
                    next(runs[name])
        samples = {(v, n): [] for v in chosen for n in names}
        for _round in range(args.rounds):
            order = list(chosen.items())
            if _round % 2:
                order.reverse()
            for variant, apply in order:
                apply()
                for name in names:
                    samples[variant, name].extend(next(runs[name]) for _ in range(args.requests))
        first, second = list(chosen)
        for name in names:
            a = statistics.median(samples[first, name]) * 1000
            b = statistics.median(samples[second, name]) * 1000
            print(f"{name:9} {first}: {a:6.3f} ms   {second}: {b:6.3f} ms   B/A {b / a - 1:+6.1%}")
        for (variant, name), values in samples.items():
            size = args.requests
            medians = [
                statistics.median(values[i * size : (i + 1) * size]) * 1000
                for i in range(args.rounds)
            ]
            print(f"  {name:9} {variant:18} per round: {' '.join(f'{m:.3f}' for m in medians)}")


if __name__ == "__main__":
    main()
