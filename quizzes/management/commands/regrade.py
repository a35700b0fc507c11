from django.core.management.base import BaseCommand, CommandError

from quizzes.attempts.regrade import regrade_apply, regrade_preview
from quizzes.grading import format_mark
from quizzes.models import Question, Quiz
from quizzes.regrading import regrade_mail_queue


class Command(BaseCommand):
    help = (
        "Mark the finished attempts' answers of a quiz (or of one of its questions) again "
        "under the key as it stands now, after a key was fixed. Prints one line per attempt "
        "whose score changes (attempt ID learner OLD -> NEW) and last `regrade: N answers, M "
        "attempts changed`. With --dry-run, only what would change; nothing is written. "
        "Learners whose score changed are mailed (if they allow it)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("quiz", metavar="QUIZ_SLUG", help="The quiz's slug.")
        parser.add_argument(
            "--question",
            metavar="POSITION",
            type=int,
            help="Only the question at this position in the quiz.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change; write nothing."
        )

    def handle(self, *args, **options) -> None:
        quiz = Quiz.objects.filter(slug=options["quiz"]).first()
        if quiz is None:
            raise CommandError(f"No quiz with the slug {options['quiz']!r}.")
        question = None
        if options["question"] is not None:
            question = Question.objects.filter(quiz=quiz, position=options["question"]).first()
            if question is None:
                raise CommandError(
                    f"The quiz {quiz.slug!r} has no question at position {options['question']}."
                )
        preview = regrade_preview(quiz=quiz, question=question)
        answers, attempts = preview.answer_count, preview.attempt_count
        shown = preview.attempts
        if not options["dry_run"] and preview.attempts:
            regrade = regrade_apply(preview=preview)
            regrade_mail_queue(regrade=regrade)
            answers, attempts = regrade.answers_changed, regrade.attempts_changed
        for attempt in shown:
            if attempt.old_score != attempt.new_score:
                self.stdout.write(
                    f"attempt {attempt.attempt_id} {attempt.learner} "
                    f"{format_mark(attempt.old_score)} -> {format_mark(attempt.new_score)}"
                )
        self.stdout.write(f"regrade: {answers} answers, {attempts} attempts changed")
