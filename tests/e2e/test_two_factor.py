"""Two-factor sign-in for staff in Chromium, as in production (DEBUG off, so the requirement is
on): the admin does not open until a second factor is set up; then a staff member signs in
with an authenticator app's code, and with a passkey (Chromium's virtual authenticator)."""

from __future__ import annotations

import re
import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value
from django.core.cache import cache
from playwright.sync_api import BrowserContext, Page, expect

from tests.factories import PASSWORD, make_user


def _staff():
    # An administrator: earlier browser tests flush the Instructors group away.
    return make_user("Ustadha", is_staff=True, is_superuser=True)


@pytest.fixture
def production_requirement(settings, live_server, transactional_db):
    assert settings.DEBUG is False  # pytest-django runs the live server with DEBUG off
    settings.MFA_REQUIRED_FOR_STAFF = True
    # http://localhost is a secure context for the browser; fido2 checks origins only on https.
    settings.MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True


def _code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def _sign_in_with_password(page: Page, next_path: str = "/en/admin/") -> None:
    page.goto(next_path)
    expect(page).to_have_url(re.compile(r"/en/accounts/login/\?next="))
    page.get_by_label("Username").fill("ustadha")  # the account is "Ustadha"
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Sign in", exact=True).click()


def _confirm_password_if_asked(page: Page) -> None:
    if "/reauthenticate/" in page.url:
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Confirm").click()


def _admin_opens(page: Page) -> None:
    page.goto("/en/admin/")
    expect(page).to_have_url(re.compile(r"/en/admin/$"))
    expect(page.locator("#site-name")).to_be_visible()


def _blocked_until_set_up(page: Page) -> None:
    expect(page).to_have_url(re.compile(r"/en/accounts/2fa/$"))
    expect(page.locator(".messages")).to_contain_text(
        "Staff accounts need two-factor sign-in before the admin opens"
    )


def _sign_out(page: Page) -> None:
    page.goto("/en/")
    page.get_by_role("navigation", name="Main").get_by_role("button", name="Sign out").click()
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Sign in")
    ).to_be_visible()


def test_staff_set_up_totp_before_the_admin_opens_and_sign_in_with_its_code(
    page: Page, production_requirement, console_errors
):
    _staff()
    _sign_in_with_password(page)
    _blocked_until_set_up(page)

    page.goto("/en/accounts/2fa/totp/activate/")
    _confirm_password_if_asked(page)
    secret = page.locator("#authenticator_secret").input_value()
    page.get_by_label("Authenticator code").fill(_code(secret))
    page.get_by_role("button", name="Activate").click()
    expect(page).not_to_have_url(re.compile(r"/totp/activate/"))
    _admin_opens(page)

    _sign_out(page)
    cache.clear()  # the code just used may be used again in this 30-second step
    _sign_in_with_password(page)
    expect(page).to_have_url(re.compile(r"/en/accounts/2fa/authenticate/$"))
    page.get_by_label("Code").fill("000000")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text("Incorrect code.").first).to_be_visible()
    page.get_by_label("Code").fill(_code(secret))
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/en/admin/$"))
    expect(page.locator("#site-name")).to_be_visible()
    # The wrong code's page answers 400 (a form sent back with its error), which Chromium
    # logs; nothing else may.
    wrong_code = "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    assert [error for error in console_errors if error != wrong_code] == []
    assert console_errors.count(wrong_code) == 1


def test_staff_add_a_passkey_before_the_admin_opens_and_sign_in_with_it(
    page: Page, context: BrowserContext, production_requirement, console_errors
):
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    instructor = _staff()
    _sign_in_with_password(page)
    _blocked_until_set_up(page)

    page.goto("/en/accounts/2fa/webauthn/add/")
    _confirm_password_if_asked(page)
    page.get_by_label("Name of this passkey").fill("Laptop")
    page.get_by_label("Passwordless").check()
    page.locator("#mfa_webauthn_add").click()
    expect(page).not_to_have_url(re.compile(r"/webauthn/add/"))
    assert Authenticator.objects.filter(user=instructor, type=Authenticator.Type.WEBAUTHN).exists()
    _admin_opens(page)

    _sign_out(page)
    # With a password, the second step offers the account's key, and asks for the codes it
    # has: the recovery codes allauth made with the key, no authenticator app (issue 53).
    _sign_in_with_password(page)
    expect(page).to_have_url(re.compile(r"/en/accounts/2fa/authenticate/"))
    expect(page.get_by_text("Enter one of your recovery codes.")).to_be_visible()
    page.get_by_role("button", name="Use a security key").click()
    expect(page).to_have_url(re.compile(r"/en/admin/$"))

    _sign_out(page)
    page.goto("/en/accounts/login/?next=/en/admin/")
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page).to_have_url(re.compile(r"/en/admin/$"))
    expect(page.locator("#site-name")).to_be_visible()
    assert console_errors == []
