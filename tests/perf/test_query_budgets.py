"""Query budgets: every learner view sends a few SQL statements, as few for a 12-question quiz
and a long history as for a 3-question quiz and none.

Counted like pytest-django's `django_assert_max_num_queries` (Django's CaptureQueriesContext),
except that transaction control is counted apart: the test wraps each test in a transaction,
so a view's one `atomic()` block shows here as SAVEPOINT / RELEASE where production sends
BEGIN / COMMIT. Budgets are for statements that read or write; a view may also open at most
one transaction. Quiz content comes from the cache (warm, as under load); a cold cache costs
two statements more, whatever the quiz's length.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.models import Attempt, Question, Quiz, ReviewAnswer, ReviewCard
from quizzes.review.badge import review_due_counts
from tests.factories import correct_choice, make_quiz, make_user, wrong_choice
from tests.steps import post_answer, right_answer_data

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK", "BEGIN", "COMMIT")

# Statements per request, at most (make bench's targets: 7 for the worst answer, 3 for a step).
# A full page for a signed-in learner shows the review questions due in the navigation, from
# the learner's summary of what is due kept a minute in the cache
# (quizzes.review.badge.review_due_badge): no statement on these warm pages, one when read
# again. The catalog, the quiz page and the history show mastery levels (one statement per
# quiz list, two for guides: quizzes.mastery).
BUDGET = {
    # The user, the page's progress, mastery levels of the quizzes attempted (the guides of
    # the filter, the count of what matches and the page are kept per catalog generation:
    # quizzes.catalog).
    "catalog": 3,
    # The learner's own filters are not shared: the count and the page, and for the mastery
    # filter the learner's answers and their quizzes' sizes.
    "catalog, progress filter": 7,
    "catalog, mastery filter": 9,
    # The user, the guide, progress, mastery.
    "guide page": 4,
    # The user, the guides with their quiz counts, their mastery (two).
    "guides": 4,
    "quiz page": 5,
    "start": 5,
    "resume": 4,
    # A step: the user, and the attempt with its answers (one statement:
    # quizzes.attempts.state.attempt_read).
    "question": 2,
    # The user, the attempt with its answers and the learner's card for the question (read
    # with the attempt when the form posts the question's id, by itself from an older page),
    # the answer written, the card written when the answer moves it, the attempt finished
    # after the last one.
    "answer": 5,
    "result": 2,
    # An exam's "Submit all": the user, the attempt, the attempt locked with its answers read
    # again (a change saved in another tab counts), the attempt finished, the learner's cards
    # read, created and moved (quizzes.review.scheduler.cards_record_answers).
    "submit": 7,
    # The user, the card due, its question's quiz version, the count, whether the learner is
    # asked how sure they are (their profile, issue 56); a review answer: the card read and
    # moved, whether they are asked, the answer written, the next card due.
    "review step": 4,
    "review answer": 6,
    # The user, its attempts past their deadline (finished before they are listed), the page
    # and its count, the summaries (two: the ranks over the learner's attempts, narrow, then
    # the two attempts per quiz with their quiz and guide — issue 58: 104 → 83 ms of CPU at
    # 2,000 attempts), the chart, the guides' mastery (two), the calibration by level of
    # sureness (issue 56).
    "history": 10,
}

# Both quizzes with an attempt in either world (a quiz never attempted needs no mastery).
SMALL = {"questions": 3, "history": 2}
LARGE = {"questions": 12, "history": 25}


@dataclass
class Count:
    statements: list[str] = field(default_factory=list)
    transaction_control: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.statements)

    def __str__(self) -> str:
        return "\n".join(f"  {sql[:150]}" for sql in self.statements) or "  (none)"


@contextlib.contextmanager
def counting():
    count = Count()
    with CaptureQueriesContext(connection) as context:
        yield count
    for query in context.captured_queries:
        sql = query["sql"]
        kind = (
            count.transaction_control if sql.startswith(TRANSACTION_CONTROL) else count.statements
        )
        kind.append(sql)


def within(count: Count, view: str) -> None:
    budget = BUDGET[view]
    assert len(count) <= budget, f"{view}: {len(count)} statements > {budget}:\n{count}"
    # At most one transaction: one SAVEPOINT and its RELEASE here, BEGIN and COMMIT live.
    assert len(count.transaction_control) <= 2, count.transaction_control


@dataclass
class World:
    """A learner with a quiz of `questions` questions and `history` finished attempts."""

    learner: object
    quiz: Quiz
    client: Client
    attempt: Attempt | None = None

    def step(self, attempt: Attempt, number: int) -> str:
        return f"/en/attempts/{attempt.pk}/questions/{number}/"

    def answer_until(self, attempt: Attempt, last: int) -> None:
        """Answer questions 1..last through the rules, as earlier requests would have."""
        for question in self.quiz.questions.order_by("position")[:last]:
            post_answer(attempt, question, choice=wrong_choice(question))

    def question(self, number: int):
        return self.quiz.questions.get(position=number)


def make_world(questions: int, history: int) -> World:
    learner = make_user()
    quiz = make_quiz(questions=questions)
    other = make_quiz(questions=2)
    now = timezone.now()
    Attempt.objects.bulk_create(
        Attempt(
            user=learner,
            quiz=quiz if n % 2 else other,
            started_at=now - timezone.timedelta(hours=n + 1),
            finished_at=now - timezone.timedelta(hours=n),
            score=n % 3,
            total=questions if n % 2 else 2,
        )
        for n in range(history)
    )
    client = Client()
    client.force_login(learner)
    return World(learner=learner, quiz=quiz, client=client)


@pytest.fixture
def worlds() -> tuple[World, World]:
    return make_world(**SMALL), make_world(**LARGE)


def measure(worlds: tuple[World, World], view: str, prepare) -> list[Count]:
    """Count the request that `prepare(world)` returns, in each world: within budget, equal.

    `prepare` sets the scene (untimed, and warms the content cache with one request) and
    returns a function that sends the request to count and returns its response.
    """
    counts = []
    for world in worlds:
        send = prepare(world)
        with counting() as count:
            response = send()
        assert response.status_code in (200, 302), response
        within(count, view)
        counts.append(count)
    small, large = counts
    assert len(small) == len(large), f"{view} grows:\nsmall\n{small}\nlarge\n{large}"
    return counts


def test_healthz_touches_neither_database_nor_session(client):
    with counting() as count:
        response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok"
    assert len(count) == 0 and not count.transaction_control
    assert not response.cookies
    assert "Cookie" not in response.get("Vary", "")


def test_healthz_reads_no_session_for_a_signed_in_learner_either(client, settings):
    """The load balancer's check must answer while PostgreSQL is down, whoever's cookies it
    carries: no middleware loads the session (from the cache or the database) for it."""
    client.force_login(make_user())
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"  # no cache in between
    with counting() as count:
        response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok"
    assert len(count) == 0, count


@pytest.mark.urls("bench.urls")
def test_the_benchmarks_signed_in_floor_reads_the_user_and_nothing_else(client):
    learner = make_user()
    client.force_login(learner)
    with counting() as count:
        response = client.get("/bench/signed-in")
    assert response.status_code == 200
    assert response.content.decode() == learner.get_username()
    assert len(count) == 1 and "auth_user" in count.statements[0], count
    client.logout()
    assert client.get("/bench/signed-in").status_code == 403


def test_the_site_itself_has_no_benchmark_url(client):
    client.force_login(make_user())
    assert client.get("/bench/signed-in").status_code == 404


def test_catalog_within_budget_whatever_the_history(worlds):
    def prepare(world):
        world.client.get("/en/")
        return lambda: world.client.get("/en/")

    measure(worlds, "catalog", prepare)


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"q": "quiz", "difficulty": "easy", "page": "1"},
        {"q": "quiz", "status": "finished", "page": "1"},
        {"mastery": "attempted"},
    ],
    ids=["first page", "searched", "progress", "mastery"],
)
@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "results"])
def test_catalog_searched_and_filtered_within_budget(worlds, query, headers):
    def prepare(world):
        world.client.get("/en/", query, **headers)
        return lambda: world.client.get("/en/", query, **headers)

    own = "mastery" if "mastery" in query else "progress" if "status" in query else ""
    measure(worlds, f"catalog, {own} filter" if own else "catalog", prepare)


def test_guides_page_within_budget_whatever_the_history(worlds):
    def prepare(world):
        world.client.get("/en/guides/")
        return lambda: world.client.get("/en/guides/")

    measure(worlds, "guides", prepare)


def test_guide_page_within_budget_whatever_the_history(worlds):
    def prepare(world):
        page = f"/en/guides/{world.quiz.guide.slug}/"
        world.client.get(page)
        return lambda: world.client.get(page)

    measure(worlds, "guide page", prepare)


def test_quiz_page_within_budget_whatever_the_quiz_length_and_history(worlds):
    def prepare(world):
        page = f"/en/quizzes/{world.quiz.slug}/"
        world.client.get(page)
        return lambda: world.client.get(page)

    measure(worlds, "quiz page", prepare)


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
@pytest.mark.parametrize("resume", [False, True], ids=["new", "resume"])
def test_starting_an_attempt_within_budget(worlds, headers, resume):
    def prepare(world):
        world.client.get(f"/en/quizzes/{world.quiz.slug}/")
        if resume:
            world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
            world.answer_until(world.attempt, 1)
        return lambda: world.client.post(f"/en/quizzes/{world.quiz.slug}/start/", **headers)

    measure(worlds, "resume" if resume else "start", prepare)
    for world in worlds:
        assert Attempt.objects.filter(user=world.learner, finished_at=None).count() == 1


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "fragment"])
@pytest.mark.parametrize("answered", [False, True], ids=["form", "feedback"])
def test_question_within_budget_whatever_the_quiz_length_and_history(worlds, headers, answered):
    def prepare(world):
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        world.answer_until(world.attempt, 2 if answered else 1)
        url = world.step(world.attempt, 2)
        world.client.get(url, **headers)
        return lambda: world.client.get(url, **headers)

    for count in measure(worlds, "question", prepare):
        assert not count.transaction_control


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_answer_within_budget_whatever_the_quiz_length_and_history(worlds, headers, position):
    def prepare(world):
        number = {"first": 1, "middle": 2, "last": world.quiz.questions.count()}[position]
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        world.answer_until(world.attempt, number - 1)
        url = world.step(world.attempt, number)
        world.client.get(url)
        choice = correct_choice(world.question(number))
        return lambda: world.client.post(url, {"choice": choice.pk}, **headers)

    measure(worlds, "answer", prepare)
    for world in worlds:
        world.attempt.refresh_from_db()
        assert world.attempt.is_finished == (position == "last")


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_replayed_answer_within_budget(worlds, headers):
    def prepare(world):
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        world.answer_until(world.attempt, 1)
        url = world.step(world.attempt, 1)
        world.client.get(url)
        choice = correct_choice(world.question(1))
        return lambda: world.client.post(url, {"choice": choice.pk}, **headers)

    measure(worlds, "answer", prepare)


def test_result_within_budget_whatever_the_quiz_length_and_history(worlds):
    def prepare(world):
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        world.answer_until(world.attempt, world.quiz.questions.count())
        url = f"/en/attempts/{world.attempt.pk}/result/"
        world.client.get(url)
        return lambda: world.client.get(url)

    measure(worlds, "result", prepare)


@pytest.mark.parametrize("page_number", ["1", "2"])
def test_history_within_budget_whatever_its_length(worlds, page_number):
    def prepare(world):
        world.client.get("/en/attempts/")
        return lambda: world.client.get("/en/attempts/", {"page": page_number})

    measure(worlds, "history", prepare)


def test_an_edited_quiz_is_read_again_in_three_statements_whatever_its_length(worlds):
    extra = []
    for world in worlds:
        page = f"/en/quizzes/{world.quiz.slug}/"
        world.client.get(page)
        with counting() as warm:
            world.client.get(page)
        # What content_changed does on every edit: a new version, so a cold cache entry.
        Quiz.objects.filter(pk=world.quiz.pk).update(updated_at=timezone.now())
        with counting() as cold:
            world.client.get(page)
        extra.append(len(cold) - len(warm))
    # The quiz with its guide, its questions, their choices (quizzes.content._load).
    assert extra == [3, 3]


def test_answer_budget_holds_for_a_seed_quiz_start_to_finish(seed_quizzes):
    """The whole htmx flow of a real quiz: start, then each question and its answer (its
    questions of choices, and a short-answer, a matching and an ordering one)."""
    learner = make_user()
    client = Client()
    client.force_login(learner)
    quiz = Quiz.objects.get(slug="zero-sharded-optimizers")
    client.get(f"/en/quizzes/{quiz.slug}/")
    with counting() as count:
        response = client.post(f"/en/quizzes/{quiz.slug}/start/", **HX)
    within(count, "start")
    attempt = Attempt.objects.get(user=learner, quiz=quiz)
    for number, question in enumerate(quiz.questions.order_by("position"), 1):
        url = f"/en/attempts/{attempt.pk}/questions/{number}/"
        with counting() as count:
            response = client.get(url, **HX)
        within(count, "question")
        data = right_answer_data(attempt, question)
        with counting() as count:
            response = client.post(url, data, **HX)
        within(count, "answer")
        assert response.status_code == 200
    with counting() as count:
        response = client.get(f"/en/attempts/{attempt.pk}/result/")
    within(count, "result")
    count = quiz.questions.count()
    assert f"{count} / {count}" in response.content.decode()


def _answer_cost(world: World, number: int, *, right: bool, posts_question: bool = False) -> Count:
    """The statements of posting step `number`'s pick; with `posts_question`, also the id of
    the question seen, as the step's form does (older pages and scripts send the pick only)."""
    url = world.step(world.attempt, number)
    world.client.get(url)
    question = world.question(number)
    choice = correct_choice(question) if right else wrong_choice(question)
    data = (
        {"choice": choice.pk, "question": question.pk} if posts_question else {"choice": choice.pk}
    )
    with counting() as count:
        response = world.client.post(url, data, **HX)
    assert response.status_code == 200
    return count


