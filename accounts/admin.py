"""Users in the admin: Django's pages, whose email field keeps addresses unique and whose
username refuses a look-alike of another account's; allauth's two-factor methods, named in the
page's language."""

from __future__ import annotations

from dataclasses import replace

from allauth.mfa.admin import AuthenticatorAdmin as AllauthAuthenticatorAdmin
from allauth.mfa.models import Authenticator
from django.contrib import admin
from django.contrib.admin.options import ActionLocation
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm as DjangoUserCreationForm
from django.contrib.auth.forms import UserChangeForm as DjangoUserChangeForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from .forms import clean_unique_email
from .models import Profile
from .signals import lookalike_error


def clean_unlike_username(username: str, *, exclude_pk: int | None = None) -> str:
    """A username that looks like no other account's (accounts.usernames)."""
    if username and Profile.objects.looking_like(username).exclude(user_id=exclude_pk).exists():
        raise lookalike_error(User)
    return username


class UserCreationForm(DjangoUserCreationForm):
    def clean_username(self) -> str:
        return clean_unlike_username(super().clean_username())


class UserChangeForm(DjangoUserChangeForm):
    def clean_username(self) -> str:
        username = self.cleaned_data.get("username", "")
        if "username" not in self.changed_data:
            return username
        return clean_unlike_username(username, exclude_pk=self.instance.pk)

    def clean_email(self) -> str:
        return clean_unique_email(self.cleaned_data.get("email", ""), exclude_pk=self.instance.pk)


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = UserChangeForm
    add_form = UserCreationForm


# allauth.mfa's authenticators (TOTP apps, recovery codes, security keys): allauth's page, with
# the names it leaves in English (a model without a verbose name, its fields' labels) said in
# the page's language. Staff remove a learner's lost second factor here.
admin.site.unregister(Authenticator)


def _titled(base, title):
    """A field's list filter under our title (Django's takes the field's verbose name, which
    allauth leaves in English)."""

    class Titled(base):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.title = title

    return Titled


@admin.register(Authenticator)
class AuthenticatorAdmin(AllauthAuthenticatorAdmin):
    list_display = ("account", "kind", "added", "last_used")
    list_filter = (
        ("type", _titled(admin.ChoicesFieldListFilter, _("kind"))),
        ("created_at", _titled(admin.DateFieldListFilter, _("added"))),
        ("last_used_at", _titled(admin.DateFieldListFilter, _("last used"))),
    )

    @admin.display(description=_("user"), ordering="user__username")
    def account(self, authenticator: Authenticator) -> str:
        return authenticator.user.get_username()

    @admin.display(description=_("kind"), ordering="type")
    def kind(self, authenticator: Authenticator) -> str:
        return authenticator.get_type_display()

    @admin.display(description=_("added"), ordering="created_at")
    def added(self, authenticator: Authenticator):
        return authenticator.created_at

    @admin.display(description=_("last used"), ordering="last_used_at", empty_value="—")
    def last_used(self, authenticator: Authenticator):
        return authenticator.last_used_at

    def has_add_permission(self, request) -> bool:
        # A second factor is set up by its owner (allauth's pages), never typed in here.
        return False

    def changelist_view(self, request, extra_context=None):
        title = _("Choose a two-factor sign-in method to change")
        return super().changelist_view(request, {"title": title, **(extra_context or {})})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        title = _("A two-factor sign-in method")
        context = {"title": title, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, context)

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        if "delete_selected" in actions:
            description = _("Delete selected two-factor sign-in methods")
            actions["delete_selected"] = replace(
                actions["delete_selected"],
                description=description,
                plural_description=description,
            )
        return actions
