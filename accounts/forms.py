from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.forms import PasswordResetForm as DjangoPasswordResetForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from .mail import email_changed_notice, send_later
from .models import Profile
from .signals import lookalike_error

EMAIL_TAKEN = _("Another account uses this email address. Sign in to it, or leave this empty.")


def _email_field(label) -> forms.EmailField:
    return forms.EmailField(
        label=label,
        required=False,
        max_length=254,
        help_text=_("Only used to help you if you forget your password."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


def clean_unique_email(email: str, *, exclude_pk: int | None = None) -> str:
    """An address unique case-insensitively (the database holds an index that agrees)."""
    email = User.objects.normalize_email(email.strip())
    if email and User.objects.filter(email__iexact=email).exclude(pk=exclude_pk).exists():
        raise forms.ValidationError(EMAIL_TAKEN, code="email_taken")
    return email


class LoginForm(AuthenticationForm):
    """Django's sign-in form, which refuses a username longer than any account's.

    Django sets the field's max_length after the field is made, which only reaches the
    widget: a longer name went on to authentication, and django-axes' records of failed
    sign-ins (255 characters) failed on PostgreSQL with a 500.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["username"]
        field.validators.append(MaxLengthValidator(field.max_length))


class SignUpForm(UserCreationForm):
    email = _email_field(_("Email (optional)"))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()
        if not username:  # Django found it taken already (case-insensitively).
            return username
        # Beyond case and NFKC (Django's checks): a name that looks like another is taken too.
        if Profile.objects.looking_like(username).exists():
            raise lookalike_error(User)
        return username

    def clean_email(self) -> str:
        return clean_unique_email(self.cleaned_data.get("email", ""))

    def save(self, commit: bool = True) -> User | None:
        """The new user with their profile; None (and a form error) if a look-alike name or
        the same email address was taken by someone signing up at the same moment."""
        try:
            with transaction.atomic():
                user = super().save()  # with its profile (accounts.signals)
        except (IntegrityError, ValidationError):
            self.add_error(
                None, _("That username or email address was taken a moment ago; choose another.")
            )
            return None
        return user


class ProfileForm(forms.Form):
    email = _email_field(_("Email"))
    language = forms.ChoiceField(
        label=_("Preferred language"),
        choices=[("", _("The language I am reading in"))] + list(settings.LANGUAGES),
        required=False,
        help_text=_("The site switches to it when you sign in."),
    )
    password = forms.CharField(
        label=_("Current password"),
        required=False,
        strip=False,
        help_text=_("Needed only to change your email address."),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user: User, **kwargs) -> None:
        self.user = user
        self.profile = Profile.for_user(user)
        kwargs.setdefault("initial", {"email": user.email, "language": self.profile.language})
        super().__init__(*args, **kwargs)

    def clean_email(self) -> str:
        return clean_unique_email(self.cleaned_data.get("email", ""), exclude_pk=self.user.pk)

    @property
    def changes_email(self) -> bool:
        email = self.cleaned_data.get("email")
        return email is not None and email.casefold() != self.user.email.casefold()

    def clean(self) -> dict:
        cleaned = super().clean()
        # Whoever finds a computer left signed in must not redirect password resets to
        # themselves: a new address needs the password, as a new password does.
        if self.changes_email and not self.user.check_password(cleaned.get("password") or ""):
            self.add_error(
                "password",
                forms.ValidationError(
                    _("Your current password was entered incorrectly. Please enter it again."),
                    code="password_incorrect",
                ),
            )
        return cleaned

    def save(self) -> bool:
        """Store the changes; False (and a form error) if the address was taken meanwhile.
        A changed address is told to the old one (`accounts.mail.email_changed_notice`)."""
        old_email = self.user.email
        try:
            with transaction.atomic():
                self.user.email = self.cleaned_data["email"]
                self.user.save(update_fields=["email"])
                self.profile.language = self.cleaned_data["language"]
                self.profile.save(update_fields=["language"])
        except IntegrityError:
            self.add_error("email", forms.ValidationError(EMAIL_TAKEN, code="email_taken"))
            return False
        if old_email and old_email.casefold() != self.user.email.casefold():
            email_changed_notice(
                user=self.user, old_email=old_email, language=self.profile.language
            )
        return True


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


class PasswordResetForm(DjangoPasswordResetForm):
    """Django's reset form, whose mail is written in the learner's preferred language."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].widget.attrs["autocomplete"] = "email"

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ):
        """Write the mail here, in the learner's language, and leave its sending to the worker
        (`accounts.mail.send_later`): a reset for a known address answers as fast as one for
        an unknown address."""
        language = Profile.for_user(context["user"]).language or translation.get_language()
        with translation.override(language):
            subject = render_to_string(subject_template_name, context)
            body = render_to_string(email_template_name, context)
            html = html_email_template_name and render_to_string(html_email_template_name, context)
        send_later(
            subject="".join(subject.splitlines()), body=body, to=[to_email], html=html or None
        )
