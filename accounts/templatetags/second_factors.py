"""What the second-factor sign-in page offers: the account's own methods only."""

from __future__ import annotations

from allauth.mfa.models import Authenticator
from django import template

register = template.Library()


@register.filter
def second_factors(user) -> set[str]:
    """The kinds of second factor `user` has set up ("totp", "recovery_codes", "webauthn"):
    the page asks for the codes they have and offers a key only to an account that has one."""
    if user is None or not getattr(user, "pk", None):
        return set()
    return set(Authenticator.objects.filter(user_id=user.pk).values_list("type", flat=True))
