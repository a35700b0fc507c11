"""What other apps may hear about attempts. No rule rides on these: they announce."""

from django.dispatch import Signal

# Sent by `finish` (quizzes/attempts/writes.py) as it finishes an attempt, inside the
# transaction that writes it, with `attempt` (an AttemptRow, finished and scored). Receivers
# that reach outside (lti sends the grade to the platform) defer their work to
# `transaction.on_commit`.
attempt_finished = Signal()

# Sent by a regrade (quizzes/attempts/regrade.py) inside each transaction that changes
# finished attempts' marks, with `attempt_ids` (the attempts whose answers changed) and `at`
# (the regrade's time). lti sends the platforms the grades that change, after the commit.
attempts_regraded = Signal()
