"""Images found in an imported file, held to exactly the checks of an image uploaded in the
admin (`instructors/images.py`: PNG, JPEG, WebP or GIF, at most 5 MB and 4,096 pixels a side,
encoded anew without their metadata)."""

from __future__ import annotations

import base64
import binascii
import io

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.translation import gettext as _
from PIL import Image as PillowImage

from ...models.content import IMAGE_ALT_MAX_LENGTH
from ..images import MAX_BYTES, image_reencoded
from .content import Bilingual, Image


class ImageRefused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def image_from_bytes(data: bytes, *, name: str, alt: Bilingual) -> Image:
    """The image `data` (file `name` in the imported file) as the upload's checks leave it, or
    ImageRefused with their reason."""
    upload = SimpleUploadedFile(name or "image", data)
    try:
        content = image_reencoded(upload)
    except ValidationError as error:
        raise ImageRefused(" ".join(error.messages)) from None
    with PillowImage.open(io.BytesIO(content.read())) as opened:
        width, height = opened.size
    content.seek(0)
    english = alt.en[:IMAGE_ALT_MAX_LENGTH].strip()
    arabic = alt.ar[:IMAGE_ALT_MAX_LENGTH].strip()
    return Image(
        content=content,
        # The English alt text repeated in the Arabic text (as the exports write an image with
        # no Arabic alt text) is no translation: the Arabic page falls back to it anyway.
        alt=Bilingual(en=english, ar="" if arabic == english else arabic),
        name=name,
        width=width,
        height=height,
    )


def decode_base64(text: str) -> bytes:
    """A base64 file's bytes (whitespace and line breaks allowed), or ImageRefused."""
    compact = "".join(text.split())
    # A base64 text a third longer than the largest image is refused before it is decoded.
    if len(compact) > (MAX_BYTES * 4) // 3 + 8:
        raise ImageRefused(
            _("This image is larger than 5 MB; upload one of at most 5 MB. Nothing was stored.")
        )
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise ImageRefused(_("Its base64 encoding is broken.")) from None
