"""LTI 1.3: the platforms Daleel is registered with, the tool's keys, who came from where."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from jwcrypto.jwk import JWK


class Registration(models.Model):
    """A platform (an LMS) as its administrator registered Daleel there: one client id of one
    issuer. An issuer may have several (one per tool registration it made)."""

    name = models.CharField(_("name"), max_length=200)
    issuer = models.CharField(_("issuer"), max_length=255)
    client_id = models.CharField(_("client ID"), max_length=255)
    auth_url = models.URLField(_("authorization URL"), max_length=500)
    token_url = models.URLField(_("token URL"), max_length=500)
    jwks_url = models.URLField(_("JWKS URL"), max_length=500)
    is_active = models.BooleanField(_("active"), default=True)
    grants_instructor = models.BooleanField(
        _("instructors from this platform may edit quizzes"),
        default=False,
        help_text=_(
            "Platform instructors and administrators who launch Daleel join the Instructors "
            "group. Learners never get staff rights from a launch."
        ),
    )
    frame_origins = models.TextField(
        _("other origins that show Daleel"),
        blank=True,
        help_text=_(
            "One origin a line, e.g. https://school.instructure.com: where the platform's "
            "pages are when that is neither its issuer's nor its authorization URL's host."
        ),
    )
    instructor_grades = models.BooleanField(
        _("send instructors' scores too"),
        default=False,
        help_text=_(
            "Off: only learners' attempts send a score to the platform's grade book (many "
            "platforms refuse grades for instructors)."
        ),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("LTI platform registration")
        verbose_name_plural = _("LTI platform registrations")
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "client_id"], name="lti_one_client_per_issuer"
            )
        ]

    def __str__(self) -> str:
        return self.name or self.issuer

    @property
    def origins(self) -> list[str]:
        """The origins that may frame Daleel for this platform: its authorization URL's, its
        issuer's (an LMS often serves both from its own address) and any the administrator
        added."""
        return origins_of([self.auth_url, self.issuer, *self.frame_origins.split()])

    @property
    def service_origins(self) -> list[str]:
        """Where the platform's own addresses may be (line items, return URLs): the origins
        that may frame Daleel, and its token URL's."""
        return origins_of([*self.origins, self.token_url])

    def serves(self, url: object) -> bool:
        """Whether `url` is at one of the platform's registered origins."""
        found = origins_of([url])
        return bool(found) and found[0] in self.service_origins


def origins_of(urls: Iterable[object]) -> list[str]:
    """The distinct http(s) origins of `urls`, in order; anything else is left out."""
    found: list[str] = []
    for url in urls:
        parts = urlsplit(str(url or "").strip())
        if parts.scheme in {"http", "https"} and parts.netloc and "*" not in parts.netloc:
            origin = f"{parts.scheme}://{parts.netloc}"
            if origin not in found:
                found.append(origin)
    return found


class Deployment(models.Model):
    registration = models.ForeignKey(
        Registration,
        on_delete=models.CASCADE,
        related_name="deployments",
        verbose_name=_("registration"),
    )
    deployment_id = models.CharField(_("deployment ID"), max_length=255)

    class Meta:
        verbose_name = _("LTI deployment")
        verbose_name_plural = _("LTI deployments")
        constraints = [
            models.UniqueConstraint(
                fields=["registration", "deployment_id"], name="lti_one_deployment_id"
            )
        ]

    def __str__(self) -> str:
        return self.deployment_id


class ToolKeyQuerySet(models.QuerySet["ToolKey"]):
    def published(self, now: datetime | None = None) -> ToolKeyQuerySet:
        """Keys in the JWKS: the current one and retired ones until their date."""
        now = now or timezone.now()
        return self.filter(Q(retire_at=None) | Q(retire_at__gt=now))


class ToolKey(models.Model):
    """Daleel's RSA key pair: the newest without a retirement date signs; a rotated key stays
    published until its `retire_at`, so that platforms still verify what it signed."""

    kid = models.CharField(_("key ID"), max_length=100, unique=True, editable=False)
    public_jwk = models.JSONField(_("public key"), editable=False)
    # The private key never leaves the database: not in the admin, never printed.
    private_pem = models.TextField(editable=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    retire_at = models.DateTimeField(_("published until"), null=True, blank=True)

    objects = ToolKeyQuerySet.as_manager()

    class Meta:
        verbose_name = _("tool key")
        verbose_name_plural = _("tool keys")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.kid

    @classmethod
    def generate(cls) -> ToolKey:
        key = JWK.generate(kty="RSA", size=2048)
        public = json.loads(key.export_public())
        kid = key.thumbprint()
        public.update({"kid": kid, "alg": "RS256", "use": "sig"})
        pem = key.export_to_pem(private_key=True, password=None).decode()
        return cls.objects.create(kid=kid, public_jwk=public, private_pem=pem)

    @property
    def public_pem(self) -> str:
        pem: bytes = JWK(**self.public_jwk).export_to_pem()
        return pem.decode()


def sub_digest(sub: str) -> str:
    """A platform's `sub` is any string up to whatever length it likes: its SHA-256 is the key."""
    return hashlib.sha256(sub.encode()).hexdigest()


class LtiIdentity(models.Model):
    """A Daleel user as a platform knows them: (issuer, sub), keyed by the sub's digest."""

    issuer = models.CharField(_("issuer"), max_length=255)
    sub = models.TextField(_("subject"))
    sub_digest = models.CharField(_("subject's SHA-256"), max_length=64, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lti_identities",
        verbose_name=_("user"),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("LTI identity")
        verbose_name_plural = _("LTI identities")
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "sub_digest"], name="lti_one_user_per_sub_digest"
            )
        ]

    def __str__(self) -> str:
        return f"{self.issuer} {self.sub[:100]}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.sub_digest = sub_digest(self.sub)
        super().save(*args, **kwargs)


