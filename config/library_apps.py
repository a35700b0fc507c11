"""Libraries' apps under names in the page's language: axes and django-tasks-db leave their
app's name to Django, which makes it from the label ("Axes", or a plain English string), and the
admin shows it on every page of theirs (its index, its sidebar, its breadcrumbs). Each is named
here through Django's documented way, an AppConfig subclass in INSTALLED_APPS."""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig
from django.utils.translation import gettext_lazy as _
from django_tasks_db.apps import TasksAppConfig


class AxesConfig(AxesAppConfig):
    verbose_name = _("Sign-in lockouts")


class TasksConfig(TasksAppConfig):
    verbose_name = _("Background tasks")