def test_an_answer_from_a_page_without_the_questions_id_reads_its_card_on_its_own():
    """An older page posts the pick alone: the question is known only after the attempt is
    read, so its card is read by itself (one statement), and written when the answer moves
    it."""
    world = make_world(questions=4, history=0)
    world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
    with_id = len(_answer_cost(world, 1, right=True, posts_question=True))
    plain = len(_answer_cost(world, 2, right=True))  # reads the card, finds none
    creates = len(_answer_cost(world, 3, right=False))  # a miss creates the question's card

    assert plain == with_id + 1
    # The card written; the navigation's review count, kept from the page, is not read again
    # for the answer's fragment: the new card falls due after the kept count's minute
    # (quizzes.review.badge).
    assert creates == plain + 1

    # A retake: a right answer to the missed question moves its card.
    Attempt.objects.filter(pk=world.attempt.pk).update(finished_at=timezone.now())
    world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
    for number in (1, 2):
        question = world.question(number)
        post_answer(world.attempt, question, choice=correct_choice(question))
    moves = len(_answer_cost(world, 3, right=True))
    # The card moved, from and to times past the kept count's minute: no count read again.
    assert moves == plain + 1
    # At most 6 for the worst answer (issue 42), and the count its fragment swaps into the
    # navigation (issue 52, point 11).
    assert moves <= BUDGET["answer"] + 2


