from django import forms
from django.utils.translation import gettext_lazy as _

# Largest primary key a browser could sensibly send; anything bigger is junk, not a choice.
MAX_ID = 2**63 - 1


class AnswerForm(forms.Form):
    """The learner's pick for one question; whether it belongs to the question is the rules'."""

    choice = forms.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        error_messages={
            "required": _("Choose an answer before submitting."),
            "invalid": _("Choose one of the answers listed."),
            "min_value": _("Choose one of the answers listed."),
            "max_value": _("Choose one of the answers listed."),
        },
    )
