from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .usernames import skeleton


class Profile(models.Model):
    """What Daleel keeps about a learner beyond Django's user: made at sign-up, or at the first
    sign-in of an account made another way (createsuperuser, the admin)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("user"),
    )
    language = models.CharField(
        _("preferred language"),
        max_length=8,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("The site switches to it when you sign in."),
    )
    # The username's confusable skeleton (accounts.usernames): unique, so that two sign-ups
    # racing with look-alike names cannot both succeed. Empty for an account whose look-alike
    # existed before these checks did.
    username_skeleton = models.CharField(max_length=600, blank=True, editable=False)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints = [
            models.UniqueConstraint(
                fields=["username_skeleton"],
                condition=~Q(username_skeleton=""),
                name="one_account_per_username_skeleton",
            )
        ]

    def __str__(self) -> str:
        return str(self.user)

    @classmethod
    def for_user(cls, user) -> Profile:
        try:
            return cls.objects.get(user=user)
        except cls.DoesNotExist:
            pass
        try:
            with transaction.atomic():
                return cls.objects.create(
                    user=user, username_skeleton=skeleton(user.get_username())
                )
        except IntegrityError:
            # A look-alike account came first (made in the admin), or a parallel request
            # made this very profile.
            return cls.objects.get_or_create(user=user)[0]
