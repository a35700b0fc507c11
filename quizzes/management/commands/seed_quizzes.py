import json
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from quizzes.models import Quiz, search_text_refresh
from quizzes.seeding import (
    seed_additions,
    seed_additions_deliver,
    seed_additions_record,
    seed_texts_refresh,
    superseded_texts,
)

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


class Command(BaseCommand):
    help = (
        "Load each seed quiz from fixtures/ unless a quiz with its slug already exists, so it "
        "never duplicates content nor overwrites what an instructor edited. With --update, "
        "also give the seed quizzes already loaded the current seed texts, wherever they still "
        "hold an earlier seed wording (a text an instructor edited is kept and listed), and "
        "the questions later seeds added to them (never one an instructor deleted, nor over "
        "a question of the quiz's own)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--update",
            action="store_true",
            help="refresh the seed texts of quizzes already loaded that no instructor edited",
        )

    def handle(self, *args, update: bool = False, **options) -> None:
        superseded = superseded_texts() if update else {}
        additions = seed_additions()
        for path in sorted(FIXTURES.glob("*.json")):
            objects = json.loads(path.read_text(encoding="utf-8"))
            slugs = [obj["fields"]["slug"] for obj in objects if obj["model"] == "quizzes.quiz"]
            if not Quiz.objects.filter(slug__in=slugs).exists():
                call_command("loaddata", str(path), verbosity=0)
                seed_additions_record(slugs=slugs, additions=additions)
                self.stdout.write(f"{path.name}: loaded {', '.join(slugs)}.")
            elif not update:
                self.stdout.write(f"{path.name}: already loaded, left as it is.")
            else:
                added = seed_additions_deliver(
                    objects=objects, additions=additions, superseded=superseded
                )
                for line in added.added:
                    self.stdout.write(f"{path.name}: added {line}.")
                for line in added.kept:
                    self.stdout.write(f"  not added {line}")
                result = seed_texts_refresh(objects=objects, superseded=superseded)
                self.stdout.write(
                    f"{path.name}: {len(result.refreshed)} seed texts refreshed, "
                    f"{len(result.kept)} kept as an instructor left them."
                )
                for line in result.kept:
                    self.stdout.write(f"  kept {line}")
            # loaddata and the refresh write around Quiz.save(), which keeps the search text.
            search_text_refresh(Quiz.objects.filter(slug__in=slugs))
