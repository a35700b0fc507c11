"""Every page of allauth's and of the admin that Daleel serves, and every mail it sends, read in
Arabic without the forms a native reader trips on (tests/arabic_wording.py): the libraries'
catalogues («كود»، «وزارة الخارجية»، «تمّ» + verbal noun, «و / أو»), their stock mails, and
controls in the imperative. Our own page types are swept in a browser
(tests/e2e/test_arabic_wording.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import time_machine
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.test import Client

from accounts.mail import send_template_later
from tests.arabic_wording import forbidden_in_text, problems, read
from tests.factories import PASSWORD, make_instructor, make_quiz, make_user

pytestmark = pytest.mark.django_db


def _signed_in(user) -> Client:
    """Signed in, with the password entered just now (allauth asks again before its security
    pages)."""
    client = Client()
    client.force_login(user)
    client.post("/ar/accounts/reauthenticate/", {"password": PASSWORD})
    return client


def _assert_reads_well(response, path: str) -> None:
    assert response.status_code in (200, 400), (path, response.status_code)
    html = response.content.decode()
    assert 'lang="ar"' in html, path
    assert problems(html) == [], path


def test_no_translation_in_our_catalogue_holds_a_forbidden_form():
    """Beyond the pages rendered here: every message of ours and every library message we
    word, in every plural form. The code block's label is «شيفرة برمجية» by its context."""
    from .test_catalogue import PO, parse_po

    found = {
        entry.msgid: issues
        for entry in parse_po(PO)[1:]
        if entry.msgctxt != "a block of program code"
        for form in entry.msgstr.values()
        if (issues := forbidden_in_text(form))
    }
    assert found == {}


# --- allauth's pages --------------------------------------------------------------------------

SIGNED_OUT_PAGES = [
    "/ar/accounts/login/",
    "/ar/accounts/signup/",
    "/ar/accounts/password/reset/",
    "/ar/accounts/password/reset/done/",
    "/ar/accounts/password/reset/key/1-no-such-key/",
    "/ar/accounts/password/reset/key/done/",
    "/ar/accounts/confirm-email/no-such-key/",
    "/ar/accounts/inactive/",
]

SIGNED_IN_PAGES = [
    "/ar/accounts/email/",
    "/ar/accounts/confirm-email/",
    "/ar/accounts/password/change/",
    "/ar/accounts/reauthenticate/",
    "/ar/accounts/logout/",
    "/ar/accounts/2fa/",
    "/ar/accounts/2fa/totp/activate/",
    "/ar/accounts/2fa/webauthn/",
    "/ar/accounts/profile/",
    "/ar/accounts/profile/preferences/",
    "/ar/accounts/delete/",
]

TWO_FACTOR_PAGES = [
    "/ar/accounts/2fa/",
    "/ar/accounts/2fa/reauthenticate/",
    "/ar/accounts/2fa/totp/deactivate/",
    "/ar/accounts/2fa/recovery-codes/",
    "/ar/accounts/2fa/recovery-codes/generate/",
    "/ar/accounts/2fa/webauthn/add/",
]


@pytest.mark.parametrize("path", SIGNED_OUT_PAGES)
def test_allauths_pages_for_visitors_read_well_in_arabic(client, path):
    _assert_reads_well(client.get(path), path)


@pytest.mark.parametrize("path", SIGNED_IN_PAGES)
def test_allauths_pages_for_a_learner_read_well_in_arabic(path):
    learner = make_user("amina", email="amina@example.com")
    _assert_reads_well(_signed_in(learner).get(path), path)


@pytest.mark.parametrize("path", TWO_FACTOR_PAGES)
def test_the_two_factor_pages_read_well_in_arabic(path):
    learner = make_user("amina", email="amina@example.com")
    TOTP.activate(learner, generate_totp_secret())
    RecoveryCodes.activate(learner)
    _assert_reads_well(_signed_in(learner).get(path), path)


def test_the_security_key_pages_read_well_in_arabic():
    """The list, edit and remove pages of a security key (its credential is not read by them
    but its passwordless flag, absent here: «غير معروف»)."""
    from allauth.mfa.models import Authenticator

    learner = make_user("amina", email="amina@example.com")
    TOTP.activate(learner, generate_totp_secret())
    key = Authenticator.objects.create(
        user=learner, type=Authenticator.Type.WEBAUTHN, data={"name": "Laptop", "credential": {}}
    )
    client = _signed_in(learner)
    for path in (
        "/ar/accounts/2fa/webauthn/",
        f"/ar/accounts/2fa/webauthn/keys/{key.pk}/edit/",
        f"/ar/accounts/2fa/webauthn/keys/{key.pk}/remove/",
    ):
        _assert_reads_well(client.get(path), path)


