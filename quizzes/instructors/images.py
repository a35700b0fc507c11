"""Images of questions, choices and explanations: what an upload must be, how it is stored,
and when its file goes.

An upload is read with Pillow and accepted only as PNG, JPEG, WebP or GIF, at most
`MAX_BYTES` and `MAX_SIDE` pixels a side; it is then encoded anew in its format, which drops
its metadata (EXIF, GPS, comments) and anything else the file carried. Anything else gets a
form error and nothing is stored.

Files go through Django's storage API (`STORAGES["default"]`). A file is removed once no row
names it any more, after the transaction that let it go commits: when an image is replaced or
cleared (`ImageFormMixin`), and when the admin deletes questions, choices or quizzes
(`RemovesImageFilesMixin`). Code that deletes questions otherwise (a script, the shell) calls
`images_discard(image_names(questions=…))` itself. A copied quiz ("Duplicate") names the same
files as its original: a file shared so is kept until the last row naming it goes.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterable

from django import forms
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Q, QuerySet
from django.template.defaultfilters import filesizeformat
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from PIL import Image, ImageOps, UnidentifiedImageError

from ..models import Choice, Question, Quiz
from .reordering import InlineRowForm

MAX_BYTES = 5 * 1024 * 1024
MAX_SIDE = 4096
# An animation is decoded frame by frame to be encoded anew, about 0.04 s of CPU a million
# pixels: at most this many frames, and this many pixels in all its frames together (about a
# second of a worker's time; one image of the largest size is 16.8 million).
MAX_ANIMATION_FRAMES = 300
MAX_ANIMATION_PIXELS = 25_000_000
# Pillow's format names, with the extension each is stored under.
FORMATS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp", "GIF": "gif"}
ACCEPT = "image/png,image/jpeg,image/webp,image/gif"
# The image fields of each model; each has its alt text in `<name>_alt`.
IMAGE_FIELDS = {Question: ("image", "explanation_image"), Choice: ("image",)}
# What a re-encoded frame keeps of the original's information: how it is drawn, nothing else.
KEPT_INFO = ("transparency", "duration", "loop", "background", "disposal")

FORMAT_ERROR = _(
    "Upload a PNG, JPEG, WebP or GIF image; this file is not one (SVG and other formats are "
    "not accepted). Nothing was stored."
)
ORPHAN_ALT_ERROR = _(
    "This text describes an image, and there is none: choose the image, or empty this field."
)
CHOOSE_AGAIN_ERROR = _(
    "Choose this image again: a page sent back with errors cannot keep a chosen file, so "
    "nothing of it was stored."
)
UNREADABLE_ERROR = _(
    "This image could not be read; save it again as PNG, JPEG, WebP or GIF and upload that. "
    "Nothing was stored."
)


def image_reencoded(upload: UploadedFile) -> ContentFile:
    """The upload encoded anew, without its metadata, or a ValidationError saying why not."""
    if upload.size is not None and upload.size > MAX_BYTES:
        raise ValidationError(
            _("This image is %(size)s; upload one of at most 5 MB. Nothing was stored."),
            code="image_too_large",
            params={"size": filesizeformat(upload.size)},
        )
    upload.seek(0)
    try:
        with warnings.catch_warnings():
            # A decompression bomb's warning is a refusal here, not a line in a log.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(upload) as image:
                if image.format not in FORMATS:
                    raise ValidationError(FORMAT_ERROR, code="image_format")
                width, height = image.size
                if width > MAX_SIDE or height > MAX_SIDE:
                    raise ValidationError(
                        _(
                            "This image is %(width)d × %(height)d pixels; upload one of at most "
                            "4,096 pixels a side. Nothing was stored."
                        ),
                        code="image_too_wide",
                        params={"width": width, "height": height},
                    )
                frames = getattr(image, "n_frames", 1)
                if frames > MAX_ANIMATION_FRAMES or frames * width * height > MAX_ANIMATION_PIXELS:
                    # Each frame is decoded to be encoded anew: a long animation of large
                    # frames would hold a worker for minutes.
                    raise ValidationError(
                        _(
                            "This animation has %(frames)d frames of %(width)d × %(height)d "
                            "pixels; make it shorter or smaller. Nothing was stored."
                        ),
                        code="image_too_long",
                        params={"frames": frames, "width": width, "height": height},
                    )
                data = _encoded(image)
    except ValidationError:
        raise
    except (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        OSError,
        ValueError,
        SyntaxError,
        Warning,
    ) as error:
        raise ValidationError(UNREADABLE_ERROR, code="image_unreadable") from error
    finally:
        upload.seek(0)
    return ContentFile(data, name=f"image.{FORMATS[image.format]}")


def _encoded(image: Image.Image) -> bytes:
    image_format = image.format
    out = io.BytesIO()
    if getattr(image, "n_frames", 1) > 1:
        # An animation keeps its frames and timing; its metadata goes.
        image.load()
        image.info = {key: image.info[key] for key in KEPT_INFO if key in image.info}
        image.save(out, format=image_format, save_all=True)
        return out.getvalue()
    # A photo stands as it was taken: its orientation tag is applied to the pixels, then
    # dropped with the rest.
    upright = ImageOps.exif_transpose(image)
    upright.load()
    kept = {key: image.info[key] for key in KEPT_INFO if key in image.info}
    clean = upright.copy()
    clean.info = kept
    if image_format == "JPEG":
        if clean.mode not in {"RGB", "L"}:
            clean = clean.convert("RGB")
        clean.save(out, format="JPEG", quality=88, optimize=True)
    elif image_format == "WEBP":
        clean.save(out, format="WEBP", quality=88)
    else:
        # PNG and GIF at their default compression: "optimize" costs seconds on large images.
        clean.save(out, format=image_format)
    return out.getvalue()


class ImageFormMixin(forms.ModelForm):
    """For the forms that edit a question or a choice: an upload is checked and re-encoded
    (`image_reencoded`), an image needs its English alt text, and a replaced or cleared
    image's file is removed once the save commits."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._stored_images = {
            name: getattr(self.instance, name).name or "" for name in self._image_fields()
        }
        for name in self._image_fields():
            if name in self.fields:
                self.fields[name].widget.attrs["accept"] = ACCEPT
                # The admin puts a stored image's "Currently / Clear / Change" in a fieldset
                # whose legend names it, which leaves the file input itself without a label.
                self.fields[name].widget.attrs["aria-label"] = capfirst(self.fields[name].label)
                self.fields[name].help_text = _(
                    "PNG, JPEG, WebP or GIF, at most 5 MB and 4,096 pixels a side. Its metadata "
                    "(such as a photo's place) is removed."
                )

    def _image_fields(self) -> tuple[str, ...]:
        return IMAGE_FIELDS.get(type(self.instance), ())

    def clean(self) -> dict:
        cleaned_data = super().clean()
        for name in self._image_fields():
            if name not in self.fields:
                continue
            value = cleaned_data.get(name)
            if isinstance(value, UploadedFile):
                try:
                    cleaned_data[name] = image_reencoded(value)
                except ValidationError as error:
                    self.add_error(name, error)
                    continue
            alt = f"{name}_alt_en"
            # An upload, or the stored image kept (a field left empty gives the stored one).
            has_image = bool(cleaned_data.get(name))
            if alt in self.fields and has_image and not (cleaned_data.get(alt) or "").strip():
                self.add_error(
                    alt,
                    _(
                        "Describe the image in English for learners who cannot see it (its alt "
                        "text), or remove the image."
                    ),
                )
            if not has_image and name not in self.errors:
                # An alt text describes an image: alone it would be read out for nothing, and
                # it most often means the image itself was lost on the way.
                for orphan in (f"{name}_alt_en", f"{name}_alt_ar"):
                    if orphan in self.fields and (cleaned_data.get(orphan) or "").strip():
                        self.add_error(orphan, ORPHAN_ALT_ERROR)
        return cleaned_data

    def save(self, commit: bool = True):
        instance = super().save(commit=commit)
        replaced = [
            stored
            for name, stored in self._stored_images.items()
            if stored and (getattr(instance, name).name or "") != stored
        ]
        images_discard(replaced)
        return instance


