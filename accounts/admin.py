"""Users in the admin: Django's pages, whose email field keeps addresses unique and whose
username refuses a look-alike of another account's."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm as DjangoUserCreationForm
from django.contrib.auth.forms import UserChangeForm as DjangoUserChangeForm
from django.contrib.auth.models import User

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
