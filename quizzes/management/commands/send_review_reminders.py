from django.core.management.base import BaseCommand

from quizzes.reminders import reminders_send


class Command(BaseCommand):
    help = (
        "One pass of the daily review reminders, as the worker's hourly task runs it: queue "
        "the email of every learner whose reminder hour has come today (in their time zone), "
        "who has questions due and has not been reminded today."
    )

    def handle(self, *args, **options) -> None:
        sent = reminders_send()
        if options["verbosity"]:
            self.stdout.write(f"Queued {sent} review reminder(s).")