def test_a_failed_sign_in_says_so_without_and_or(client):
    make_user("amina")
    response = client.post("/ar/accounts/login/", {"login": "amina", "password": "wrong-one"})
    _assert_reads_well(response, "failed sign-in")
    assert "اسم المستخدم أو كلمة المرور غير صحيحة." in read(response.content.decode())[0]


def test_the_set_password_page_reads_well_in_arabic():
    learner = make_user("amina")
    learner.set_unusable_password()
    learner.save()
    client = Client()
    client.force_login(learner)
    _assert_reads_well(client.get("/ar/accounts/password/set/"), "password set")


def test_the_verification_page_of_a_link_reads_well_in_arabic(client):
    learner = make_user("amina", email="amina@example.com", verified=False)
    address = EmailAddress.objects.get(user=learner)
    key = EmailConfirmationHMAC(address).key
    response = client.get(f"/ar/accounts/confirm-email/{key}/")
    _assert_reads_well(response, "confirm-email")
    page = response.content.decode()
    assert "التحقق من البريد الإلكتروني" in page
    # A question, and a button in the glossary's verb (issue 53).
    assert re.search(r"هل <a [^>]*>amina@example.com</a> عنوانك في حساب <bdi>amina</bdi>؟", page)
    assert "التحقق من العنوان" in read(page)[1]

    response = client.post(f"/ar/accounts/confirm-email/{key}/", follow=True)

    assert "تحقّقنا من العنوان amina@example.com." in read(response.content.decode())[0]


def test_the_email_page_draws_its_field_as_every_other_form(client):
    client.force_login(make_user("amina"))

    page = client.get("/ar/accounts/email/").content.decode()

    field = re.search(r'<div class="field">\s*<label for="id_email">([^<]+)</label>', page)
    assert field and field[1] == "البريد الإلكتروني الجديد"  # no colon, above its box
    assert "لا بريد إلكتروني بعد: من دونه لا يمكن إعادة تعيين كلمة مرور منسية." in page
    assert "تحذير" not in page and 'style="' not in page


def test_the_reset_form_of_a_valid_link_reads_well_in_arabic(client):
    learner = make_user("amina", email="amina@example.com")
    key = f"{user_pk_to_url_str(learner)}-{default_token_generator.make_token(learner)}"
    response = client.get(f"/ar/accounts/password/reset/key/{key}/", follow=True)
    _assert_reads_well(response, "reset form")


def test_the_second_factor_step_says_code_and_its_error_in_one_word(client):
    """Its field is «الرمز», not «شيفرة برمجية» (our code blocks' label), and a wrong code is
    «الرمز غير صحيح», not «كود خاطئ» under a sentence that says «الرمز»."""
    learner = make_user("amina")
    TOTP.activate(learner, generate_totp_secret())
    client.post("/ar/accounts/login/", {"login": "amina", "password": PASSWORD})
    page = client.get("/ar/accounts/2fa/authenticate/")
    _assert_reads_well(page, "2fa authenticate")
    wrong = client.post("/ar/accounts/2fa/authenticate/", {"code": "000000"})
    _assert_reads_well(wrong, "2fa authenticate, wrong code")
    text, controls = read(wrong.content.decode())
    assert "الرمز غير صحيح." in text
    assert '<label for="id_code">الرمز</label>' in wrong.content.decode()
    assert "تسجيل الدخول" in controls


def test_the_authenticator_secret_is_whole_read_only_and_left_to_right():
    learner = make_user("amina", email="amina@example.com")
    page = _signed_in(learner).get("/ar/accounts/2fa/totp/activate/").content.decode()
    [field] = re.findall(r'<input id="authenticator_secret"[^>]*>', page)
    assert "readonly" in field and 'dir="ltr"' in field and "disabled" not in field


# --- The admin --------------------------------------------------------------------------------


@pytest.fixture
def admin_client(seed_quizzes):
    root = make_instructor("ustadha")
    root.is_superuser = True
    root.save()
    make_quiz(questions=2)
    return _signed_in(root)


def _admin_pages(client: Client) -> list[str]:
    """Every model's list and add page the admin's index links to, and the index."""
    index = client.get("/ar/admin/").content.decode()
    links = re.findall(r'href="(/ar/admin/[a-z_]+/[a-z_]+/(?:add/)?)"', index)
    assert len(links) > 20
    return ["/ar/admin/", *dict.fromkeys(links)]


def test_every_admin_list_and_add_page_reads_well_in_arabic(admin_client):
    found = {}
    for path in _admin_pages(admin_client):
        response = admin_client.get(path)
        assert response.status_code == 200, path
        if issues := problems(response.content.decode()):
            found[path] = issues
    assert found == {}