def test_an_answer_posted_with_its_question_reads_the_questions_card_with_the_attempt():
    world = make_world(questions=4, history=0)
    world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
    plain = len(_answer_cost(world, 1, right=True, posts_question=True))
    creates = len(_answer_cost(world, 2, right=False, posts_question=True))
    untouched = len(_answer_cost(world, 3, right=True, posts_question=True))

    # The card written (it was read with the attempt); the navigation's kept count still says.
    assert creates == plain + 1
    assert untouched == plain  # the quiz has cards, this question none: nothing to read
    assert ReviewCard.objects.filter(user=world.learner, question=world.question(2)).exists()


@pytest.mark.django_db(transaction=True)
def test_an_answer_is_written_in_one_transaction_whatever_it_writes():
    """All or none: an answer's row, the card a miss creates, the attempt finished by the last
    answer. (A lone row's INSERT without BEGIN and COMMIT saved no CPU: bench/ab.py.)"""
    world = make_world(questions=3, history=0)
    world.attempt = attempt_start(user=world.learner, quiz=world.quiz)

    alone = _answer_cost(world, 1, right=True, posts_question=True)
    with_card = _answer_cost(world, 2, right=False, posts_question=True)
    last = _answer_cost(world, 3, right=True, posts_question=True)

    for count in (alone, with_card, last):
        assert [sql.split()[0] for sql in count.transaction_control] == ["BEGIN", "COMMIT"]
    world.attempt.refresh_from_db()
    assert world.attempt.is_finished and world.attempt.score == 2
    assert ReviewCard.objects.filter(user=world.learner).count() == 1


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "fragment"])
def test_a_review_step_within_the_quiz_steps_budget(worlds, headers):
    def prepare(world):
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        world.answer_until(world.attempt, 2)  # two misses: two cards
        ReviewCard.objects.filter(user=world.learner).update(due=timezone.now())
        world.client.get("/en/review/", **headers)
        return lambda: world.client.get("/en/review/", **headers)

    measure(worlds, "review step", prepare)


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_review_answer_within_the_quiz_answers_budget(worlds, headers):
    def prepare(world):
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        world.answer_until(world.attempt, 1)
        card = ReviewCard.objects.get(user=world.learner)
        data = {"card": card.pk, "revision": card.reviews}
        data["choice"] = correct_choice(card.question).pk
        world.client.get("/en/review/?practise")
        return lambda: world.client.post("/en/review/", data, **headers)

    measure(worlds, "review answer", prepare)
    for world in worlds:
        assert ReviewAnswer.objects.filter(user=world.learner).count() == 1


