"""What the learner views share: typed requests, `learner_required`, page or fragment."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate, cast

from django.contrib.auth.views import redirect_to_login
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from ..models import Quiz

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (django-htmx's documented pattern)."""

    htmx: HtmxDetails


class LearnerRequest(HtmxHttpRequest):
    """A request that `learner_required` let through: its user is signed in."""

    user: User  # narrowed from User | AnonymousUser


type LearnerView[**P] = Callable[Concatenate[LearnerRequest, P], HttpResponse]


type AnyRequestView[**P] = Callable[Concatenate[HtmxHttpRequest, P], HttpResponse]


def learner_required[**P](view: LearnerView[P]) -> AnyRequestView[P]:
    """Like login_required, but an htmx request is sent to sign in as a whole page.

    (Responses to signed-in learners are kept out of shared caches by
    accounts.middleware.private_when_signed_in.)
    """

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if request.user.is_authenticated:
            # Signed in now: its user is a User, as LearnerRequest says.
            return view(cast(LearnerRequest, request), *args, **kwargs)
        if request.htmx:
            # Back after signing in to the step asked for (Next's address is a whole page too);
            # a form sent is not replayed, so after a POST back to the page it was sent from.
            if request.method == "POST":
                next_url = current_page(request) or request.get_full_path()
            else:
                next_url = request.get_full_path()
            login = redirect_to_login(next_url)
            return HttpResponseClientRedirect(login["Location"])
        return redirect_to_login(request.get_full_path())

    return wrapper


def current_page(request: HtmxHttpRequest) -> str | None:
    """The path of the page an htmx request came from, if it is on this site.

    HX-Current-URL is the browser's word, and anyone can send a header that urlsplit refuses
    (`http://[`): that is no page of ours, not a server error.
    """
    try:
        return request.htmx.current_url_abs_path
    except ValueError:
        return None


def page_or_fragment(request: HtmxHttpRequest, template: str, fragment: str) -> str:
    """The whole page, or only `fragment` of it for an htmx swap (never for history restore)."""
    if request.htmx and not request.htmx.history_restore_request:
        return f"{template}#{fragment}"
    return template


def published_quiz(slug: str) -> Quiz:
    quizzes: QuerySet[Quiz] = Quiz.objects.published().select_related("guide")
    return get_object_or_404(quizzes, slug=slug)


def answer_data(request: HttpRequest, *fields: str) -> dict[str, Any]:
    """The posted answer, with `choice` as a list (one radio button or several boxes), `match`
    and `position` as lists in their fields' order (`match-1`, `match-2`, …: a matching
    question's selects, an ordering question's), the level `confidence`, and any other
    `fields`, as posted (the review page's card and revision)."""
    return {
        "choice": request.POST.getlist("choice"),
        "number": request.POST.get("number", ""),
        "text": request.POST.get("text", ""),
        "match": _numbered_fields(request, "match"),
        "position": _numbered_fields(request, "position"),
        "question": request.POST.get("question", ""),
        # How sure the learner is (quizzes/confidence.py), when the quiz or review asks.
        "confidence": request.POST.get("confidence", ""),
        **{name: request.POST.get(name, "") for name in fields},
    }


# More numbered fields than any question has (matching's prompts, ordering's items) is junk.
MAX_NUMBERED_FIELDS = 100
_NUMBERED = re.compile(r"^(match|position)-([1-9][0-9]{0,2})$")


def _numbered_fields(request: HttpRequest, name: str) -> list[str]:
    """`name-1`, `name-2`, … as posted, in order ("" for a number missing among them)."""
    posted = {}
    for key in request.POST:
        found = _NUMBERED.match(key)
        if found and found[1] == name:
            posted[int(found[2])] = request.POST.get(key, "")
    if not posted:
        return []
    last = min(max(posted), MAX_NUMBERED_FIELDS + 1)
    return [posted.get(number, "") for number in range(1, last + 1)]


def same_site_path(request: HtmxHttpRequest) -> str:
    """`next` if it is a path on this site (where to go back after reporting), else ""."""
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if next_url.startswith("/") and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return ""
