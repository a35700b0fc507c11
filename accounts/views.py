from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from .client_ip import client_ip
from .forms import SignUpForm
from .throttle import signup_record, signup_wait


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
    if request.method == "POST" and form.is_valid():
        user = form.save()
        signup_record(address=address)
        # axes' backend needs the request, so name the model backend explicitly.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_safe_next(request) or "quizzes:catalog")
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "next": _safe_next(request) or ""},
        status=400 if form.errors else 200,
    )


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change, where a wrong current password counts as a failed sign-in.

    Otherwise anyone at a computer left signed in could try passwords here without limit.
    Counted by django-axes, these guesses lock the account out at this address as guesses at
    the sign-in form do, and a locked-out account cannot try again here either.
    """

    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def _credentials(self) -> dict:
        return {"username": self.request.user.get_username()}

    def post(self, request, *args, **kwargs):
        if AxesProxyHandler.is_locked(request, self._credentials()):
            return get_lockout_response(request, credentials=self._credentials())
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if form.has_error("old_password", "password_incorrect"):
            user_login_failed.send(
                sender=type(self), credentials=self._credentials(), request=self.request
            )
        return super().form_invalid(form)


class LogoutView(auth_views.LogoutView):
    """Sign-out is a POST; a GET (a typed or bookmarked address) asks to confirm with one."""

    http_method_names = ["get", "head", "post", "options"]

    def get(self, request, *args, **kwargs):
        return render(request, "accounts/logout.html")