def test_the_navigations_review_count_is_read_once_per_learner_and_never_by_a_fragment(
    learner, learner_client, quiz
):
    """A full page reads what is due for the learner once
    (quizzes.review.badge.review_due_badge); the next pages count it from the cache, and an
    htmx fragment, without navigation, never asks."""
    attempt = attempt_start(user=learner, quiz=quiz)
    url = f"/en/attempts/{attempt.pk}/questions/1/"
    learner_client.get(url, **HX)
    with counting() as first:
        learner_client.get(url)
    with counting() as page:
        learner_client.get(url)
    with counting() as fragment:
        learner_client.get(url, **HX)

    def due_reads(count: Count) -> list[str]:
        return [sql for sql in count.statements if "quizzes_reviewcard" in sql]

    assert len(due_reads(first)) == 1
    assert not due_reads(page) and not due_reads(fragment)
    assert len(page) == len(fragment)


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_exam_mode_steps_within_the_quiz_steps_budgets(worlds, headers):
    """A deferred, timed quiz: showing a step, saving and changing an answer, the confirmation
    and the submit, each within the budget of its practice-mode counterpart."""
    for world in worlds:
        Quiz.objects.filter(pk=world.quiz.pk).update(
            feedback=Quiz.Feedback.DEFERRED, time_limit=timezone.timedelta(minutes=30)
        )
        world.quiz.refresh_from_db()
        world.attempt = attempt_start(user=world.learner, quiz=world.quiz)
        # Every question answered, wrong but two: submitting creates their review cards.
        world.answer_until(world.attempt, world.quiz.questions.count())

    def show(world):
        url = world.step(world.attempt, 2)
        world.client.get(url, **headers)
        return lambda: world.client.get(url, **headers)

    def save(number):
        def prepare(world):
            url = world.step(world.attempt, number)
            world.client.get(url)
            choice = correct_choice(world.question(number))
            return lambda: world.client.post(url, {"choice": choice.pk}, **headers)

        return prepare

    measure(worlds, "question", show)
    measure(worlds, "answer", save(2))  # a changed answer
    measure(worlds, "answer", save(1))

    def confirm(world):
        url = f"/en/attempts/{world.attempt.pk}/finish/"
        world.client.get(url)
        return lambda: world.client.get(url)

    def submit(world):
        url = f"/en/attempts/{world.attempt.pk}/finish/"
        return lambda: world.client.post(url)

    measure(worlds, "question", confirm)
    small, large = measure(worlds, "submit", submit)  # 1 and 10 cards: as many statements
    for world in worlds:
        world.attempt.refresh_from_db()
        assert world.attempt.is_finished
        wrong = world.quiz.questions.count() - 2
        assert ReviewCard.objects.filter(user=world.learner).count() == wrong


