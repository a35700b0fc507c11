from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes.instructors.exports import quiz_to_gift, unexported_questions
from quizzes.models import Quiz


class Command(BaseCommand):
    help = (
        "Export a quiz as a Moodle GIFT file: its questions, choices with their feedback, "
        "accepted answers and pairs, and explanations, with the Arabic in multilang markup, "
        "so that import_quiz reads it back unchanged (and Moodle can import it). Ordering "
        "questions have no GIFT form: they are left out, and named on standard error. "
        "Writes to standard output unless -o is given."
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
