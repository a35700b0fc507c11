import json

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError

from quizzes.models import Choice, Question

# Every image the content names: a question's, its explanation's, a choice's.
IMAGE_FIELDS = [(Question, "image"), (Question, "explanation_image"), (Choice, "image")]


class Command(BaseCommand):
    help = (
        "Check that every image the quizzes name is in the media store (MEDIA_ROOT, or the "
        "bucket with MEDIA_STORAGE=s3): after restoring a backup, or moving the store. Prints "
        "the counts as JSON and lists what is missing; fails if anything is."
    )

    def handle(self, *args, **options) -> None:
        named = missing = 0
        for model, field in IMAGE_FIELDS:
            names = model.objects.exclude(**{field: ""}).values_list(field, flat=True)
            for name in names.iterator(chunk_size=2000):
                named += 1
                if not default_storage.exists(name):
                    missing += 1
                    self.stderr.write(f"missing: {name} ({model.__name__}.{field})")
        self.stdout.write(json.dumps({"images": named, "missing": missing}))
        if missing:
            raise CommandError(f"{missing} of {named} images are missing from the media store.")