class InlineImageInput(forms.ClearableFileInput):
    """The image input of an inline row, labelled rather than grouped: the nested inlines'
    template puts a field's group legend where a legend may not stand."""

    use_fieldset = False


class ChoiceInlineForm(ImageFormMixin, InlineRowForm):
    """A choice's row on its question's page, with its image."""

    class Meta:
        widgets = {"image": InlineImageInput}


def _forms_of(formsets: Iterable) -> Iterable[forms.BaseForm]:
    """Every row of these formsets and of the sections of their rows (a question's parts)."""
    for formset in formsets:
        for form in formset.forms:
            yield form
            yield from _forms_of(getattr(form, "part_formsets", []))


class AsksForImagesAgainMixin:
    """For the admins of quizzes and questions. A browser cannot show a chosen file again, so
    a page sent back with errors anywhere (a choice not marked correct, say) would come back
    with its image fields silently empty, and the next save would store the question without
    its image. Beside every image field that held a file, the page says to choose it again
    (and an alt text left without its image is refused, `ImageFormMixin`)."""

    def render_change_form(self, request, context, *args, **kwargs):
        if request.method == "POST":
            adminform = context.get("adminform")
            rows = [adminform.form] if adminform is not None else []
            rows += _forms_of(getattr(adminform.form, "part_formsets", []) if rows else [])
            inlines = context.get("inline_admin_formsets") or []
            rows += _forms_of(inline.formset for inline in inlines)
            for form in rows:
                _ask_for_images_again(form)
        return super().render_change_form(request, context, *args, **kwargs)


