from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.instructors.exchange.content import ExchangeError
from quizzes.instructors.imports import PLACEHOLDER_GUIDE_SLUG, file_dry_run, quiz_import_file
from quizzes.models import Guide

FORMAT_NAMES = {"gift": "GIFT", "moodle": "Moodle XML", "qti": "QTI"}


class Command(BaseCommand):
    help = (
        "Import the questions of a file: Moodle GIFT (UTF-8 text), Moodle XML, or a QTI "
        "package (a zip: Canvas's QTI 1.2 export, QTI 2.1 and 2.2), told apart by its content. "
        "GIFT: one answer, several answers, true or false, numbers, short answer and matching; "
        "Moodle XML and QTI: those and ordering, with images, feedback and both languages. "
        "Each Moodle category or QTI test holding questions becomes a quiz. "
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
        parser.add_argument(
            "file", type=Path, help="The GIFT, Moodle XML or QTI (zip) file to import."
        )
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
            data = file.read_bytes()
        except FileNotFoundError as error:
            raise CommandError(f"No such file: {file}") from error
        except OSError as error:  # a folder, a file we may not read
            raise CommandError(f"Cannot read {file}: {error.strerror}.") from error
        guide_obj = None
        if guide:
            try:
                guide_obj = Guide.objects.get(slug=guide)
            except Guide.DoesNotExist as error:
                raise CommandError(f"No guide with slug {guide!r}.") from error

        if options["dry_run"]:
            try:
                file_format, quizzes, notes = file_dry_run(data)
            except ExchangeError as error:
                self._report(error.notes)
                raise CommandError(self._refusal(file, error.problems)) from error
            self._report(notes)
            count = sum(number for _title, number in quizzes)
            self.stdout.write(
                f"{file}: {count} question(s) would be imported (dry run: nothing was written)."
            )
            if file_format != "gift":
                for title, number in quizzes:
                    name = quiz or title or "(named after the file)"
                    self.stdout.write(f"  {FORMAT_NAMES[file_format]}: {number} into {name!r}")
            return

        try:
            result = quiz_import_file(
                data=data, filename=file.name, quiz_slug=quiz, guide=guide_obj
            )
        except ExchangeError as error:
            self._report(error.notes)
            raise CommandError(self._refusal(file, error.problems)) from error
        self._report(result.notes)
        for part in result.quizzes:
            action = "created" if part.created else "added to"
            self.stdout.write(
                self.style.SUCCESS(
                    f"{file}: {len(part.questions)} question(s) {action} quiz "
                    f"{part.quiz.slug!r}"
                    + (" (unpublished)." if not part.quiz.is_published else " (published).")
                )
            )
        if result.placeholder_guide:
            self.stdout.write(
                f"The quiz belongs to the placeholder guide {PLACEHOLDER_GUIDE_SLUG!r}: "
                "choose its guide in the admin before publishing."
            )

    def _report(self, problems) -> None:
        # GIFT's notes by line; a package's in the order of its files.
        if all(not getattr(problem, "source", "") for problem in problems):
            problems = sorted(problems, key=lambda problem: problem.line)
        for problem in problems:
            self.stderr.write(self.style.WARNING(str(problem)))

    def _refusal(self, file: Path, problems) -> str:
        lines = [f"{file} was not imported; nothing was written:"]
        lines.extend(f"  {problem}" for problem in problems)
        return "\n".join(lines)
