from django.core.management.base import BaseCommand

from quizzes.attempts.services import attempts_close_overdue


class Command(BaseCommand):
    help = (
        "Finish every attempt in progress whose deadline has passed, scored on the answers "
        "saved in time. The worker does it at each attempt's deadline and every hour (see "
        "quizzes.schedule); this command is for a site without the worker, from cron. "
        "Learners' own requests finish their overdue attempts too."
    )

    def handle(self, *args, **options) -> None:
        closed = attempts_close_overdue()
        if options["verbosity"]:
            self.stdout.write(f"Finished {closed} overdue attempt(s).")
