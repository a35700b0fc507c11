"""Every limit of the site as requests that reach it at once (N3: increment, then decide), for
tests/security/test_limits_under_concurrency.py (memory and the database cache) and
tests/outages/test_limits_through_outages.py (a real Redis).

Each case sets its limit to AMOUNT, prepares what its requests need, and sends one request per
thread, all released together; what it counts is what went past the limit (answers, mails,
passwords checked, rows), which must be exactly AMOUNT."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail, signing
from django.db import connections
from django.test import Client

from lti import login as lti_login
from lti.models import PendingLogin
from quizzes.attempts.services import attempt_start
from quizzes.models import QuestionReport
from tests.factories import PASSWORD, make_quiz, make_user, wrong_choice
from tests.steps import post_answer

AMOUNT = 3
REQUESTS = 9
ADDRESS = "203.0.113.9"


class CheckingHasher(MD5PasswordHasher):
    """The suite's hasher, counting the passwords it hashes (from every thread): one per
    password checked, for an account or (against timing) for none."""

    checked = 0
    lock = threading.Lock()

    def encode(self, password, salt):
        with type(self).lock:
            type(self).checked += 1
        return super().encode(password, salt)


def at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """`work(n)` for n in 0..count-1, each in a thread of its own, released together."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            connections.close_all()
            barrier.wait(timeout=60)
            results[n] = work(n)
        except BaseException as error:  # noqa: BLE001 — raised again in the test
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]
    return results


@dataclass
class Case:
    settings: dict[str, Any]
    prepare: Callable[[Any], Any]  # (the LTI platform or None) -> what the requests need
    send: Callable[[Any, int], Any]  # (what they need, n) -> the answer
    counted: Callable[[list[Any]], int]  # the answers -> how many went past the limit


def _statuses(status: int) -> Callable[[list[Any]], int]:
    return lambda answers: sum(answer == status for answer in answers)


def _sign_up(_need: Any, n: int) -> int:
    fields = {"username": f"lab{n}", "password1": PASSWORD, "password2": PASSWORD}
    return Client(REMOTE_ADDR=ADDRESS).post("/en/accounts/signup/", fields).status_code


def _reset(email: str | None, n: int) -> int:
    client = Client(REMOTE_ADDR=ADDRESS if email is None else f"198.51.100.{n + 1}")
    fields = {"email": email or f"guess{n}@example.org"}
    return client.post("/en/accounts/password/reset/", fields).status_code


def _known_address(_platform: Any) -> str:
    make_user("huda", email="huda@example.org")
    mail.outbox = []
    return "huda@example.org"


def _signed_in(_platform: Any) -> Client:
    make_user("huda", email="huda@example.org")
    client = Client()
    client.post("/en/accounts/login/", {"login": "huda", "password": PASSWORD})
    client.post("/en/accounts/reauthenticate/", {"password": PASSWORD})
    return client


def _email_add(client: Client, n: int) -> int:
    fields = {"email": f"huda{n}@example.org", "action_add": ""}
    return client.post("/en/accounts/email/", fields).status_code


def _answered(_platform: Any) -> tuple[Client, list[int]]:
    learner = make_user("amina")
    quiz = make_quiz(questions=REQUESTS)
    attempt = attempt_start(user=learner, quiz=quiz)
    questions = list(quiz.questions.order_by("position"))
    for question in questions:
        post_answer(attempt, question, choice=wrong_choice(question))
    client = Client()
    client.force_login(learner)
    return client, [question.pk for question in questions]


def _report(need: tuple[Client, list[int]], n: int) -> int:
    client, questions = need
    url = f"/en/questions/{questions[n]}/report/"
    return client.post(url, {"reason": "unclear"}).status_code


def _lti_params(platform: Any) -> dict[str, str]:
    from tests.lti.conftest import login_params

    make_quiz()
    return login_params(platform, target_link_uri="http://testserver/en/quizzes/any/")


def _lti_login(params: dict[str, str], _n: int) -> int:
    return Client(REMOTE_ADDR=ADDRESS).get("/lti/login/", params).status_code


def _lti_continue(params: dict[str, str], n: int) -> int:
    token = signing.dumps({"params": params, "check": f"c{n}"}, salt=lti_login.SALT, compress=True)
    client = Client(REMOTE_ADDR=ADDRESS)
    client.cookies[lti_login.CHECK_COOKIE] = f"c{n}"
    return client.get("/lti/login/continue/", {"t": token}).status_code


def _sign_in(login: Callable[[int], str]) -> Callable[[Any, int], int]:
    def send(_need: Any, n: int) -> int:
        fields = {"login": login(n), "password": f"wrong-{n}"}
        return Client(REMOTE_ADDR=ADDRESS).post("/en/accounts/login/", fields).status_code

    return send


