from django.core.management.base import BaseCommand

from quizzes.schedule import hourly, schedule


class Command(BaseCommand):
    help = (
        "Queue the worker's hourly task (review reminders, closing overdue attempts) unless a "
        "run of it is queued already. Run it before starting the worker (make run does)."
    )

    def handle(self, *args, **options) -> None:
        if not hourly.get_backend().supports_defer:
            message = "The task backend runs tasks where they are queued: nothing to schedule."
        elif schedule(hourly):
            message = "Queued the hourly task."
        else:
            message = "The hourly task is queued already."
        if options["verbosity"]:
            self.stdout.write(message)
