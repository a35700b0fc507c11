from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .usernames import skeletons


class ProfileQuerySet(models.QuerySet):
    def looking_like(self, username: str) -> ProfileQuerySet:
        """The profiles of accounts whose names look like `username` (accounts.usernames)."""
        keys = set(skeletons(username))
        return self.filter(Q(username_skeleton__in=keys) | Q(username_folded_skeleton__in=keys))


class Profile(models.Model):
    """What Daleel keeps about a learner beyond Django's user: made with the user, however the
    user is made (sign-up, createsuperuser, the admin, the shell: accounts.signals), or at
    the first sign-in of an account that came without one (a fixture)."""

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
    # The skeleton of the case-folded username (`ALICE`: `alice`, where its own is `allce`).
    username_folded_skeleton = models.CharField(
        max_length=600, blank=True, default="", editable=False
    )

    objects = ProfileQuerySet.as_manager()

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints = [
            models.UniqueConstraint(
                fields=["username_skeleton"],
                condition=~Q(username_skeleton=""),
                name="one_account_per_username_skeleton",
            ),
            models.UniqueConstraint(
                fields=["username_folded_skeleton"],
                condition=~Q(username_folded_skeleton=""),
                name="one_account_per_folded_username_skeleton",
            ),
        ]

    def __str__(self) -> str:
        return str(self.user)

    @classmethod
    def for_user(cls, user) -> Profile:
        try:
            return cls.objects.get(user=user)
        except cls.DoesNotExist:
            pass
        plain, folded = skeletons(user.get_username())
        try:
            with transaction.atomic():
                return cls.objects.create(
                    user=user, username_skeleton=plain, username_folded_skeleton=folded
                )
        except IntegrityError:
            # A look-alike account came first (made before these checks), or a parallel
            # request made this very profile.
            return cls.objects.get_or_create(user=user)[0]

    def keep_skeletons(self) -> None:
        """Store the skeletons of the user's current name, unless a look-alike account holds
        them (an account grandfathered without them keeps none)."""
        plain, folded = skeletons(self.user.get_username())
        if (self.username_skeleton, self.username_folded_skeleton) == (plain, folded):
            return
        if Profile.objects.looking_like(self.user.get_username()).exclude(pk=self.pk).exists():
            return
        self.username_skeleton, self.username_folded_skeleton = plain, folded
        self.save(update_fields=["username_skeleton", "username_folded_skeleton"])
