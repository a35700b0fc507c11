from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LtiConfig(AppConfig):
    name = "lti"
    verbose_name = _("LTI")

    def ready(self) -> None:
        # Grades go back to the platform when an attempt launched from it finishes
        # (quizzes.signals.attempt_finished, sent by quizzes/attempts/writes.py: finish).
        # After a regrade, only the grades that change go again (quizzes.signals.
        # attempts_regraded, sent by quizzes/attempts/regrade.py).
        from quizzes.signals import attempt_finished, attempts_regraded

        from .grades import attempt_finished_receiver, attempts_regraded_receiver

        attempt_finished.connect(attempt_finished_receiver, dispatch_uid="lti-grades")
        attempts_regraded.connect(attempts_regraded_receiver, dispatch_uid="lti-regrades")
