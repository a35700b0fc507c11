"""What other apps may hear about attempts. No rule rides on these: they announce."""

from django.dispatch import Signal

# Sent by `finish` (quizzes/attempts/writes.py) as it finishes an attempt, inside the
# transaction that writes it, with `attempt` (an AttemptRow, finished and scored). Receivers
# that reach outside (lti sends the grade to the platform) defer their work to
# `transaction.on_commit`.
attempt_finished = Signal()
