from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .review import review_due_badge


def review_due(request: HttpRequest) -> dict[str, object]:
    """The number of review questions due, for the navigation: read (`review_due_badge`) only
    when a template shows it, so an htmx fragment, which has no navigation, pays nothing."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"review_due": SimpleLazyObject(lambda: review_due_badge(user_id=user.pk))}
