import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.instructors.exports import (
    exchange_filename,
    quiz_export,
    quiz_to_gift,
    unexported_questions,
)
from quizzes.models import Quiz


class Command(BaseCommand):
    help = (
        "Export a quiz. --format gift (the default): a Moodle GIFT file of its questions, "
        "choices with their feedback, accepted answers and pairs, and explanations, with the "
        "Arabic in multilang markup; ordering questions have no GIFT form: they are left out, "
        "and named on standard error. --format moodle: Moodle XML with every kind (ordering as "
        "Moodle's ordering type), both languages in multilang spans and the images embedded. "
        "--format qti: a QTI 2.1 content package (a zip) with every kind, both languages and "
        "the images. import_quiz reads each back unchanged. GIFT and Moodle XML go to standard "
        "output unless -o is given; a QTI package to -o, or else to SLUG.qti.zip here."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("slug", help="The quiz's slug.")
        parser.add_argument(
            "--format",
            dest="export_format",
            choices=["gift", "moodle", "qti"],
            default="gift",
            help="gift (the default), moodle (Moodle XML) or qti (a QTI 2.1 package).",
        )
        parser.add_argument("-o", "--output", type=Path, help="Write to this file instead.")

    def handle(self, *args, slug: str, export_format: str, output: Path | None, **options):
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist as error:
            raise CommandError(f"No quiz with slug {slug!r}.") from error
        if export_format != "gift":
            self._exchange(quiz, export_format, output)
            return
        text = quiz_to_gift(quiz)
        left_out = unexported_questions(quiz)
        for question in left_out:
            self.stderr.write(
                f"Question {question.position} is an ordering question: GIFT has none, so it "
                "is left out."
            )
        if output is None:
            self.stdout.write(text, ending="")
            return
        output.write_text(text, encoding="utf-8")
        written = quiz.questions.count() - len(left_out)
        self.stderr.write(f"Wrote {written} question(s) to {output}.")

    def _exchange(self, quiz: Quiz, export_format: str, output: Path | None) -> None:
        data, notes = quiz_export([quiz], export_format)
        for note in notes:
            self.stderr.write(note)
        if output is None and export_format == "moodle":
            self.stdout.flush()
            stream = getattr(self.stdout, "_out", sys.stdout)
            if hasattr(stream, "buffer"):
                stream.buffer.write(data)
            else:  # a text stream (call_command's stdout in tests)
                stream.write(data.decode("utf-8"))
            return
        path = output or Path(exchange_filename([quiz], export_format))
        try:
            path.write_bytes(data)
        except OSError as error:
            raise CommandError(f"Cannot write {path}: {error.strerror}.") from error
        self.stderr.write(f"Wrote {quiz.questions.count()} question(s) to {path}.")
