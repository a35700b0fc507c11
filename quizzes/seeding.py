"""Bring the seed quizzes' texts in an existing database up to the current fixtures.

`seed_quizzes` loads a seed quiz only when it is absent, so a database seeded earlier keeps the
seed's old wording. `seed_texts_refresh` replaces a text only where the database still holds a
wording the seed shipped before (listed in `fixtures/superseded/texts.json`): such a text was
not edited by an instructor. A text that differs from both the current and every earlier seed
wording was edited and is kept. The quizzes whose texts changed get a new content version
(`content_changed`), so every process reads the new text.

Questions a later seed adds to a seed quiz are listed in `fixtures/superseded/additions.json`.
`seed_additions_deliver` adds each to a database seeded before it, with its parts (accepted
answers, pairs, items), unless it was delivered before (`SeedAddition`: an instructor who
deleted it keeps it deleted) or its position holds a question of the quiz's own. A seed quiz
loaded whole records its additions as delivered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.db import transaction

from .content import content_changed
from .instructors.versioning import quizzes_of
from .models import Choice, OrderedPart, Question, Quiz, SeedAddition

SUPERSEDED = Path(settings.BASE_DIR) / "fixtures" / "superseded" / "texts.json"
ADDITIONS = Path(settings.BASE_DIR) / "fixtures" / "superseded" / "additions.json"
# The models of a question's parts, whose natural key is their question's and a position.
PART_MODELS = (
    "quizzes.choice",
    "quizzes.numericalanswer",
    "quizzes.acceptedtext",
    "quizzes.matchpair",
    "quizzes.orderitem",
)


@dataclass
class SeedRefresh:
    refreshed: list[str] = field(default_factory=list)
    # Texts an instructor changed, and objects an instructor deleted or re-keyed: left alone.
    kept: list[str] = field(default_factory=list)
    # Questions a later seed added, brought to this database.
    added: list[str] = field(default_factory=list)


def natural_key(obj: dict) -> tuple:
    """The natural key of a fixture object, as the model's `get_by_natural_key` takes it."""
    fields = obj["fields"]
    match obj["model"]:
        case "quizzes.question":
            return (*fields["quiz"], fields["position"])
        case model if model in PART_MODELS:
            return (*fields["question"], fields["position"])
        case _:
            return (fields["slug"],)


def superseded_texts(path: Path = SUPERSEDED) -> dict[tuple, list[str]]:
    """Earlier seed wordings, by (model, natural key, field)."""
    texts: dict[tuple, list[str]] = {}
    for obj in json.loads(path.read_text(encoding="utf-8")):
        for name, values in obj["fields"].items():
            texts[(obj["model"], tuple(obj["key"]), name)] = values
    return texts


def seed_texts_refresh(*, objects: list[dict], superseded: dict[tuple, list[str]]) -> SeedRefresh:
    """Give each seed text in `objects` (one fixture file) its current wording where the
    database holds an earlier seed wording; report what was refreshed and what was kept."""
    result = SeedRefresh()
    touched: set[int] = set()
    with transaction.atomic():
        for obj in objects:
            key = natural_key(obj)
            label = f"{obj['model'].split('.')[1]} {' '.join(map(str, key))}"
            model = apps.get_model(obj["model"])
            try:
                found = model._default_manager.get_by_natural_key(*key)
            except model.DoesNotExist:
                result.kept.append(f"{label}: deleted")
                continue
            instance = model._default_manager.select_for_update().get(pk=found.pk)
            texts = {
                name: text for name, text in obj["fields"].items() if name[-3:] in ("_en", "_ar")
            }
            # An earlier wording of a choice belongs with the answer key it shipped with.
            key_moved = model is Choice and instance.is_correct != obj["fields"]["is_correct"]
            stale, edited = [], []
            for name, text in texts.items():
                stored = getattr(instance, name)
                if stored == text:
                    continue
                earlier = superseded.get((obj["model"], key, name), ())
                (stale if stored in earlier and not key_moved else edited).append(name)
            result.kept += [f"{label}: {name}" for name in edited]
            if stale:
                for name in stale:
                    setattr(instance, name, texts[name])
                instance.save()
                result.refreshed += [f"{label}: {name}" for name in stale]
                owner = instance.question if isinstance(instance, OrderedPart) else instance
                touched.update(quizzes_of(owner).values_list("pk", flat=True))
        if touched:
            content_changed(quiz=Quiz.objects.filter(pk__in=touched))
    return result


def seed_additions(path: Path = ADDITIONS) -> dict[str, list[int]]:
    """The positions of the questions later seeds added, by quiz slug."""
    return {
        entry["quiz"]: list(entry["positions"])
        for entry in json.loads(path.read_text(encoding="utf-8"))
    }


def seed_additions_record(*, slugs: list[str], additions: dict[str, list[int]]) -> None:
    """The additions of seed quizzes just loaded whole: delivered with them."""
    SeedAddition.objects.bulk_create(
        [
            SeedAddition(quiz_slug=slug, position=position)
            for slug in slugs
            for position in additions.get(slug, ())
        ],
        ignore_conflicts=True,
    )


def seed_additions_deliver(
    *, objects: list[dict], additions: dict[str, list[int]], superseded: dict[tuple, list[str]]
) -> SeedRefresh:
    """Add the questions of `objects` (one fixture file) that a later seed added and this
    database never had, with their parts; record each as delivered."""
    result = SeedRefresh()
    touched: set[int] = set()
    with transaction.atomic():
        for obj in objects:
            if obj["model"] != "quizzes.question":
                continue
            slug, position = natural_key(obj)
            if position not in additions.get(slug, ()):
                continue
            quiz = Quiz.objects.select_for_update().filter(slug=slug).first()
            if (
                quiz is None
                or SeedAddition.objects.filter(quiz_slug=slug, position=position).exists()
            ):
                continue
            label = f"question {slug} {position}"
            occupant = Question.objects.filter(quiz=quiz, position=position).first()
            if occupant is not None:
                prompts = [
                    obj["fields"]["prompt_en"],
                    *superseded.get(("quizzes.question", (slug, position), "prompt_en"), ()),
                ]
                if occupant.kind == obj["fields"]["kind"] and occupant.prompt_en in prompts:
                    # The seed's own question, loaded without this record (plain loaddata).
                    SeedAddition.objects.create(quiz_slug=slug, position=position)
                else:
                    result.kept.append(f"{label}: its position holds a question of the quiz's own")
                continue
            parts = [
                part
                for part in objects
                if part["model"] in PART_MODELS and part["fields"]["question"] == [slug, position]
            ]
            for row in serializers.deserialize("json", json.dumps([obj, *parts])):
                row.save()
            SeedAddition.objects.create(quiz_slug=slug, position=position)
            result.added.append(label)
            touched.add(quiz.pk)
        if touched:
            content_changed(quiz=Quiz.objects.filter(pk__in=touched))
    return result
