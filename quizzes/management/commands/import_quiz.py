from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.instructors.imports import (
    PLACEHOLDER_GUIDE_SLUG,
    GiftImportError,
    quiz_import_gift,
    read_gift,
)
from quizzes.models import Guide


class Command(BaseCommand):
    help = (
        "Import the questions of a Moodle GIFT file (UTF-8): one answer, several answers, "
        "true or false, numbers, short answer and matching. "
        "With --quiz SLUG they are appended after that quiz's last question, or a quiz with "
        "that slug is created; without it a new quiz is created, titled after the file's "
        "$CATEGORY: (its last segment) or else the file name. A new quiz is unpublished, so "
        "an instructor reviews it before publishing, and belongs to --guide, or else to a "
        f"placeholder guide ('{PLACEHOLDER_GUIDE_SLUG}') to be replaced in the admin. A "
        "description item before the first question becomes a new quiz's description. "
        "Arabic comes from Moodle's multilang markup. Essays, and short-answer or matching "
        "questions Daleel cannot hold, are reported with their line numbers and skipped; a "
        "file with any error is refused whole."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", type=Path, help="The GIFT file to import.")
        parser.add_argument(
            "--quiz", metavar="SLUG", help="Append to this quiz (created if it does not exist)."
        )
        parser.add_argument("--guide", metavar="SLUG", help="The guide of a newly created quiz.")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Check the file and report what would be imported; write nothing.",
        )

    def handle(self, *args, file: Path, quiz: str | None, guide: str | None, **options) -> None:
        try:
            text = file.read_text(encoding="utf-8-sig")
        except FileNotFoundError as error:
            raise CommandError(f"No such file: {file}") from error
        except OSError as error:  # a folder, a file we may not read
            raise CommandError(f"Cannot read {file}: {error.strerror}.") from error
        except UnicodeDecodeError as error:
            raise CommandError(f"{file} is not UTF-8 text: save it as UTF-8.") from error
        guide_obj = None
        if guide:
            try:
                guide_obj = Guide.objects.get(slug=guide)
            except Guide.DoesNotExist as error:
                raise CommandError(f"No guide with slug {guide!r}.") from error

        if options["dry_run"]:
            document = read_gift(text)
            self._report(document.skipped + document.warnings)
            if document.errors:
                raise CommandError(self._refusal(file, document.errors))
            self.stdout.write(
                f"{file}: {len(document.questions)} question(s) would be imported "
                "(dry run: nothing was written)."
            )
            return

        try:
            result = quiz_import_gift(
                text=text, filename=file.name, quiz_slug=quiz, guide=guide_obj
            )
        except GiftImportError as error:
            if error.document is not None:
                self._report(error.document.skipped + error.document.warnings)
            raise CommandError(self._refusal(file, error.problems)) from error
        self._report(result.notes)
        action = "created" if result.created else "added to"
        self.stdout.write(
            self.style.SUCCESS(
                f"{file}: {len(result.questions)} question(s) {action} quiz "
                f"{result.quiz.slug!r}"
                + (" (unpublished)." if not result.quiz.is_published else " (published).")
            )
        )
        if result.placeholder_guide:
            self.stdout.write(
                f"The quiz belongs to the placeholder guide {PLACEHOLDER_GUIDE_SLUG!r}: "
                "choose its guide in the admin before publishing."
            )

    def _report(self, problems) -> None:
        for problem in sorted(problems, key=lambda problem: problem.line):
            self.stderr.write(self.style.WARNING(str(problem)))

    def _refusal(self, file: Path, problems) -> str:
        lines = [f"{file} was not imported; nothing was written:"]
        lines.extend(f"  {problem}" for problem in problems)
        return "\n".join(lines)
