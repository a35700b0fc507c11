"""What other apps may hear about attempts. No rule rides on these: they announce."""

from django.dispatch import Signal

# Sent by attempts._finish inside the transaction that finishes the attempt, with
# `attempt` (finished, scored). Receivers that reach outside (lti sends the grade to the
# platform) defer their work to `transaction.on_commit`.
attempt_finished = Signal()