def test_a_quizs_admin_pages_read_well_in_arabic(admin_client):
    from quizzes.models import Quiz

    quiz = Quiz.objects.order_by("pk").first()
    question = quiz.questions.order_by("position").first()
    paths = [
        f"/ar/admin/quizzes/quiz/{quiz.pk}/change/",
        f"/ar/admin/quizzes/quiz/{quiz.pk}/delete/",
        f"/ar/admin/quizzes/quiz/{quiz.pk}/history/",
        f"/ar/admin/quizzes/question/{question.pk}/change/",
    ]
    for path in paths:
        response = admin_client.get(path)
        assert response.status_code == 200, path
        assert problems(response.content.decode()) == [], path


def test_the_admin_index_names_every_section_in_arabic(admin_client):
    page = admin_client.get("/ar/admin/").content.decode()
    text, _controls = read(page)
    assert "إدارة دليل" in text
    captions = re.findall(r"<caption>\s*<a[^>]*>([^<]+)</a>", page)
    # allauth.mfa's section, and the apps whose libraries leave them unnamed ("Axes").
    for section in ("تسجيل الدخول بعاملين", "إيقاف تسجيل الدخول بعد المحاولات الفاشلة"):
        assert section in captions
    assert "المهام في الخلفية" in captions
    for model in ("وسائل تسجيل الدخول بعاملين", "نتائج المهام"):
        assert model in text
    # No section in English but an acronym («LTI»).
    assert not [c for c in captions if re.fullmatch(r"[A-Za-z ]+", c) and not c.isupper()]


def test_the_admin_counts_its_results_in_agreement_with_the_number(admin_client):
    page = admin_client.get("/ar/admin/quizzes/quiz/").content.decode()
    assert "3 نتائج" in read(page)[0]  # two seed quizzes and one made here
    english = admin_client.get("/en/admin/quizzes/quiz/").content.decode()
    assert "3 results" in read(english)[0]


# --- Mails ------------------------------------------------------------------------------------

ALLAUTH_TEMPLATES = Path(__import__("allauth").__file__).parent / "templates"
OURS = Path(settings.BASE_DIR) / "templates"
HOST = "testserver"
LINK = f"http://{HOST}/ar/accounts/somewhere/"
NOTICE = {"ip": "203.0.113.5", "user_agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0"}

# Every mail Daleel sends, with what its sender puts in it (allauth's adapter, ours).
MAILS: dict[str, dict] = {
    "account/email/email_confirmation_signup": {"activate_url": LINK, "key": "k"},
    "account/email/email_confirmation": {"activate_url": LINK, "key": "k"},
    "account/email/password_reset_key": {"password_reset_url": LINK},
    "account/email/password_reset_unverified": {"activate_url": LINK},
    "account/email/unknown_account": {"signup_url": LINK},
    "account/email/account_already_exists": {"password_reset_url": LINK},
    "account/email/email_changed": {"from_email": "a@example.com", "to_email": "b@example.com"},
    "account/email/email_confirm": NOTICE,
    "account/email/email_deleted": {**NOTICE, "deleted_email": "old@example.com"},
    "account/email/password_changed": NOTICE,
    "account/email/password_reset": NOTICE,
    "account/email/password_set": NOTICE,
    "mfa/email/totp_activated": NOTICE,
    "mfa/email/totp_deactivated": NOTICE,
    "mfa/email/webauthn_added": NOTICE,
    "mfa/email/webauthn_removed": NOTICE,
    "mfa/email/recovery_codes_generated": NOTICE,
}
# allauth's mails for features Daleel has off (each checked below).
NOT_SENT = {
    "account/email/login_code": "ACCOUNT_LOGIN_BY_CODE_ENABLED",
    "account/email/password_reset_code": "ACCOUNT_PASSWORD_RESET_BY_CODE_ENABLED",
}
WITHOUT_A_USER = {"account/email/unknown_account", "account/email/account_already_exists"}


def test_every_mail_allauth_can_send_is_ours_or_belongs_to_a_feature_that_is_off():
    theirs = {
        path.relative_to(ALLAUTH_TEMPLATES).as_posix().removesuffix("_message.txt")
        for folder in ("account/email", "mfa/email")
        for path in (ALLAUTH_TEMPLATES / folder).glob("*_message.txt")
    } - {"account/email/base"}
    assert theirs == set(MAILS) - {"account/email/password_reset_unverified"} | set(NOT_SENT)
    for prefix in MAILS:
        assert (OURS / f"{prefix}_subject.txt").exists(), prefix
        assert (OURS / f"{prefix}_message.txt").exists(), prefix
    for setting in NOT_SENT.values():
        assert not getattr(settings, setting, False), setting