class PendingLogin(models.Model):
    """An OIDC login on its way to the platform and back: its state and nonce (never in a
    browser's session), until its launch uses it or it expires."""

    state = models.CharField(max_length=100, unique=True)
    nonce = models.CharField(max_length=100, unique=True)
    registration = models.ForeignKey(Registration, on_delete=models.CASCADE)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.state


class UsedLaunchValue(models.Model):
    """A state or nonce already used by a launch: its unique row makes a replay fail."""

    value = models.CharField(max_length=255, unique=True)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.value


class GradeLink(models.Model):
    """Where a learner's score for a quiz goes: the line item of the resource link they
    launched, with their `sub` on that platform. The latest launch's link wins."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, verbose_name=_("user")
    )
    quiz = models.ForeignKey(
        "quizzes.Quiz", on_delete=models.CASCADE, related_name="+", verbose_name=_("quiz")
    )
    registration = models.ForeignKey(
        Registration, on_delete=models.CASCADE, verbose_name=_("registration")
    )
    deployment_id = models.CharField(_("deployment ID"), max_length=255)
    sub = models.TextField(_("subject"))
    for_instructor = models.BooleanField(_("launched as an instructor"), default=False)
    lineitem_url = models.URLField(_("line item"), max_length=1000)
    scopes = models.JSONField(_("scopes"), default=list)
    updated_at = models.DateTimeField(_("last launched"), default=timezone.now)

    class Meta:
        verbose_name = _("grade link")
        verbose_name_plural = _("grade links")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "quiz", "lineitem_url"], name="lti_one_link_per_line_item"
            )
        ]

    def __str__(self) -> str:
        return self.lineitem_url


class QuizGrading(models.Model):
    """Which of a learner's attempts a platform's grade book gets, per quiz."""

    class Counts(models.TextChoices):
        FIRST = "first", _("first attempt")
        BEST = "best", _("best attempt")
        LAST = "last", _("last attempt")

    quiz = models.OneToOneField(
        "quizzes.Quiz",
        on_delete=models.CASCADE,
        related_name="lti_grading",
        verbose_name=_("quiz"),
    )
    counts = models.CharField(
        _("attempt that counts"), max_length=5, choices=Counts.choices, default=Counts.BEST
    )

    class Meta:
        verbose_name = _("grade sent to platforms")
        verbose_name_plural = _("grades sent to platforms")

    def __str__(self) -> str:
        return str(self.quiz)


class ScorePost(models.Model):
    """The score of one finished attempt sent to a platform: one row per attempt, so it is
    never sent twice."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        SENDING = "sending", _("being sent")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed, will retry")
        GAVE_UP = "gave_up", _("failed, gave up")
        SKIPPED = "skipped", _("not sent: another attempt counts")

    attempt = models.OneToOneField(
        "quizzes.Attempt",
        on_delete=models.CASCADE,
        related_name="lti_score_post",
        verbose_name=_("attempt"),
    )
    link = models.ForeignKey(GradeLink, on_delete=models.CASCADE, verbose_name=_("line item"))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    tries = models.PositiveSmallIntegerField(_("tries"), default=0)
    score_given = models.DecimalField(
        _("score sent"), max_digits=9, decimal_places=4, null=True, blank=True
    )
    score_maximum = models.PositiveSmallIntegerField(_("out of"), null=True, blank=True)
    last_error = models.TextField(_("last error"), blank=True)
    next_try_at = models.DateTimeField(_("next try"), null=True, blank=True)
    # Set when a regrade changed the grade the platform should hold: the post is sent again,
    # with this time as its timestamp (newer than the attempt's first one).
    regraded_at = models.DateTimeField(_("regraded"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)

    class Meta:
        verbose_name = _("score sent to a platform")
        verbose_name_plural = _("scores sent to platforms")
        indexes = [models.Index(fields=["status", "next_try_at"], name="lti_score_retry")]

    def __str__(self) -> str:
        return f"{self.attempt_id}: {self.status}"