def _checked(_answers: list[Any]) -> int:
    return CheckingHasher.checked


def _past_the_password(accounts: int) -> Callable[[Any], list[tuple[Client, str]]]:
    def prepare(_platform: Any) -> list[tuple[Client, str]]:
        secrets_by_user = {}
        for number in range(accounts):
            user = make_user(f"staff{number}")
            secrets_by_user[user.username] = generate_totp_secret()
            TOTP.activate(user, secrets_by_user[user.username])
        clients = []
        for n in range(REQUESTS):
            username = f"staff{n % accounts}"
            client = Client(REMOTE_ADDR=ADDRESS)
            response = client.post("/en/accounts/login/", {"login": username, "password": PASSWORD})
            assert response.status_code == 302, response.status_code
            clients.append((client, secrets_by_user[username]))
        return clients

    return prepare


def _wrong_code(clients: list[tuple[Client, str]], n: int) -> int:
    from tests.accounts.test_second_factor_limits import SECOND_STEP, _wrong

    client, secret = clients[n]
    return client.post(SECOND_STEP, {"code": _wrong(secret)}).status_code


def _report_rows(_answers: list[Any]) -> int:
    return QuestionReport.objects.count()


def _mails(_answers: list[Any]) -> int:
    return len(mail.outbox)


def _logins(_answers: list[Any]) -> int:
    return PendingLogin.objects.count()


RATE = f"{AMOUNT}/h"
CASES: dict[str, Case] = {
    "sign-ups per client": Case(
        {"SIGNUP_LIMIT_PER_HOUR": AMOUNT}, lambda _p: None, _sign_up, _statuses(302)
    ),
    "password resets per client": Case(
        {"PASSWORD_RESET_RATE_PER_CLIENT": RATE}, lambda _p: None, _reset, _statuses(302)
    ),
    "mail per address": Case(
        {"PASSWORD_RESET_RATE_PER_EMAIL": RATE}, _known_address, _reset, _mails
    ),
    "email changes per learner": Case(
        {"EMAIL_CHANGE_RATE": RATE}, _signed_in, _email_add, _statuses(302)
    ),
    "data downloads per learner": Case(
        {"DATA_EXPORT_RATE": RATE},
        _signed_in,
        lambda client, _n: client.get("/en/accounts/profile/data.json").status_code,
        _statuses(200),
    ),
    "question reports per learner": Case(
        {"QUESTION_REPORT_RATE": RATE}, _answered, _report, _report_rows
    ),
    "LTI logins per client": Case(
        {"LTI_LOGIN_RATE_PER_CLIENT": RATE}, _lti_params, _lti_login, _statuses(302)
    ),
    "LTI logins' second step per client": Case(
        {"LTI_LOGIN_RATE_PER_CLIENT": RATE}, _lti_params, _lti_continue, _logins
    ),
    "failed sign-ins per client": Case(
        {"SIGN_IN_FAILURE_RATE_PER_CLIENT": f"{AMOUNT}/15m"},
        lambda _p: None,
        _sign_in(lambda n: f"learner{n}"),
        _checked,
    ),
    "failed sign-ins per username (the lockout)": Case(
        {"AXES_FAILURE_LIMIT": AMOUNT},
        lambda _p: make_user("zaid"),
        _sign_in(lambda n: "zaid"),
        _checked,
    ),
    "wrong codes per account": Case(
        {"SECOND_FACTOR_RATE_PER_ACCOUNT": f"{AMOUNT}/15m", "MFA_REQUIRED_FOR_STAFF": True},
        _past_the_password(1),
        _wrong_code,
        _statuses(400),
    ),
    "wrong codes per client": Case(
        {
            "SECOND_FACTOR_RATE_PER_CLIENT": f"{AMOUNT}/15m",
            "SECOND_FACTOR_RATE_PER_ACCOUNT": "100/15m",
        },
        _past_the_password(REQUESTS),
        _wrong_code,
        _statuses(400),
    ),
}
LTI_CASES = {name for name in CASES if name.startswith("LTI")}


def run_case(name: str, settings: Any, platform: Any) -> int:
    """How many of REQUESTS concurrent requests of case `name` went past its limit."""
    case = CASES[name]
    for setting, value in case.settings.items():
        setattr(settings, setting, value)
    settings.PASSWORD_HASHERS = [f"{__name__}.CheckingHasher"]
    need = case.prepare(platform)
    CheckingHasher.checked = 0
    mail.outbox = []
    answers = at_once(REQUESTS, lambda n: case.send(need, n))
    return case.counted(answers)
