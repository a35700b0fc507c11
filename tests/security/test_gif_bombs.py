"""A small animated GIF of many frames is refused before it is decoded: re-encoding it frame by
frame would hold a worker for seconds (an 81 KB GIF took 8.3 s)."""

from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from quizzes.instructors.images import image_reencoded


def animated_gif(frames: int, side: int) -> SimpleUploadedFile:
    images = []
    for n in range(frames):
        # Frames that differ (Pillow merges equal ones into one).
        image = Image.new("RGB", (side, side), ((n * 37) % 256, (n * 11) % 256, n % 256))
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=20)
    return SimpleUploadedFile("bomb.gif", out.getvalue(), content_type="image/gif")


def test_a_gif_of_a_thousand_small_frames_is_refused_though_its_pixels_are_few():
    upload = animated_gif(1000, 40)  # 1.6 million pixels in all, 1,000 frames to decode
    assert upload.size < 1_000_000  # well under the 5 MB every upload may be

    with pytest.raises(ValidationError) as refused:
        image_reencoded(upload)

    assert refused.value.code == "image_too_long"
    assert refused.value.params["frames"] == 1000


def test_frames_times_pixels_past_twenty_five_million_are_refused():
    upload = animated_gif(200, 360)  # 25.9 million pixels: seconds of a worker's time

    with pytest.raises(ValidationError) as refused:
        image_reencoded(upload)

    assert refused.value.code == "image_too_long"
    assert refused.value.params == {"frames": 200, "width": 360, "height": 360}


def test_an_ordinary_animation_is_kept_with_its_frames():
    upload = animated_gif(24, 200)

    stored = image_reencoded(upload)

    with Image.open(io.BytesIO(stored.read())) as image:
        assert image.n_frames == 24 and image.size == (200, 200)
