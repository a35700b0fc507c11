from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import (
    Deployment,
    GradeLink,
    LtiIdentity,
    QuizGrading,
    Registration,
    ScorePost,
    ToolKey,
)


class DeploymentInline(admin.TabularInline):
    model = Deployment
    extra = 1


@admin.register(Registration)
class RegistrationAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "issuer",
        "client_id",
        "is_active",
        "grants_instructor",
        "instructor_grades",
    ]
    list_filter = ["is_active", "grants_instructor"]
    search_fields = ["name", "issuer", "client_id"]
    inlines = [DeploymentInline]


@admin.register(ToolKey)
class ToolKeyAdmin(admin.ModelAdmin):
    # The private key is not a field here: it is never shown.
    list_display = ["kid", "created_at", "retire_at"]
    fields = ["kid", "created_at", "retire_at"]
    readonly_fields = ["kid", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # `manage.py lti_rotate_key` makes keys


@admin.register(LtiIdentity)
class LtiIdentityAdmin(admin.ModelAdmin):
    list_display = ["user", "issuer", "sub", "created_at"]
    search_fields = ["user__username", "issuer", "sub"]
    raw_id_fields = ["user"]


@admin.register(QuizGrading)
class QuizGradingAdmin(admin.ModelAdmin):
    """Which attempt of a learner's a quiz's grade column on the platform gets (best when a
    quiz has none): the quiz chosen from a list of titles, not by its number."""

    list_display = ["quiz", "counts"]


@admin.register(ScorePost)
class ScorePostAdmin(admin.ModelAdmin):
    list_display = [
        "attempt",
        "learner",
        "quiz",
        "status",
        "score_given",
        "score_maximum",
        "tries",
        "updated_at",
    ]
    list_filter = ["status", "attempt__quiz"]
    search_fields = ["attempt__user__username", "attempt__quiz__slug"]
    list_select_related = ["attempt__user", "attempt__quiz"]
    readonly_fields = [
        "attempt",
        "link",
        "status",
        "tries",
        "score_given",
        "score_maximum",
        "last_error",
        "next_try_at",
        "updated_at",
    ]

    @admin.display(description=_("learner"))
    def learner(self, post: ScorePost) -> str:
        return str(post.attempt.user)

    @admin.display(description=_("quiz"))
    def quiz(self, post: ScorePost) -> str:
        return str(post.attempt.quiz)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(GradeLink)
class GradeLinkAdmin(admin.ModelAdmin):
    list_display = ["user", "quiz", "registration", "lineitem_url", "updated_at"]
    raw_id_fields = ["user", "quiz"]
    readonly_fields = ["sub", "scopes", "deployment_id"]
