"""`make bench-scale`: does a page's cost follow the page, or the data behind it? (issue 58)

Each measure is the same request at a small and a 100× larger size of the data behind it,
on the production settings (DEBUG off), a throwaway PostgreSQL and Redis, the site's WSGI
handler called in this process (bench/cpu.py's `served()` and `Site`):

  history         a learner's history (first page) with 20 → 2,000 attempts
  review          the review page (whole, with the navigation's badge) with 200 → 20,000 cards
  review-badge    the badge's read of the learner's due times, when its kept copy has expired
  statistics      the learner's review statistics, same cards
  export          the learner's data export (JSON) of all of the above: CPU and peak memory
  grades          an instructor's grades report, first page, quiz of 1,000 → 100,000 attempts
  grades-csv      the same report as CSV: CPU and peak memory
  item-analysis   the same quiz's item analysis: 10,000 → 1,000,000 answers
  learner-record  the instructor's view of a learner with one page of attempts (50, the
                  report's page) and of the 2,000-attempt learner: pages of as many rows

CPU per request is the site's whole: this process's CPU time (`time.process_time`) plus
PostgreSQL's (every server process's user and system time from /proc, with the processes it
has reaped, so parallel workers count too); requests are timed in batches (the kernel counts
in ticks of 10 ms) and the least of several rounds is kept, so that a busy machine weighs
little. Peak memory is the most Python allocated during the request (tracemalloc, measured in
a run of its own), the body consumed as a client saving a download would: chunk by chunk.

The data are written with COPY (learners, attempts, answers, review cards and answers) in a
minute or two; PostgreSQL then analyses the tables as autovacuum would on a live site.

Prints one line per measure, then memory lines, then the targets (the first and last forms
are contracts):

    bench: scale NAME small S ms large L ms ratio R
    bench: scale NAME-memory small S MB large L MB ratio R
    bench: scale targets met  |  bench: scale targets MISSED: …

Targets: a paged view (or one card) costs at most 1.5× at 100× the data; the CSV and the
export stream, their peak memory at most 1.5×; item analysis of 1,000,000 answers at most
5 s of CPU, and at most 100× the cost of 10,000 (linear at worst).

  python -m bench.scale [--rounds 3] [--only history,review] [--profile NAME]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import random
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import bench.* from the project folder
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import services
from bench.cpu import Site, served

# Sizes (small; the large is HUNDRED times more).
HUNDRED = 100
HISTORY_QUIZZES = 20  # the learner's quizzes: one attempt each, or a hundred
QUESTIONS_PER_ATTEMPT = 10
CARD_QUIZZES = 200  # × 100 questions: room for 20,000 cards, one per question
CARD_QUESTIONS = 100
SMALL_CARDS = 200
GRADES_QUESTIONS = 10
SMALL_GRADES_ATTEMPTS = 1_000  # × 10 questions: 10,000 answers
RETAKES = 0.2  # of a grades quiz's attempts, by learners who took it before

PAGED = ("history", "review", "review-badge", "statistics", "grades", "learner-record")
STREAMED = ("export", "grades-csv")
MAX_PAGED_RATIO = 1.5
MAX_MEMORY_RATIO = 1.5
MAX_ITEM_ANALYSIS_MS = 5000
MAX_ITEM_ANALYSIS_RATIO = 100


# -- data -------------------------------------------------------------------------------------


def _copy(table: str, columns: tuple[str, ...], rows: Iterator[tuple]) -> int:
    """COPY `rows` into `table` (text format, values already formatted); returns how many."""
    from django.db import connection

    count = 0
    connection.ensure_connection()
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    with connection.connection.cursor() as cursor, cursor.copy(statement) as copy:
        lines: list[str] = []
        for row in rows:
            lines.append("\t".join(row) + "\n")
            count += 1
            if len(lines) >= 20_000:
                copy.write("".join(lines))
                lines.clear()
        if lines:
            copy.write("".join(lines))
    return count


def _next_id(table: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}")
        return cursor.fetchone()[0]


def _move_sequence(table: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))"
        )


@dataclass
class QuizContent:
    pk: int
    questions: list[int]
    right: dict[int, int]  # question id → its right choice
    wrong: dict[int, list[int]]


def _quizzes(prefix: str, count: int, questions: int, choices: int) -> list[QuizContent]:
    """`count` published quizzes of `questions` single-choice questions (bulk_create)."""
    from quizzes.content import content_changed
    from quizzes.models import Choice, Guide, Question, Quiz
    from quizzes.search import search_text_for

    guide = Guide.objects.create(
        slug=f"{prefix}-guide",
        title_en=f"Scale {prefix}",
        title_ar=f"دليل القياس {prefix}",
        url=f"https://example.org/{prefix}",
    )
    made = [
        Quiz(
            slug=f"{prefix}-{n:04d}",
            title_en=f"Scale {prefix} quiz {n}",
            title_ar=f"اختبار القياس {n}",
            description_en="A quiz of the scale benchmark.",
            guide=guide,
            guide_position=n + 1,
            is_published=True,
        )
        for n in range(count)
    ]
    for quiz in made:
        quiz.search_text = search_text_for(quiz)
    Quiz.objects.bulk_create(made, batch_size=1000)
    quizzes = list(Quiz.objects.filter(guide=guide).order_by("pk"))
    made_questions = Question.objects.bulk_create(
        (
            Question(
                quiz=quiz,
                position=position,
                prompt_en=f"Question {position} of {quiz.slug}?",
                prompt_ar=f"السؤال {position}؟",
                explanation_en="Because it is so.",
                explanation_ar="لأنه كذلك.",
            )
            for quiz in quizzes
            for position in range(1, questions + 1)
        ),
        batch_size=5000,
    )
    made_choices = Choice.objects.bulk_create(
        (
            Choice(
                question=question,
                position=p,
                text_en=f"Choice {p}",
                text_ar=f"الخيار {p}",
                is_correct=p == 1,
                fraction=int(p == 1),
            )
            for question in made_questions
            for p in range(1, choices + 1)
        ),
        batch_size=5000,
    )
    right: dict[int, int] = {}
    wrong: dict[int, list[int]] = {}
    for choice in made_choices:
        if choice.is_correct:
            right[choice.question_id] = choice.pk
        else:
            wrong.setdefault(choice.question_id, []).append(choice.pk)
    content_changed(quiz=Quiz.objects.filter(guide=guide))
    by_quiz: dict[int, list[int]] = {}
    for question in made_questions:
        by_quiz.setdefault(question.quiz_id, []).append(question.pk)
    return [
        QuizContent(
            quiz.pk,
            by_quiz[quiz.pk],
            {q: right[q] for q in by_quiz[quiz.pk]},
            {q: wrong[q] for q in by_quiz[quiz.pk]},
        )
        for quiz in quizzes
    ]


def _stamp(moment) -> str:
    return moment.isoformat()


ATTEMPT_COLUMNS = (
    "id",
    "user_id",
    "quiz_id",
    "started_at",
    "finished_at",
    "score",
    "total",
    "feedback",
    "choice_order",
    "question_order",
    "confidence",
)
ANSWER_COLUMNS = (
    "attempt_id",
    "question_id",
    "choice_id",
    "correct_choice_id",
    "choice_ids",
    "key",
    "text",
    "arrangement",
    "fraction",
    "is_correct",
    "answered_at",
)


def _attempts(
    takers: list[tuple[int, QuizContent]], *, rng: random.Random, ability: dict[int, float]
) -> int:
    """A finished attempt per (learner id, quiz) with an answer to each of its questions, the
    learner's ability deciding how many are right; returns the number of answers."""
    from django.utils import timezone

    first = _next_id("quizzes_attempt")
    now = timezone.now()
    plan = []
    for offset, (user_id, quiz) in enumerate(takers):
        started = now - timedelta(days=400) + timedelta(minutes=3 * offset)
        skill = ability.get(user_id, 0.7)
        picks = [rng.random() < skill for _ in quiz.questions]
        plan.append((first + offset, user_id, quiz, started, picks))

    def attempts() -> Iterator[tuple]:
        for pk, user_id, quiz, started, picks in plan:
            yield (
                str(pk),
                str(user_id),
                str(quiz.pk),
                _stamp(started),
                _stamp(started + timedelta(minutes=2)),
                str(sum(picks)),
                str(len(picks)),
                "immediate",
                "{}",
                "[]",
                "off",
            )

    def answers() -> Iterator[tuple]:
        for pk, _user_id, quiz, started, picks in plan:
            at = _stamp(started + timedelta(minutes=1))
            for question, right in zip(quiz.questions, picks, strict=True):
                correct = quiz.right[question]
                choice = correct if right else quiz.wrong[question][pk % len(quiz.wrong[question])]
                yield (
                    str(pk),
                    str(question),
                    str(choice),
                    str(correct),
                    f"[{choice}]",
                    "{}",
                    "",
                    "[]",
                    "1" if right else "0",
                    "t" if right else "f",
                    at,
                )

    _copy("quizzes_attempt", ATTEMPT_COLUMNS, attempts())
    _move_sequence("quizzes_attempt")
    return _copy("quizzes_answer", ANSWER_COLUMNS, answers())


