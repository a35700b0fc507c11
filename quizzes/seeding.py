"""Bring the seed quizzes' texts in an existing database up to the current fixtures.

`seed_quizzes` loads a seed quiz only when it is absent, so a database seeded earlier keeps the
seed's old wording. `seed_texts_refresh` replaces a text only where the database still holds a
wording the seed shipped before (listed in `fixtures/superseded/texts.json`): such a text was
not edited by an instructor. A text that differs from both the current and every earlier seed
wording was edited and is kept. The quizzes whose texts changed get a new content version
(`content_changed`), so every process reads the new text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import transaction

from .content import content_changed
from .instructors.versioning import quizzes_of
from .models import Choice, Quiz

SUPERSEDED = Path(settings.BASE_DIR) / "fixtures" / "superseded" / "texts.json"


@dataclass
class SeedRefresh:
    refreshed: list[str] = field(default_factory=list)
    # Texts an instructor changed, and objects an instructor deleted or re-keyed: left alone.
    kept: list[str] = field(default_factory=list)


def natural_key(obj: dict) -> tuple:
    """The natural key of a fixture object, as the model's `get_by_natural_key` takes it."""
    fields = obj["fields"]
    match obj["model"]:
        case "quizzes.question":
            return (*fields["quiz"], fields["position"])
        case "quizzes.choice":
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
                owner = instance.question if model is Choice else instance
                touched.update(quizzes_of(owner).values_list("pk", flat=True))
        if touched:
            content_changed(quiz=Quiz.objects.filter(pk__in=touched))
    return result
