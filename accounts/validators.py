"""Password rules Django's own validators leave out."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


class NotOnlySpacesValidator:
    """Refuse a password made of spaces alone: long enough for Django, guessed at once."""

    def validate(self, password: str, user=None) -> None:
        if not password.strip():
            raise ValidationError(
                _("Your password cannot be only spaces."), code="password_only_spaces"
            )

    def get_help_text(self) -> str:
        return _("Your password cannot be only spaces.")
