from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.instructors.exports import quiz_to_gift
from quizzes.models import Quiz


class Command(BaseCommand):
    help = (
        "Export a quiz as a Moodle GIFT file: its questions, choices with their feedback, "
        "and explanations, with the Arabic in multilang markup, so that import_quiz reads "
        "it back unchanged (and Moodle can import it). Writes to standard output unless "
        "-o is given."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("slug", help="The quiz's slug.")
        parser.add_argument("-o", "--output", type=Path, help="Write to this file instead.")

    def handle(self, *args, slug: str, output: Path | None, **options) -> None:
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist as error:
            raise CommandError(f"No quiz with slug {slug!r}.") from error
        text = quiz_to_gift(quiz)
        if output is None:
            self.stdout.write(text, ending="")
            return
        output.write_text(text, encoding="utf-8")
        self.stderr.write(f"Wrote {quiz.questions.count()} question(s) to {output}.")