def _learners(prefix: str, count: int) -> list[int]:
    """`count` learners without a session (COPY); their ids."""
    from django.utils import timezone

    first = _next_id("auth_user")
    joined = _stamp(timezone.now() - timedelta(days=500))
    columns = (
        "id",
        "password",
        "is_superuser",
        "username",
        "first_name",
        "last_name",
        "email",
        "is_staff",
        "is_active",
        "date_joined",
    )
    rows = (
        (str(first + n), "!", "f", f"{prefix}{n:06d}", "", "", "", "f", "t", joined)
        for n in range(count)
    )
    _copy("auth_user", columns, rows)
    _move_sequence("auth_user")
    return list(range(first, first + count))


def _cards(user_id: int, questions: list[int], *, rng: random.Random) -> None:
    """A review card per question (a tenth due now, the rest over the next 60 days), each
    answered once in a review."""
    from django.utils import timezone

    now = timezone.now()
    first = _next_id("quizzes_reviewcard")
    plan = []
    for offset, question in enumerate(questions):
        if offset % 10 == 0:
            due = now - timedelta(minutes=rng.uniform(1, 600))
        else:
            due = now + timedelta(hours=rng.uniform(1, 24 * 60))
        state = (1, 2, 3)[offset % 3]
        plan.append((first + offset, question, due, state))
    made = _stamp(now - timedelta(days=30))
    _copy(
        "quizzes_reviewcard",
        (
            "id",
            "user_id",
            "question_id",
            "due",
            "state",
            "step",
            "stability",
            "difficulty",
            "last_review",
            "reviews",
            "created_at",
            "sure_miss",
        ),
        (
            (
                str(pk),
                str(user_id),
                str(question),
                _stamp(due),
                str(state),
                "0" if state != 2 else "\\N",
                "3.5",
                "5.1",
                _stamp(now - timedelta(days=2)),
                "2",
                made,
                "f",
            )
            for pk, question, due, state in plan
        ),
    )
    _move_sequence("quizzes_reviewcard")
    answered = _stamp(now - timedelta(days=2))
    _copy(
        "quizzes_reviewanswer",
        (
            "user_id",
            "question_id",
            "card_id",
            "revision",
            "choice_ids",
            "key",
            "text",
            "arrangement",
            "fraction",
            "is_correct",
            "answered_at",
            "rating",
        ),
        (
            (
                str(user_id),
                str(question),
                str(pk),
                "1",
                "[]",
                "{}",
                "",
                "[]",
                "1" if pk % 4 else "0",
                "t" if pk % 4 else "f",
                answered,
                "3" if pk % 4 else "1",
            )
            for pk, question, _due, _state in plan
        ),
    )


