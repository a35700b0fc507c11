"""The one-click end of review reminders, from the link in a reminder: no sign-in needed (the
link is signed), a confirm button for people (a link preview or a scanner that opens the link
must not unsubscribe), and a POST that mail clients send themselves (RFC 8058)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts.models import Profile

from ..reminders import profile_of_token

TEMPLATE = "quizzes/reminders_unsubscribe.html"


# CSRF-exempt: a mail client's one-click POST carries no token. Safe: all it can do is turn
# off the reminders of the profile the signed link names.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def reminders_unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    profile = profile_of_token(token)
    if profile is None:
        return render(request, TEMPLATE, {"invalid": True}, status=400)
    if request.method == "POST":
        Profile.objects.filter(pk=profile.pk).update(reminder_hour=None)
        return render(request, TEMPLATE, {"done": True})
    return render(request, TEMPLATE, {"subscribed": profile.reminder_hour is not None})
