import json
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from quizzes.models import Quiz
from quizzes.search import search_text_refresh

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


class Command(BaseCommand):
    help = (
        "Load each seed quiz from fixtures/ unless a quiz with its slug already exists, so it "
        "never duplicates content nor overwrites what an instructor edited."
    )

    def handle(self, *args, **options) -> None:
        for path in sorted(FIXTURES.glob("*.json")):
            slugs = [
                obj["fields"]["slug"]
                for obj in json.loads(path.read_text(encoding="utf-8"))
                if obj["model"] == "quizzes.quiz"
            ]
            if Quiz.objects.filter(slug__in=slugs).exists():
                self.stdout.write(f"{path.name}: already loaded, left as it is.")
                continue
            call_command("loaddata", str(path), verbosity=0)
            # loaddata saves raw, around Quiz.save(), which keeps the search text.
            search_text_refresh(Quiz.objects.filter(slug__in=slugs))
            self.stdout.write(f"{path.name}: loaded {', '.join(slugs)}.")
