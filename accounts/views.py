import json

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_login_failed
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy, translate_url
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.html import conditional_escape, format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django_ratelimit.core import is_ratelimited

from .client_ip import client_ip
from .forms import LoginForm, PasswordConfirmForm, PasswordResetForm, ProfileForm, SignUpForm
from .models import Profile
from .privacy import account_delete, account_export
from .throttle import signup_record, signup_wait


def _welcome(user) -> SafeString:
    """The message after signing up, shown on the next page wherever `next` leads: where to
    go from here. The links are built apart, so the sentence to translate holds no markup."""

    def link(name: str, text: str) -> SafeString:
        return format_html('<a href="{}">{}</a>', reverse(name), text)

    parts = {
        "name": format_html("<bdi>{}</bdi>", user.get_username()),
        "catalog": link("quizzes:catalog", _("the catalog")),
        "review": link("quizzes:review", _("your review page")),
        "profile": link("accounts:profile", _("your profile")),
    }
    sentence = _(
        "Welcome to Daleel, %(name)s! Pick a quiz in %(catalog)s; questions you miss come back "
        "on %(review)s; %(profile)s holds your email address and language."
    )
    # The sentence escaped, its parts escaped as they were built: the whole is safe.
    return mark_safe(conditional_escape(sentence) % parts)


def _safe_next(request: HttpRequest) -> str | None:
    next_url = request.POST.get("next") or request.GET.get("next")
    if next_url and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return None


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("quizzes:catalog")
    address = client_ip(request)
    if request.method == "POST" and (wait := signup_wait(address=address)):
        response = render(request, "accounts/signup_limited.html", {"wait": wait}, status=429)
        response["Retry-After"] = str(int(wait.total_seconds()) + 1)
        return response
    form = SignUpForm(request.POST or None)
    # save() is None when a look-alike name or the address was taken in the meantime.
    if request.method == "POST" and form.is_valid() and (user := form.save()) is not None:
        signup_record(address=address)
        # axes' backend needs the request, so name the model backend explicitly.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _welcome(user))
        return redirect(_safe_next(request) or "quizzes:catalog")
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "next": _safe_next(request) or ""},
        status=400 if form.errors else 200,
    )


class LoginView(auth_views.LoginView):
    """Django's sign-in, which then switches to the learner's preferred language."""

    template_name = "accounts/login.html"
    form_class = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form):
        response = super().form_valid(form)
        language = Profile.for_user(form.get_user()).language
        if not language:
            return response
        response = HttpResponseRedirect(translate_url(response.url, language))
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
        return response


def _credentials(request: HttpRequest) -> dict:
    return {"username": request.user.get_username()}


def _is_locked_out(request: HttpRequest) -> bool:
    return AxesProxyHandler.is_locked(request, _credentials(request))


def _count_wrong_password(request: HttpRequest, sender: type) -> None:
    """A wrong password on a signed-in page counts as a failed sign-in (django-axes)."""
    user_login_failed.send(sender=sender, credentials=_credentials(request), request=request)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change, where a wrong current password counts as a failed sign-in.

    Otherwise anyone at a computer left signed in could try passwords here without limit.
    Counted by django-axes, these guesses lock the account out at this address as guesses at
    the sign-in form do, and a locked-out account cannot try again here either.
    """

    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def post(self, request, *args, **kwargs):
        if _is_locked_out(request):
            return get_lockout_response(request, credentials=_credentials(request))
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if form.has_error("old_password", "password_incorrect"):
            _count_wrong_password(self.request, type(self))
        return super().form_invalid(form)


class LogoutView(auth_views.LogoutView):
    """Sign-out is a POST; a GET (a typed or bookmarked address) asks to confirm with one."""

    http_method_names = ["get", "head", "post", "options"]

    def get(self, request, *args, **kwargs):
        return render(request, "accounts/logout.html")


def _form_page(request: HttpRequest, template: str, form) -> HttpResponse:
    """A page of one form: 400 when the form was sent with errors."""
    return render(request, template, {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@login_required
def profile(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and _is_locked_out(request):
        return get_lockout_response(request, credentials=_credentials(request))
    form = ProfileForm(request.POST or None, user=request.user)
    if request.method == "POST":
        if form.is_valid() and form.save():
            messages.success(request, _("Your profile is saved."))
            return redirect("accounts:profile")
        if form.has_error("password", "password_incorrect"):
            _count_wrong_password(request, ProfileForm)
    return _form_page(request, "accounts/profile.html", form)


def _learner_key(group: str, request: HttpRequest) -> str:
    return str(request.user.pk)


@require_safe
@login_required
def download_data(request: HttpRequest) -> HttpResponse:
    # Every query a learner's history takes, in one page: at most DATA_EXPORT_RATE of them.
    if is_ratelimited(
        request,
        group="data-export",
        key=_learner_key,
        rate=settings.DATA_EXPORT_RATE,
        increment=True,
    ):
        return _limited(
            request,
            reason=_(
                "You downloaded your data many times in a short time. Please try again later."
            ),
            back_url=reverse("accounts:profile"),
            back_label=_("Back to your profile"),
        )
    document = account_export(user=request.user)
    filename = f"daleel-{timezone.now():%Y-%m-%d}.json"
    response = HttpResponse(
        # Scores and marks are decimals ("3.5"): written as strings, exactly.
        json.dumps(document, ensure_ascii=False, indent=2, cls=DjangoJSONEncoder),
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


def _client_key(group: str, request: HttpRequest) -> str:
    return client_ip(request) or ""


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset by email: the same answer whether or not an account has the address.

    Limited per client address (too many asks from one place get a 429, which says nothing
    about any address) and per email address (past the limit no more mail is sent, and the
    answer stays the same, so that it tells nothing either).
    """

    form_class = PasswordResetForm
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/email/password_reset.txt"
    html_email_template_name = "accounts/email/password_reset.html"
    subject_template_name = "accounts/email/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form):
        if is_ratelimited(
            self.request,
            group="password-reset-client",
            key=_client_key,
            rate=settings.PASSWORD_RESET_RATE_PER_CLIENT,
            increment=True,
        ):
            return _limited(
                self.request,
                reason=_(
                    "Many password resets were asked for from here in a short time. Please try "
                    "again in an hour."
                ),
                back_url=reverse("accounts:login"),
                back_label=_("Back to sign in"),
            )
        email = form.cleaned_data["email"].strip().casefold()
        if is_ratelimited(
            self.request,
            group="password-reset-email",
            key=lambda group, request: email,
            rate=settings.PASSWORD_RESET_RATE_PER_EMAIL,
            increment=True,
        ):
            return HttpResponseRedirect(self.get_success_url())
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's reset link. A new password set through the mail also lifts the account's
    sign-in lockouts: whoever reads the learner's mail could take the account anyway, and
    the learner locked out by their own forgotten password gets in at once."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        return response


def _limited(request: HttpRequest, *, reason: str, back_url: str, back_label: str) -> HttpResponse:
    """The page of a limit reached (429), in the learner's language."""
    context = {"reason": reason, "back_url": back_url, "back_label": back_label}
    return render(request, "accounts/limited.html", context, status=429)
