from __future__ import annotations

from allauth.account.forms import SignupForm as AllauthSignupForm
from allauth.account.models import EmailAddress
from allauth.mfa.webauthn.forms import AddWebAuthnForm as AllauthAddWebAuthnForm
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .adapter import address_taken
from .models import Profile

EMAIL_TAKEN = _("Another account uses this email address. Sign in to it, or leave this empty.")


def clean_unique_email(email: str, *, exclude_pk: int | None = None) -> str:
    """An address unique case-insensitively (the database holds an index that agrees)."""
    email = User.objects.normalize_email(email.strip())
    if email and User.objects.filter(email__iexact=email).exclude(pk=exclude_pk).exists():
        raise forms.ValidationError(EMAIL_TAKEN, code="email_taken")
    return email


def welcome(user) -> SafeString:
    """The message after signing up, shown on the next page wherever `next` leads: where to
    go from here. The links are built apart, so the sentence to translate holds no markup."""

    def link(name: str, text: str) -> SafeString:
        return format_html('<a href="{}">{}</a>', reverse(name), text)

    parts = {
        "name": format_html("<bdi>{}</bdi>", user.get_username()),
        "catalog": link("quizzes:catalog", gettext("the catalog")),
        "review": link("quizzes:review", gettext("your review page")),
        "profile": link("accounts:profile", gettext("your profile")),
    }
    sentence = gettext(
        "Welcome to Daleel, %(name)s! Pick a quiz in %(catalog)s; questions you miss come back "
        "on %(review)s; %(profile)s holds your email address and language."
    )
    # The sentence escaped, its parts escaped as they were built: the whole is safe.
    return mark_safe(conditional_escape(sentence) % parts)


class SignupForm(AllauthSignupForm):
    """allauth's sign-up, whose answer is the same for a taken address as for a free one.

    A taken address is not written on the new account's user (the database keeps addresses
    unique): it is held unverified on the account, and its owner gets an "account already
    exists" mail where a free address gets its verification link (accounts.adapter)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "email" in self.fields:
            self.fields["email"].help_text = _(
                "Used for password resets once you verify it by the link we send."
            )

    def save(self, request: HttpRequest) -> User:
        email = self.cleaned_data.get("email") or ""
        if not email or not address_taken(email):
            with transaction.atomic():
                return super().save(request)
        self.cleaned_data["email"] = ""
        with transaction.atomic():
            user = super().save(request)
            EmailAddress.objects.create(
                user=user, email=email.lower(), primary=True, verified=False
            )
        return user

    def try_save(self, request: HttpRequest):
        try:
            return super().try_save(request)
        except IntegrityError:
            # A look-alike name, or the same free address, taken by a sign-up at this moment.
            self.add_error(
                None, _("That username or email address was taken a moment ago; choose another.")
            )
            return None, render(request, "account/signup.html", {"form": self}, status=400)

    def signup(self, request: HttpRequest, user: User) -> None:
        messages.success(request, welcome(user))


class ProfileForm(forms.Form):
    """The learner's preferences. The email address is changed on its own page (allauth's,
    with verification by link), the password on another."""

    language = forms.ChoiceField(
        label=_("Preferred language"),
        choices=[("", _("The language I am reading in"))] + list(settings.LANGUAGES),
        required=False,
        help_text=_("The site switches to it when you sign in."),
    )

    def __init__(self, *args, user: User, **kwargs) -> None:
        self.user = user
        self.profile = Profile.for_user(user)
        kwargs.setdefault("initial", {"language": self.profile.language})
        super().__init__(*args, **kwargs)

    def save(self) -> None:
        self.profile.language = self.cleaned_data["language"]
        self.profile.save(update_fields=["language"])


class PasswordConfirmForm(forms.Form):
    """Delete my account: the learner's password, so that nobody else at their computer can."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user: User, **kwargs) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(
                _("Your password was entered incorrectly. Please enter it again."),
                code="password_incorrect",
            )
        return password


class AddWebAuthnForm(AllauthAddWebAuthnForm):
    """allauth's form to add a passkey, whose name field has a label in our catalogue."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].label = _("Name of this passkey")
        self.fields["name"].help_text = _("For example “Laptop” or “Phone”, to tell keys apart.")
