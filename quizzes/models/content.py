"""Quiz content as instructors write it: guides, quizzes, questions, their choices and
accepted numbers, and the rules a question's key must keep."""

from __future__ import annotations

import uuid
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, NullIf
from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .. import confidence
from ..attempts import rules
from ..search import search_text_for

# A question's prompt, shortened, in its name.
QUESTION_NAME_LENGTH = 60
# Images' alt texts: a sentence or two; a longer description belongs in the prompt.
IMAGE_ALT_MAX_LENGTH = 250


def image_upload_to(instance: models.Model, filename: str) -> str:
    """A stored image's name: random, so that it tells nothing of the instructor's file and
    never collides; the extension is the one of the format it was re-encoded to."""
    extension = filename.rpartition(".")[2].lower() if "." in filename else "png"
    return f"quizzes/{uuid.uuid4().hex}.{extension}"


def image_field(verbose_name: str, *, prefix: str) -> models.ImageField:
    # The width and height are kept on the row: an <img> gets them without opening the file
    # (which, on an object store, would be a request per image per page).
    return models.ImageField(
        verbose_name,
        upload_to=image_upload_to,
        blank=True,
        width_field=f"{prefix}_width",
        height_field=f"{prefix}_height",
        max_length=200,
    )


def image_dimension() -> models.PositiveIntegerField:
    return models.PositiveIntegerField(null=True, blank=True, editable=False)


class GuideManager(models.Manager["Guide"]):
    def get_by_natural_key(self, slug: str) -> Guide:
        return self.get(slug=slug)


class Guide(models.Model):
    """A learning article elsewhere on the web that quizzes are linked to."""

    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=200)
    url = models.URLField(_("URL"), max_length=500)

    objects = GuideManager()

    class Meta:
        ordering = ["title"]
        verbose_name = _("guide")
        verbose_name_plural = _("guides")

    def __str__(self) -> str:
        return self.title

    def natural_key(self) -> tuple[str]:
        return (self.slug,)

    def next_quiz_position(self, *, exclude: int | None = None) -> int:
        """The position after the guide's last quiz (other than quiz `exclude`)."""
        last = self.quizzes.exclude(pk=exclude).aggregate(last=Max("guide_position"))["last"]
        return (last or 0) + 1


def catalog_title(language: str, field: str = "title") -> F | Coalesce:
    """A quiz's title in `language`, or in English where it has none: the catalog's order,
    indexed as such (Quiz.Meta.indexes) so that a page need not sort every quiz."""
    if language == "en":
        return F(f"{field}_en")
    return Coalesce(
        NullIf(F(f"{field}_{language}"), Value("")),
        F(f"{field}_en"),
        output_field=models.CharField(),
    )