def _ask_for_images_again(form: forms.BaseForm) -> None:
    if not form.is_bound:
        return
    for name in IMAGE_FIELDS.get(type(getattr(form, "instance", None)), ()):
        if name not in form.fields or form.errors.get(name):
            continue
        chosen = form.files.get(form.add_prefix(name))
        if chosen:
            form.add_error(name, CHOOSE_AGAIN_ERROR)


def image_names(*, questions: QuerySet[Question]) -> set[str]:
    """The files named by these questions, their explanations and their choices."""
    names = {
        name for row in questions.values_list("image", "explanation_image") for name in row if name
    }
    choices = Choice.objects.filter(question__in=questions).values_list("image", flat=True)
    return names | {name for name in choices if name}


def images_discard(names: Iterable[str]) -> None:
    """Once the transaction commits, remove the files of `names` that no row names."""
    names = {name for name in names if name}
    if names:
        transaction.on_commit(lambda: _remove_unnamed(names))


def _remove_unnamed(names: set[str]) -> None:
    named = set(
        Question.objects.filter(Q(image__in=names) | Q(explanation_image__in=names))
        .values_list("image", "explanation_image")
        .distinct()
    )
    still = {name for row in named for name in row}
    still |= set(Choice.objects.filter(image__in=names).values_list("image", flat=True))
    for name in names - still:
        default_storage.delete(name)


def _names_of(obj) -> set[str]:
    if isinstance(obj, Quiz):
        return image_names(questions=Question.objects.filter(quiz=obj))
    if isinstance(obj, Question):
        return image_names(questions=Question.objects.filter(pk=obj.pk))
    if isinstance(obj, Choice):
        return {obj.image.name} if obj.image else set()
    return set()


class RemovesImageFilesMixin:
    """For the admins of quizzes and questions: deleting a quiz, a question or a choice (on
    its page, from the list, or as an inline row ticked "Delete") removes its images' files."""

    def delete_model(self, request, obj) -> None:
        names = _names_of(obj)
        super().delete_model(request, obj)
        images_discard(names)

    def delete_queryset(self, request, queryset) -> None:
        names: set[str] = set()
        for obj in queryset:
            names |= _names_of(obj)
        super().delete_queryset(request, queryset)
        images_discard(names)

    def save_formset(self, request, form, formset, change) -> None:
        names: set[str] = set()
        for deleted in formset.deleted_forms:
            if deleted.instance.pk:
                names |= _names_of(deleted.instance)
        super().save_formset(request, form, formset, change)
        images_discard(names)
