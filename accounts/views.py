"""The account pages of our own: profile, data download, deletion; and the limits around
allauth's sign-up, password reset and email change (accounts.limits), which count every
request that asks for them, accepted or not."""

from datetime import timedelta

from allauth.account import views as allauth_views
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off, get_lockout_response
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from .client_ip import client_key
from .forms import PasswordConfirmForm, ProfileForm
from .limits import hit, limited
from .privacy import account_delete, account_export_json


def _credentials(request: HttpRequest) -> dict:
    return {"username": request.user.get_username()}


def _is_locked_out(request: HttpRequest) -> bool:
    return AxesProxyHandler.is_locked(request, _credentials(request))


def _count_wrong_password(request: HttpRequest, sender: type) -> None:
    """A wrong password on a signed-in page counts as a failed sign-in (django-axes)."""
    user_login_failed.send(sender=sender, credentials=_credentials(request), request=request)


def _with_form_status(response: HttpResponse) -> HttpResponse:
    """allauth's page, 400 when its form was sent back with errors (as our own forms answer)."""
    form = (getattr(response, "context_data", None) or {}).get("form")
    if response.status_code == 200 and form is not None and form.is_bound and form.errors:
        response.status_code = 400
    return response


def _client(request: HttpRequest) -> str:
    return client_key(request) or "unknown"


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """allauth's sign-up, at most SIGNUP_LIMIT_PER_HOUR sent from one client address."""
    if request.method == "POST" and (
        wait := hit(
            group="signup",
            key=_client(request),
            rate=f"{settings.SIGNUP_LIMIT_PER_HOUR}/h",
        )
    ):
        response = render(
            request,
            "accounts/signup_limited.html",
            {"wait": timedelta(seconds=wait)},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
    return _with_form_status(allauth_views.signup(request))


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """allauth's reset by email, at most PASSWORD_RESET_RATE_PER_CLIENT asked from one client
    address (the mail per address is limited where it is sent: accounts.adapter)."""
    if request.method == "POST" and (
        wait := hit(
            group="password-reset-client",
            key=_client(request),
            rate=settings.PASSWORD_RESET_RATE_PER_CLIENT,
        )
    ):
        return limited(
            request,
            wait=wait,
            reason=_("Many password resets were asked for from here in a short time."),
            back_url=reverse("accounts:login"),
            back_label=_("Back to sign in"),
        )
    return _with_form_status(allauth_views.password_reset(request))


@require_http_methods(["GET", "POST"])
@login_required
def email(request: HttpRequest) -> HttpResponse:
    """allauth's email addresses page: adding an address or sending its link again is at most
    EMAIL_CHANGE_RATE per learner."""
    asks_for_mail = "action_add" in request.POST or "action_send" in request.POST
    if (
        request.method == "POST"
        and asks_for_mail
        and (
            wait := hit(
                group="email-change", key=str(request.user.pk), rate=settings.EMAIL_CHANGE_RATE
            )
        )
    ):
        return limited(
            request,
            wait=wait,
            reason=_("You asked to change your email address many times in a short time."),
            back_url=reverse("accounts:profile"),
            back_label=_("Back to your profile"),
        )
    return _with_form_status(allauth_views.email(request))


@require_http_methods(["GET", "POST"])
@login_required
def password_change(request: HttpRequest) -> HttpResponse:
    """allauth's password change, where a wrong current password counts as a failed sign-in
    (django-axes): whoever finds a computer left signed in cannot try passwords here without
    limit, and an account locked out cannot try here either."""
    if request.method == "POST" and _is_locked_out(request):
        return get_lockout_response(request, credentials=_credentials(request))
    if request.method == "POST" and not request.user.check_password(
        request.POST.get("oldpassword", "")
    ):
        _count_wrong_password(request, PasswordConfirmForm)
    return _with_form_status(allauth_views.password_change(request))


def _form_page(request: HttpRequest, template: str, form) -> HttpResponse:
    """A page of one form: 400 when the form was sent with errors."""
    return render(request, template, {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@login_required
def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Your profile is saved."))
        return redirect("accounts:profile")
    return _form_page(request, "accounts/profile.html", form)


@require_safe
@login_required
def download_data(request: HttpRequest) -> HttpResponse:
    # Every query a learner's history takes, in one page: at most DATA_EXPORT_RATE of them.
    if wait := hit(group="data-export", key=str(request.user.pk), rate=settings.DATA_EXPORT_RATE):
        return limited(
            request,
            wait=wait,
            reason=_(
                "You downloaded your data many times in a short time. Please try again later."
            ),
            back_url=reverse("accounts:profile"),
            back_label=_("Back to your profile"),
        )
    filename = f"daleel-{timezone.now():%Y-%m-%d}.json"
    # Written as it is read: a learner with years of answers downloads in bounded memory.
    response = StreamingHttpResponse(
        account_export_json(user=request.user),
        content_type="application/json; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
    add_never_cache_headers(response)
    return response


@require_http_methods(["GET", "POST"])
@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and _is_locked_out(request):
        return get_lockout_response(request, credentials=_credentials(request))
    form = PasswordConfirmForm(request.POST or None, user=request.user)
    if request.method == "POST":
        if form.is_valid():
            account_delete(user=request.user)
            logout(request)
            return redirect("accounts:deleted")
        _count_wrong_password(request, PasswordConfirmForm)
    return _form_page(request, "accounts/delete.html", form)


@require_safe
def deleted(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/deleted.html")


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """django-axes' lockout (AXES_LOCKOUT_CALLABLE): a 429 page that says how long, in the
    page's language, with Retry-After as every limit has."""
    cool_off = get_cool_off(request) or timedelta(minutes=15)
    response = render(
        request, "accounts/locked_out.html", {"cooloff_timedelta": cool_off}, status=429
    )
    response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