class QuizQuerySet(models.QuerySet["Quiz"]):
    def published(self) -> QuizQuerySet:
        """Quizzes learners see: published, with a question to take (an instructor may have
        deleted the last one since publishing)."""
        has_questions = Exists(Question.objects.filter(quiz=OuterRef("pk")))
        return self.filter(has_questions, is_published=True)

    def with_question_count(self) -> QuizQuerySet:
        """Each quiz with `question_count`, a subquery of the same statement (None: none)."""
        count = (
            Question.objects.filter(quiz=OuterRef("pk"))
            .order_by()
            .values("quiz")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return self.annotate(question_count=Subquery(count, output_field=models.IntegerField()))


class QuizManager(models.Manager.from_queryset(QuizQuerySet)):
    def get_by_natural_key(self, slug: str) -> Quiz:
        return self.get(slug=slug)


class Quiz(models.Model):
    class Difficulty(models.TextChoices):
        EASY = "easy", _("Easy")
        MEDIUM = "medium", _("Medium")
        HARD = "hard", _("Hard")

    title = models.CharField(_("title"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    description = models.TextField(_("description"), blank=True)
    difficulty = models.CharField(
        _("difficulty"), max_length=10, choices=Difficulty.choices, default=Difficulty.MEDIUM
    )
    guide = models.ForeignKey(
        Guide,
        on_delete=models.PROTECT,
        related_name="quizzes",
        # «الدليل», a field's name beside «العنوان»; the model alone is «دليل» («إضافة دليل»).
        verbose_name=pgettext_lazy("a quiz's field", "guide"),
    )
    # Where the quiz comes in its guide's list (ties: by title).
    guide_position = models.PositiveSmallIntegerField(
        _("position in the guide"),
        default=0,
        help_text=_("Quizzes of a guide are listed by this number, then by title."),
    )
    is_published = models.BooleanField(_("published"), default=False)
    # Titles and descriptions in both languages, normalised for search (quizzes.search).
    search_text = models.TextField(_("search text"), blank=True, default="", editable=False)

    class Feedback(models.TextChoices):
        IMMEDIATE = rules.IMMEDIATE, _("After each question (practice)")
        DEFERRED = rules.DEFERRED, _("When the learner finishes (exam)")

    # Settings: what an attempt may do (quizzes/attempts/rules.py reads them at each start).
    feedback = models.CharField(
        _("feedback"),
        max_length=10,
        choices=Feedback.choices,
        default=Feedback.IMMEDIATE,
        help_text=_(
            "After each question: the verdict, the right answer and the explanation right away. "
            "When the learner finishes: answers can be changed until the learner submits them "
            "all; nothing about correctness shows before."
        ),
    )

    # Confidence with each answer, and certainty-based marking (quizzes/confidence.py).
    Confidence = confidence.Mode
    confidence = models.CharField(
        _("confidence"),
        max_length=10,
        choices=Confidence.choices,
        default=Confidence.OFF,
        help_text=confidence.MODE_HELP,
    )
    time_limit = models.DurationField(
        _("time limit"),
        null=True,
        blank=True,
        help_text=_(
            "Leave empty for no limit. Written as hours:minutes:seconds, e.g. 00:20:00. "
            "Answers that arrive late are refused and the attempt is finished with what was "
            "saved in time."
        ),
    )
    max_attempts = models.PositiveSmallIntegerField(
        _("attempts allowed"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Leave empty for unlimited attempts. An unfinished attempt can always be resumed."
        ),
    )
    opens_at = models.DateTimeField(
        _("opens"), null=True, blank=True, help_text=_("Leave empty to open at once.")
    )
    closes_at = models.DateTimeField(
        _("closes"),
        null=True,
        blank=True,
        help_text=_(
            "Leave empty to never close. Attempts in progress end at this time at the latest."
        ),
    )
    shuffle_choices = models.BooleanField(
        _("shuffle choices"),
        default=False,
        help_text=_(
            "Each attempt draws its own order of each question's choices, kept for its reloads, "
            "its review and the CSV."
        ),
    )
    questions_per_attempt = models.PositiveSmallIntegerField(
        _("questions per attempt"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Leave empty for every question. Otherwise each attempt draws this many, the "
            "questions the learner has not answered yet first, then those seen longest ago."
        ),
    )
    shuffle_questions = models.BooleanField(
        _("shuffle questions"),
        default=False,
        help_text=_(
            "Each attempt puts its questions in an order of its own, kept for its reloads, "
            "its review and its result."
        ),
    )
    # Defaults rather than auto_now*, so that fixtures (raw saves) get timestamps too.
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    # The version of the quiz's content, moved by `quizzes.content.content_changed` after every
    # edit; cached content is keyed on it.
    updated_at = models.DateTimeField(_("updated"), default=timezone.now, editable=False)

    objects = QuizManager()

    class Meta:
        ordering = ["title"]
        verbose_name = _("quiz")
        verbose_name_plural = _("quizzes")
        indexes = [
            models.Index(catalog_title("en"), F("id"), name="quiz_catalog_order_en"),
            models.Index(catalog_title("ar"), F("id"), name="quiz_catalog_order_ar"),
            # A listing's count (once per catalog version) reads this index, not every quiz.
            models.Index(fields=["id"], condition=Q(is_published=True), name="quiz_published"),
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs) -> None:
        # Kept here rather than by each editing path: every path that saves a quiz (the
        # admin, the importer, the shell) changes what it is found by.
        self.search_text = search_text_for(self)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "search_text"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("quizzes:detail", args=[self.slug])

    def natural_key(self) -> tuple[str]:
        return (self.slug,)

    def clean(self) -> None:
        super().clean()
        if self.opens_at and self.closes_at and self.closes_at <= self.opens_at:
            raise ValidationError({"closes_at": _("A quiz must close after it opens.")})
        if self.time_limit is not None and self.time_limit.total_seconds() < 60:
            raise ValidationError({"time_limit": _("A time limit is at least one minute.")})

    @property
    def is_deferred(self) -> bool:
        return self.feedback == self.Feedback.DEFERRED

    def next_question_position(self) -> int:
        """The position after the quiz's last question."""
        last = self.questions.aggregate(last=Max("position"))["last"]
        return (last or 0) + 1


def search_text_refresh(quizzes: QuerySet[Quiz] | None = None) -> int:
    """Recompute `search_text` for `quizzes` (a queryset; default every quiz), returning how
    many changed: for quizzes written without `Quiz.save()`."""
    changed: list[Quiz] = []
    for quiz in (quizzes if quizzes is not None else Quiz.objects.all()).iterator(2000):
        text = search_text_for(quiz)
        if text != quiz.search_text:
            quiz.search_text = text
            changed.append(quiz)
    Quiz.objects.bulk_update(changed, ["search_text"], batch_size=500)
    return len(changed)


# The kinds answered by picking among the question's choices.
CHOICE_KINDS = frozenset({"single", "multiple", "truefalse"})
# The kinds whose step numbers parts of the question for the learner to arrange: a matching
# question's matches, an ordering question's items.
PART_KINDS = frozenset({"matching", "ordering"})
# The kinds answered with something other than choices or a number: typed or arranged.
TYPED_KINDS = frozenset({"short", *PART_KINDS})


class QuestionQuerySet(models.QuerySet["Question"]):
    def counts_by_quiz(self) -> dict[int, int]:
        """How many of these questions each quiz has, by quiz id (one statement)."""
        rows = self.order_by().values("quiz_id").annotate(count=Count("pk"))
        return {row["quiz_id"]: row["count"] for row in rows}


class QuestionManager(models.Manager.from_queryset(QuestionQuerySet)):
    def get_by_natural_key(self, quiz_slug: str, position: int) -> Question:
        return self.get(quiz__slug=quiz_slug, position=position)


class Question(models.Model):
    class Kind(models.TextChoices):
        SINGLE = "single", _("One answer")
        MULTIPLE = "multiple", _("Several answers")
        TRUEFALSE = "truefalse", _("True or false")
        NUMERICAL = "numerical", pgettext_lazy("a kind of question", "Number")
        SHORT = "short", _("Short answer")
        MATCHING = "matching", pgettext_lazy("a kind of question", "Matching")
        ORDERING = "ordering", pgettext_lazy("a kind of question", "Ordering")

    quiz = models.ForeignKey(
        Quiz, on_delete=models.CASCADE, related_name="questions", verbose_name=_("quiz")
    )
    position = models.PositiveSmallIntegerField(_("position"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.SINGLE)
    prompt = models.TextField(_("prompt"))
    # Empty in a draft (an imported quiz's questions often have none); a published quiz's
    # questions each have one (instructors/forms.py: publishing is refused without).
    explanation = models.TextField(_("explanation"), blank=True)
    # Shown after the prompt; its alt text is required in English once there is an image.
    image = image_field(_("image"), prefix="image")
    image_width = image_dimension()
    image_height = image_dimension()
    image_alt = models.CharField(_("image's alt text"), max_length=IMAGE_ALT_MAX_LENGTH, blank=True)
    # Shown with the explanation, in the feedback and the review.
    explanation_image = image_field(_("explanation's image"), prefix="explanation_image")
    explanation_image_width = image_dimension()
    explanation_image_height = image_dimension()
    explanation_image_alt = models.CharField(
        _("explanation image's alt text"), max_length=IMAGE_ALT_MAX_LENGTH, blank=True
    )

    objects = QuestionManager()

    class Meta:
        ordering = ["quiz", "position"]
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = [
            models.UniqueConstraint(
                fields=["quiz", "position"], name="question_position_unique_in_quiz"
            )
        ]

    def __str__(self) -> str:
        # «السؤال 1: ما التكرار الذي…», in the page's language: the question as instructors
        # know it, on its nested heading, its breadcrumb and a delete page.
        prompt = " ".join((self.prompt or "").split())
        return _("Question %(number)s: %(prompt)s") % {
            "number": self.position,
            "prompt": Truncator(prompt).chars(QUESTION_NAME_LENGTH),
        }

    def natural_key(self) -> tuple[str, int]:
        return (*self.quiz.natural_key(), self.position)

    natural_key.dependencies = ["quizzes.quiz"]  # type: ignore[attr-defined]

    @property
    def has_choices(self) -> bool:
        return self.kind in CHOICE_KINDS


class QuestionPartManager[T: models.Model](models.Manager[T]):
    """Rows of a question (choices, accepted numbers), named by quiz, question and position."""

    def get_by_natural_key(self, quiz_slug: str, question_position: int, position: int) -> T:
        return self.get(
            question__quiz__slug=quiz_slug, question__position=question_position, position=position
        )


class OrderedPart(models.Model):
    """A row of a question in the question's own order (`position`), named by quiz, question
    and position. Each has its `question` foreign key."""

    position = models.PositiveSmallIntegerField(_("position"))

    question: models.ForeignKey[Question]

    class Meta:
        abstract = True
        ordering = ["question", "position"]

    def natural_key(self) -> tuple[str, int, int]:
        return (*self.question.natural_key(), self.position)

    natural_key.dependencies = ["quizzes.question"]  # type: ignore[attr-defined]


class QuestionPart(OrderedPart):
    """What a question's answer parts (its choices, its accepted numbers and texts) share: a
    place in the question's order, a weight (`fraction`, each part's own default) and the
    feedback for a learner whose response is this part."""

    # For a learner whose response is this part: GIFT's per-answer "#feedback".
    feedback = models.TextField(_("feedback"), blank=True)

    class Meta(OrderedPart.Meta):
        abstract = True


class Choice(QuestionPart):
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="choices", verbose_name=_("question")
    )
    text = models.CharField(_("text"), max_length=500)
    # Shown in the choice's label, after its text.
    image = image_field(_("image"), prefix="image")
    image_width = image_dimension()
    image_height = image_dimension()
    image_alt = models.CharField(_("image's alt text"), max_length=IMAGE_ALT_MAX_LENGTH, blank=True)
    # The instructor's mark ("right"), always the sign of the weight: a right choice has a
    # positive weight, a wrong one zero or less.
    is_correct = models.BooleanField(_("correct"), default=False)
    # Moodle's answer fraction: the share of the question's mark this choice is worth, from
    # -1 to 1 (seven decimals, as Moodle's 1/3 and 1/7). A single-answer question has one
    # choice at 1; a multiple-answer one scores the sum of the ticked weights, clamped 0..1.
    fraction = models.DecimalField(_("weight"), max_digits=8, decimal_places=7, default=Decimal(0))

    objects = QuestionPartManager["Choice"]()

    class Meta(QuestionPart.Meta):
        verbose_name = _("choice")
        verbose_name_plural = _("choices")
        constraints = [
            models.UniqueConstraint(
                fields=["question", "position"], name="choice_position_unique_in_question"
            ),
            # At most one choice worth the whole mark (for a single-answer question: at most
            # one correct choice); "at least one" is checked by the admin's validation.
            models.UniqueConstraint(
                fields=["question"],
                condition=Q(fraction=1),
                name="one_full_mark_choice_per_question",
            ),
            models.CheckConstraint(
                condition=Q(fraction__gte=-1, fraction__lte=1),
                name="choice_fraction_between_minus_one_and_one",
            ),
            models.CheckConstraint(
                condition=Q(is_correct=True, fraction__gt=0) | Q(is_correct=False, fraction__lte=0),
                name="choice_marked_right_has_a_positive_weight",
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def save(self, *args, **kwargs) -> None:
        # Code that marks the right choice as it always could (`is_correct=True`, no weight,
        # as a script or the shell does) means the whole mark: a single-answer question's
        # right choice. Any weight given is kept (and checked by the constraints above).
        if self.is_correct and not self.fraction:
            self.fraction = Decimal(1)
            update_fields = kwargs.get("update_fields")
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "fraction"}
        super().save(*args, **kwargs)


class NumericalAnswer(QuestionPart):
    """An accepted number for a numerical question: `value` ± `tolerance`, worth `fraction`."""

    question = models.ForeignKey(
        Question,
        on_delete=models.CASCADE,
        related_name="numerical_answers",
        verbose_name=_("question"),
    )
    value = models.DecimalField(_("value"), max_digits=20, decimal_places=10)
    tolerance = models.DecimalField(
        _("tolerance"), max_digits=20, decimal_places=10, default=Decimal(0)
    )
    fraction = models.DecimalField(_("weight"), max_digits=8, decimal_places=7, default=Decimal(1))

    objects = QuestionPartManager["NumericalAnswer"]()

    class Meta(QuestionPart.Meta):
        verbose_name = _("accepted number")
        verbose_name_plural = _("accepted numbers")
        constraints = [
            models.UniqueConstraint(
                fields=["question", "position"], name="numerical_answer_position_unique"
            ),
            models.CheckConstraint(
                condition=Q(fraction__gte=-1, fraction__lte=1, tolerance__gte=0),
                name="numerical_answer_weight_and_tolerance_in_range",
            ),
        ]

    def __str__(self) -> str:
        if self.tolerance:
            return f"{self.value.normalize():f} ± {self.tolerance.normalize():f}"
        return f"{self.value.normalize():f}"
