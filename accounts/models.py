from __future__ import annotations

import zoneinfo
from datetime import tzinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .usernames import skeletons


def time_zone_names() -> frozenset[str]:
    """The IANA zone names this system knows (zoneinfo)."""
    return frozenset(zoneinfo.available_timezones())


def validate_time_zone(value: str) -> None:
    if value and value not in time_zone_names():
        raise ValidationError(
            _("Choose a time zone from the list, such as Asia/Riyadh."), code="invalid_time_zone"
        )


class ProfileQuerySet(models.QuerySet):
    def mailable(self) -> ProfileQuerySet:
        """Active learners' profiles with their user, whose address its owner verified by
        link (allauth's EmailAddress): never one typed in and left unverified, which may be
        somebody else's. What a mail to learners goes to (reminders, regrades)."""
        return (
            self.filter(
                user__is_active=True,
                user__emailaddress__primary=True,
                user__emailaddress__verified=True,
            )
            .exclude(user__email="")
            .select_related("user")
        )

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

    # An IANA name (Asia/Riyadh); empty: the site's TIME_ZONE. Every date and time the learner
    # sees is in it (accounts.middleware.learner_time_zone); set from the browser at the
    # first sign-in (accounts.signals), changed on the profile.
    time_zone = models.CharField(
        _("time zone"), max_length=64, blank=True, validators=[validate_time_zone]
    )
    # The hour of the day (0-23, in the learner's time zone) of the daily email saying how
    # many review questions are due; empty: no reminders (quizzes.reminders).
    reminder_hour = models.PositiveSmallIntegerField(
        _("reminder hour"), null=True, blank=True, validators=[MaxValueValidator(23)]
    )
    # A mail when a regrade changed one of their scores (quizzes.regrading).
    regrade_mail = models.BooleanField(
        _("mail me when a regrade changes my score"),
        default=True,
        help_text=_(
            "When an instructor fixes a question's answer key and your score changes, we tell "
            "you by email (only to a verified address)."
        ),
    )
    # How sure they are, asked with each review answer too (quizzes/confidence.py). None: not
    # chosen yet, asked once they gave a level in a quiz (`asks_review_confidence`).
    review_confidence = models.BooleanField(
        _("ask how sure I am in review"),
        null=True,
        blank=True,
        default=None,
        help_text=_(
            "With each review answer, say whether you were not sure, fairly sure or very sure: "
            "a right guess comes back sooner, and so does a miss you were sure of."
        ),
    )
    # The learner's local date of the last reminder: never more than one a day.
    reminded_on = models.DateField(_("last reminded on"), null=True, blank=True, editable=False)

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

    @property
    def zone(self) -> tzinfo:
        """The learner's time zone, or the site's."""
        return zoneinfo.ZoneInfo(self.time_zone or settings.TIME_ZONE)

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
