from typing import Any

from django.core.management.base import BaseCommand

from lti.grades import scores_retry


class Command(BaseCommand):
    help = (
        "Send again the scores a platform refused whose retry is due (with backoff). Run it "
        "from cron every few minutes when the task backend cannot defer tasks."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        tried = scores_retry()
        if options["verbosity"]:
            self.stdout.write(f"Tried {tried} score(s) again.")
