from django.core.management.base import BaseCommand

from quizzes.reminders import reminders_send, site_origin


class Command(BaseCommand):
    help = (
        "One pass of the daily review reminders, as the worker's hourly task runs it: queue "
        "the email of every learner whose reminder hour has come today (in their time zone), "
        "who has questions due and has not been reminded today. Their links point to "
        "SITE_ORIGIN (with DEBUG on and none set, http://127.0.0.1:PORT, this shell's PORT)."
    )

    def handle(self, *args, **options) -> None:
        sent = reminders_send()
        if options["verbosity"]:
            self.stdout.write(f"Queued {sent} review reminder(s).")
            # Run by hand, the links are this shell's (its SITE_ORIGIN or PORT), not the
            # server's: said, so that a link to the wrong port shows before it is clicked.
            self.stdout.write(f"Their links point to {site_origin()}/.")
