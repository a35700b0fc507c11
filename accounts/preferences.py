"""The learner's time zone and daily review reminder: a form of their own on the profile
page (kept apart from the account's sign-in and email forms)."""

from __future__ import annotations

from datetime import time

from allauth.account.models import EmailAddress
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from . import zones
from .middleware import SESSION_TIME_ZONE
from .models import Profile


def _zone_choices(current: str) -> list:
    """Today's zones by region and city in the page's language (accounts.zones), the site's
    first."""
    site = _("The site's time zone (%(zone)s)") % {"zone": zones.place(settings.TIME_ZONE)}
    return [("", site), *zones.choices(current)]


def _hour_choices() -> list[tuple[str, str]]:
    """The hours as every other time on the site is written: 12-hour, «8:00 ص», "8 a.m."."""
    hours = ((str(hour), date_format(time(hour), "TIME_FORMAT")) for hour in range(24))
    return [("", _("No reminders")), *hours]


def verified_address(user) -> bool:
    """Whether the account's address is verified by link (only such an address gets mail)."""
    return EmailAddress.objects.filter(
        user=user, email__iexact=user.email, primary=True, verified=True
    ).exists()


class PreferencesForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Time zone"),
        required=False,
        help_text=gettext_lazy("Dates and times on the site, and your reminder's hour, are in it."),
    )
    reminder_hour = forms.TypedChoiceField(
        label=gettext_lazy("Daily review reminder"),
        required=False,
        coerce=int,
        empty_value=None,
        help_text=gettext_lazy(
            "An email at this hour on days when review questions are due, with a link to "
            "them; none when nothing is due."
        ),
    )

    review_confidence = forms.BooleanField(
        label=Profile._meta.get_field("review_confidence").verbose_name,
        help_text=Profile._meta.get_field("review_confidence").help_text,
        required=False,
    )

    class Meta:
        model = Profile
        fields = ["time_zone", "reminder_hour", "regrade_mail", "review_confidence"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = _zone_choices(self.instance.time_zone)
        self.fields["reminder_hour"].choices = _hour_choices()
        # Not chosen yet (None): not asked, until their first quiz answer given with a level.
        self.initial["review_confidence"] = bool(self.instance.review_confidence)

    def clean_reminder_hour(self) -> int | None:
        hour = self.cleaned_data.get("reminder_hour")
        if hour is not None and not verified_address(self.instance.user):
            raise forms.ValidationError(
                _(
                    "Reminders are sent by email, only to an address you verified: add one on "
                    "your email addresses page and open the link we send to it first."
                ),
                code="no_email",
            )
        return hour


@require_http_methods(["GET", "POST"])
@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    profile = Profile.for_user(request.user)
    form = PreferencesForm(request.POST or None, instance=profile)
    if request.method == "POST":
        if form.is_valid():
            form.save()
            request.session[SESSION_TIME_ZONE] = profile.time_zone
            messages.success(request, _("Your time zone and reminder are saved."))
            return redirect("accounts:preferences")
        return render(request, "accounts/preferences.html", {"form": form}, status=400)
    return render(request, "accounts/preferences.html", {"form": form})