@pytest.mark.parametrize("prefix", list(MAILS))
def test_every_mail_reads_well_in_arabic_signed_by_daleel_with_no_host_in_its_prose(
    mailoutbox, prefix
):
    user = make_user("amina", email="amina@example.com")
    send_template_later(
        template_prefix=prefix,
        to="amina@example.com",
        context=MAILS[prefix],
        user_pk=None if prefix in WITHOUT_A_USER else user.pk,
        language="ar",
        host=HOST,
    )
    [message] = mailoutbox
    assert "«دليل»" in message.subject
    assert forbidden_in_text(message.subject) == []
    assert forbidden_in_text(message.body) == [], message.body
    lines = message.body.splitlines()
    assert lines[0] in ("مرحبًا amina،", "مرحبًا،")
    assert lines[-1] == "دليل" and lines[-2] == "" and lines[-3] != ""
    prose = [line for line in lines if line and not line.startswith("http")]
    assert not [line for line in prose if HOST in line], message.body
    assert not re.search(
        r"[A-Za-z]{4,}",
        " ".join(prose)
        .replace("Mozilla", "")
        .replace("Linux", "")
        .replace("Chrome", "")
        .replace("example", "")
        .replace("amina", ""),
    ), message.body


@pytest.mark.parametrize("prefix", list(MAILS))
def test_every_mail_goes_in_the_learners_language_whatever_the_requests(mailoutbox, prefix):
    """A learner whose language is Arabic gets Arabic from an English page, and the other way
    round; a mail to an address without an account goes in the page's language."""
    from accounts.models import Profile

    user = make_user("amina", email="amina@example.com")
    Profile.objects.filter(user=user).update(language="ar")
    no_user = prefix in WITHOUT_A_USER
    send_template_later(
        template_prefix=prefix,
        to="amina@example.com",
        context=MAILS[prefix],
        user_pk=None if no_user else user.pk,
        language="ar" if no_user else "en",
        host=HOST,
    )
    [message] = mailoutbox
    assert re.search("[\u0600-\u06ff]", message.subject)
    assert "Daleel" not in message.body


# --- The learner's language follows them --------------------------------------------------------


def _sign_up(client: Client, lang: str, username: str = "amina") -> None:
    response = client.post(
        f"/{lang}/accounts/signup/",
        {
            "username": username,
            "email": f"{username}@example.com",
            "password1": "a-long-passphrase-for-tests-51",
            "password2": "a-long-passphrase-for-tests-51",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_signing_up_keeps_the_pages_language_as_the_learners(client, lang):
    from accounts.models import Profile

    _sign_up(client, lang)
    assert Profile.objects.get(user__username="amina").language == lang


def test_the_sign_up_mail_on_arabic_pages_is_ours_in_arabic(client, mailoutbox):
    _sign_up(client, "ar")
    [message] = mailoutbox
    assert message.subject == "مرحبًا بك في «دليل»: التحقق من بريدك الإلكتروني"
    assert "/ar/accounts/confirm-email/" in message.body
    assert forbidden_in_text(message.body) == []


def test_after_signing_up_in_arabic_reset_mails_asked_from_english_pages_are_arabic(
    client, mailoutbox
):
    _sign_up(client, "ar")
    address = EmailAddress.objects.get(email="amina@example.com")
    address.verified = True
    address.save()
    mailoutbox.clear()
    Client().post("/en/accounts/password/reset/", {"email": "amina@example.com"})
    [message] = mailoutbox
    assert message.subject == "إعادة تعيين كلمة المرور في «دليل»"
    assert "/ar/accounts/password/reset/key/" in message.body


def test_after_signing_up_in_arabic_reminders_are_arabic(client, settings):
    from datetime import UTC, datetime, timedelta

    from django.core.management import call_command

    from accounts.models import Profile
    from quizzes.models import ReviewCard
    from quizzes.review.scheduler import card_of, card_record_quiz_answer

    settings.SITE_ORIGIN = "https://daleel.example"
    _sign_up(client, "ar")
    learner = EmailAddress.objects.get(email="amina@example.com").user
    EmailAddress.objects.filter(user=learner).update(verified=True)
    Profile.objects.filter(user=learner).update(reminder_hour=8, time_zone="Asia/Riyadh")
    quiz = make_quiz(questions=2)
    morning = datetime(2026, 11, 3, 5, 0, tzinfo=UTC)
    for question in quiz.questions.all():
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=False,
            at=morning,
        )
    ReviewCard.objects.filter(user=learner).update(due=morning - timedelta(hours=1))
    mail.outbox.clear()
    with time_machine.travel(morning, tick=False):
        call_command("send_review_reminders", stdout=open("/dev/null", "w"))  # noqa: SIM115
    [message] = mail.outbox
    assert "https://daleel.example/ar/review/" in message.body
    assert "«دليل»" in message.subject
    assert forbidden_in_text(message.body) == []