def _learner_with_cards(cards: int) -> tuple[object, Client]:
    """A learner with `cards` review cards, each answered once: ten due two days ago (of a
    quiz's questions as written), the rest from an hour ago to forty days ahead."""
    learner = make_user()
    questions = list(make_quiz(questions=10).questions.order_by("position"))
    more = make_quiz(questions=0)
    questions += Question.objects.bulk_create(
        Question(quiz=more, position=n, prompt_en=f"Q{n}?", prompt_ar=f"س{n}؟")
        for n in range(1, cards - 9)
    )
    now = timezone.now()
    made = ReviewCard.objects.bulk_create(
        ReviewCard(
            user=learner,
            question=question,
            due=now - timedelta(days=2) if n < 10 else now + timedelta(hours=3 * n - 30),
            state=1 + n % 3,
            reviews=1 + n % 2,
        )
        for n, question in enumerate(questions)
    )
    ReviewAnswer.objects.bulk_create(
        ReviewAnswer(
            user=learner, question_id=card.question_id, card=card, revision=0, is_correct=True
        )
        for card in made
    )
    client = Client()
    client.force_login(learner)
    return learner, client


def test_what_is_due_costs_the_same_statements_at_10_and_300_cards():
    """The review page (whole and its fragment), the statistics and the badge's read count
    what is due in aggregates: as many statements whatever the number of cards."""
    costs = []
    for cards in (10, 300):
        learner, client = _learner_with_cards(cards)
        client.get("/en/review/")
        cost = {}
        for name, request in (
            ("review page", lambda c=client: c.get("/en/review/")),
            ("review fragment", lambda c=client: c.get("/en/review/", **HX)),
            ("statistics", lambda c=client: c.get("/en/review/statistics/")),
            ("badge", lambda u=learner: review_due_counts(user_id=u.pk, fresh=True)),
        ):
            with counting() as count:
                request()
            cost[name] = len(count)
        costs.append(cost)

    assert costs[0] == costs[1]
    assert costs[0]["review page"] <= BUDGET["review step"]
    # The cards counted with the badge's summary, the answers, the calibration, the session
    # and the user.
    assert costs[0]["statistics"] <= 5 and costs[0]["badge"] == 1
