"""Users in the admin: Django's pages, whose email field keeps addresses unique."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import UserChangeForm as DjangoUserChangeForm
from django.contrib.auth.models import User

from .forms import clean_unique_email


class UserChangeForm(DjangoUserChangeForm):
    def clean_email(self) -> str:
        return clean_unique_email(self.cleaned_data.get("email", ""), exclude_pk=self.instance.pk)


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = UserChangeForm