@dataclass
class Data:
    small_learner: dict[str, str]  # {"username", "session", "pk"}
    large_learner: dict[str, str]
    # A learner with a page of attempts for the instructor's record (the small learner's 20
    # fill less than its page of 50: the two pages would not show as many rows).
    record_learner: dict[str, str]
    small_quiz: int  # grades quiz with SMALL_GRADES_ATTEMPTS attempts
    large_quiz: int
    answers: dict[str, int]  # "small", "large": the grades quizzes' answers


def build(*, analyse: bool = True) -> Data:
    """The measures' data; `analyse` (VACUUM ANALYZE) gives the planner the statistics of a
    database that has lived with them, as the benchmark wants (a test leaves it out: the
    statistics would outlive its rows)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from bench import site_tasks

    rng = random.Random(58)
    began = time.monotonic()
    from quizzes.instructors.grades import PER_PAGE

    small, large, record = site_tasks.create(3, prefix="scale-learner-")
    User = get_user_model()
    for learner in (small, large, record):
        learner["pk"] = str(User.objects.get(username=learner["username"]).pk)
    history = _quizzes("scale-history", HISTORY_QUIZZES, QUESTIONS_PER_ATTEMPT, 4)
    cards = _quizzes("scale-cards", CARD_QUIZZES, CARD_QUESTIONS, 2)
    grades = _quizzes("scale-grades", 2, GRADES_QUESTIONS, 4)
    services.log(f"scale: content made in {time.monotonic() - began:.0f} s")

    # The two learners: their attempts (one per quiz, or a hundred) and cards.
    takers = [(int(small["pk"]), quiz) for quiz in history]
    takers += [(int(large["pk"]), quiz) for quiz in history for _ in range(HUNDRED)]
    takers += [(int(record["pk"]), history[n % len(history)]) for n in range(PER_PAGE)]
    _attempts(takers, rng=rng, ability={})
    questions = [q for quiz in cards for q in quiz.questions]
    _cards(int(small["pk"]), questions[:SMALL_CARDS], rng=rng)
    _cards(int(large["pk"]), questions[: SMALL_CARDS * HUNDRED], rng=rng)
    services.log(f"scale: the two learners' data made in {time.monotonic() - began:.0f} s")

    # The grades quizzes: learners of varied ability, a fifth of attempts retakes.
    answers = {}
    for name, quiz, attempts in (
        ("small", grades[0], SMALL_GRADES_ATTEMPTS),
        ("large", grades[1], SMALL_GRADES_ATTEMPTS * HUNDRED),
    ):
        firsts = round(attempts * (1 - RETAKES))
        ids = _learners(f"scale-{name}-", firsts)
        ability = {pk: min(max(rng.gauss(0.65, 0.2), 0.05), 0.98) for pk in ids}
        takers = [(pk, quiz) for pk in ids] + [
            (pk, quiz) for pk in rng.sample(ids, attempts - firsts)
        ]
        answers[name] = _attempts(takers, rng=rng, ability=ability)
        services.log(
            f"scale: grades quiz of {len(takers)} attempts, {answers[name]} answers, made in "
            f"{time.monotonic() - began:.0f} s"
        )
    if analyse:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    services.log(f"scale: data made and analysed in {time.monotonic() - began:.0f} s")
    return Data(small, large, record, grades[0].pk, grades[1].pk, answers)


# -- measuring --------------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def database_cpu() -> float:
    """CPU seconds used so far by PostgreSQL: every server process alive, and those the
    postmaster has reaped (parallel workers, ended backends)."""
    (postmaster,) = services.RUNNING["postgres"]
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            pid, ppid = int(entry.name), int(fields[1])
            if pid == postmaster:
                total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
            elif ppid == postmaster:
                total += int(fields[11]) + int(fields[12])
    return total / _TICK


Request = Callable[[], object]


def cpu_ms(request: Request, *, rounds: int, budget: float = 0.4) -> float:
    """The least over `rounds` of the mean CPU (app + PostgreSQL) per request, in ms; each
    round a batch of requests of about `budget` seconds."""
    request()  # warm: templates, translations, the content's cache
    began = time.process_time()
    request()
    once = max(time.process_time() - began, 1e-4)
    batch = max(1, min(50, round(budget / once)))
    best = float("inf")
    for _ in range(rounds):
        app, database = time.process_time(), database_cpu()
        for _ in range(batch):
            request()
        spent = time.process_time() - app + database_cpu() - database
        best = min(best, spent / batch)
    return best * 1000


def peak_mb(request: Request) -> float:
    """The most memory Python allocated during one request (after a warm one), in MB."""
    request()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        request()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - base) / 1e6


class Client:
    """GETs of one signed-in user through the site, checked for their status; the body is
    consumed chunk by chunk and counted, not kept."""

    def __init__(self, site: Site, cookies: dict[str, str]) -> None:
        self.site = site
        self.cookies = cookies
        self.received = 0

    def _count(self, chunk: bytes) -> None:
        self.received += len(chunk)

    def get(self, path: str, query: str = "", *, expect: int = 200) -> Request:
        def request() -> None:
            status, _headers, _body = self.site.call(
                "GET", path, cookies=self.cookies, query=query, sink=self._count
            )
            if status != expect:
                raise SystemExit(f"bench: scale: {path}?{query} gave {status}, not {expect}")

        return request


def measures(site: Site, data: Data) -> dict[str, tuple[Request, Request]]:
    """Per measure, its request at the small and at the large size."""
    from bench.authoring import Administrator
    from quizzes.review.badge import review_due_counts

    small = Client(site, {"sessionid": data.small_learner["session"]})
    large = Client(site, {"sessionid": data.large_learner["session"]})
    admin = Administrator(site, second_factor=True)
    instructor = Client(site, admin.cookies)
    quiz_url = "/en/admin/quizzes/quiz/{}/"

    def badge(user_id: str) -> Request:
        # The read a whole page makes when the learner's kept due times have expired.
        return lambda: review_due_counts(user_id=int(user_id), fresh=True)

    def both(make: Callable[[Client], Request]) -> tuple[Request, Request]:
        return make(small), make(large)

    def of_quiz(suffix: str) -> tuple[Request, Request]:
        small, large = (data.small_quiz, data.large_quiz)
        return instructor.get(quiz_url.format(small) + suffix), instructor.get(
            quiz_url.format(large) + suffix
        )

    return {
        "history": both(lambda c: c.get("/en/attempts/")),
        "review": both(lambda c: c.get("/en/review/")),
        "review-badge": (badge(data.small_learner["pk"]), badge(data.large_learner["pk"])),
        "statistics": both(lambda c: c.get("/en/review/statistics/")),
        "export": both(lambda c: c.get("/en/accounts/profile/data.json")),
        "grades": of_quiz("results/"),
        "grades-csv": (
            instructor.get(quiz_url.format(data.small_quiz)[:-1] + "/results.csv"),
            instructor.get(quiz_url.format(data.large_quiz)[:-1] + "/results.csv"),
        ),
        "item-analysis": of_quiz("item-analysis/"),
        "learner-record": tuple(  # type: ignore[dict-item]
            instructor.get(f"/en/admin/quizzes/quiz/learners/{learner['pk']}/")
            for learner in (data.record_learner, data.large_learner)
        ),
    }


def report(cpu: dict[str, tuple[float, float]], memory: dict[str, tuple[float, float]]) -> int:
    for name, (small, large) in cpu.items():
        print(
            f"bench: scale {name} small {small:.2f} ms large {large:.2f} ms "
            f"ratio {large / small:.2f}"
        )
    for name, (small, large) in memory.items():
        print(
            f"bench: scale {name}-memory small {small:.2f} MB large {large:.2f} MB "
            f"ratio {large / small:.2f}"
        )
    missed = []
    for name in PAGED:
        if name in cpu and (ratio := cpu[name][1] / cpu[name][0]) > MAX_PAGED_RATIO:
            missed.append(f"{name} ratio {ratio:.2f} > {MAX_PAGED_RATIO}")
    for name in STREAMED:
        if name in memory and (ratio := memory[name][1] / memory[name][0]) > MAX_MEMORY_RATIO:
            missed.append(f"{name} memory ratio {ratio:.2f} > {MAX_MEMORY_RATIO}")
    if "item-analysis" in cpu:
        small, large = cpu["item-analysis"]
        if large > MAX_ITEM_ANALYSIS_MS:
            missed.append(f"item-analysis {large:.0f} ms > {MAX_ITEM_ANALYSIS_MS}")
        if large / small > MAX_ITEM_ANALYSIS_RATIO:
            missed.append(f"item-analysis ratio {large / small:.0f} > {MAX_ITEM_ANALYSIS_RATIO}")
    if missed:
        print("bench: scale targets MISSED: " + "; ".join(missed), flush=True)
        return 1
    print("bench: scale targets met", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="measures to run, comma-separated")
    parser.add_argument(
        "--profile", help="cProfile these measures' large requests instead (comma-separated)"
    )
    parser.add_argument("--lines", type=int, default=35)
    args = parser.parse_args()
    began = time.monotonic()
    # The export is limited per learner and hour: the bench asks for it many times.
    os.environ["DATA_EXPORT_RATE"] = "100000/h"
    with served() as site:
        data = build()
        requests = measures(site, data)
        if args.profile:
            for name in args.profile.split(","):
                _small, request = requests[name]
                request()
                profiler = cProfile.Profile()
                profiler.enable()
                request()
                profiler.disable()
                print(f"== {name}, large")
                stats = pstats.Stats(profiler, stream=sys.stdout)
                stats.sort_stats("cumulative").print_stats(args.lines)
                stats.sort_stats("tottime").print_stats(args.lines)
            return 0
        names = args.only.split(",") if args.only else list(requests)
        cpu, memory = {}, {}
        for name in names:
            small, large = requests[name]
            # Fewer rounds where one request is seconds: the least of two is still the least.
            rounds = 2 if name == "item-analysis" else args.rounds
            cpu[name] = (cpu_ms(small, rounds=rounds), cpu_ms(large, rounds=rounds))
            services.log(
                f"scale: {name} {cpu[name][0]:.2f} → {cpu[name][1]:.2f} ms "
                f"({time.monotonic() - began:.0f} s)"
            )
            if name in STREAMED:
                memory[name] = (peak_mb(small), peak_mb(large))
        services.log(f"scale: finished in {time.monotonic() - began:.0f} s")
        return report(cpu, memory)


if __name__ == "__main__":
    sys.exit(main())
