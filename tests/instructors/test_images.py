"""Images of questions, choices and explanations: uploads checked and re-encoded through the
admin, alt texts required, files removed with what names them (quizzes/instructors/images.py)."""

from __future__ import annotations

import io
import os
import re

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from PIL import Image

from quizzes.models import Choice, Question, Quiz
from tests.admin_posts import choice_rows, inline, typed_sections
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db

GPS_IFD = 0x8825


def jpeg_with_exif(size=(40, 30)) -> bytes:
    """A JPEG photo as phones take them: EXIF with a camera, an orientation and a place."""
    image = Image.new("RGB", size, (200, 30, 30))
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0110] = "Phone 12"  # Model
    exif[0x0112] = 1  # Orientation: as stored
    exif[GPS_IFD] = {1: "N", 2: (24.0, 42.0, 0.0), 3: "E", 4: (46.0, 43.0, 0.0)}
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif, comment=b"taken at home")
    return out.getvalue()


def png(size=(40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, (10, 120, 200, 255)).save(out, format="PNG")
    return out.getvalue()


def bmp() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, format="BMP")
    return out.getvalue()


def tiff() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, format="TIFF")
    return out.getvalue()


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims to be `width` × `height`: a few bytes that would unpack to gigabytes."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def upload(name: str, data: bytes, content_type: str = "image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


def page_errors(response) -> str:
    """The error lists of a refused admin page (a field's list carries an id)."""
    return " | ".join(
        re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode())
    )


def stored_files() -> list[str]:
    if not default_storage.exists("quizzes"):
        return []
    return default_storage.listdir("quizzes")[1]


def question_post(question: Question, **fields) -> dict:
    data = {
        "quiz": str(question.quiz_id),
        "position": str(question.position),
        "kind": question.kind,
        "prompt_en": question.prompt_en,
        "prompt_ar": question.prompt_ar,
        "explanation_en": question.explanation_en,
        "explanation_ar": question.explanation_ar,
    }
    data |= fields
    data |= inline("choices", choice_rows(question), initial=question.choices.count())
    data |= inline("numerical_answers", []) | typed_sections()
    return data


def save_question(client, question: Question, language: str = "en", **fields):
    return client.post(
        f"/{language}/admin/quizzes/question/{question.pk}/change/",
        question_post(question, **fields),
    )


@pytest.fixture
def question(db) -> Question:
    return make_quiz(questions=2).questions.get(position=1)


def test_an_uploaded_photo_is_stored_re_encoded_without_its_exif_and_gps(
    admin_client, question, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = save_question(
            admin_client,
            question,
            image=upload("holiday.jpg", jpeg_with_exif(), "image/jpeg"),
            image_alt_en="A red square.",
            image_alt_ar="مربع أحمر.",
        )

    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    assert question.image.name.startswith("quizzes/")
    assert "holiday" not in question.image.name
    assert question.image.name.endswith(".jpg")
    assert (question.image_width, question.image_height) == (40, 30)
    with default_storage.open(question.image.name) as stored, Image.open(stored) as image:
        assert image.format == "JPEG"
        assert image.size == (40, 30)
        assert not image.getexif()
        assert "exif" not in image.info
        assert "comment" not in image.info
    with default_storage.open(question.image.name) as stored:
        raw = stored.read()
    assert b"PhoneMaker" not in raw
    assert b"taken at home" not in raw
    assert question.image_alt_en == "A red square."
    assert question.image_alt_ar == "مربع أحمر."


@pytest.mark.parametrize(
    ("name", "data", "content_type"),
    [
        pytest.param(
            "drawing.svg",
            b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>',
            "image/svg+xml",
            id="svg",
        ),
        pytest.param(
            "notes.png", b"These are my notes, not a picture.\n" * 20, "image/png", id="text"
        ),
        pytest.param("wide.png", png((4097, 8)), "image/png", id="too-wide"),
        pytest.param("tall.png", png((8, 4100)), "image/png", id="too-tall"),
        pytest.param("photo.bmp", bmp(), "image/bmp", id="a-bmp-pillow-reads"),
        pytest.param("scan.tiff", tiff(), "image/tiff", id="a-tiff-pillow-reads"),
        pytest.param("bomb.png", png_header(30000, 30000), "image/png", id="decompression-bomb"),
    ],
)
def test_an_upload_that_is_not_an_accepted_image_is_refused_and_nothing_is_stored(
    admin_client, question, name, data, content_type
):
    response = save_question(
        admin_client, question, image=upload(name, data, content_type), image_alt_en="A picture."
    )

    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    question.refresh_from_db()
    assert not question.image
    assert stored_files() == []


def test_an_image_over_five_megabytes_is_refused_with_its_size(admin_client, question):
    # Noise does not compress: a PNG of 1,400 × 1,400 random pixels is over 5 MB.
    noise = Image.frombytes("RGB", (1400, 1400), os.urandom(1400 * 1400 * 3))
    out = io.BytesIO()
    noise.save(out, format="PNG", compress_level=0)
    assert out.tell() > 5 * 1024 * 1024

    response = save_question(
        admin_client, question, image=upload("noise.png", out.getvalue()), image_alt_en="Noise."
    )

    assert response.status_code == 200
    assert "at most 5 MB" in page_errors(response)
    question.refresh_from_db()
    assert not question.image
    assert stored_files() == []


def test_the_refusals_are_explained_in_arabic_on_the_arabic_admin(admin_client, question):
    response = save_question(
        admin_client,
        question,
        language="ar",
        image=upload("wide.png", png((5000, 4))),
        image_alt_en="Wide.",
    )

    errors = page_errors(response)
    assert "أبعاد هذه الصورة ⁦5000 × 4⁩ بكسل" in errors
    assert "لم يُحفظ شيء" in errors
    assert stored_files() == []


def test_an_image_without_its_english_alt_text_is_refused(admin_client, question):
    response = save_question(
        admin_client, question, image=upload("square.png", png()), image_alt_ar="مربع."
    )

    assert response.status_code == 200
    assert "alt text" in page_errors(response)
    question.refresh_from_db()
    assert not question.image
    assert stored_files() == []


def test_removing_the_alt_text_of_a_stored_image_is_refused(
    admin_client, question, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        save_question(admin_client, question, image=upload("a.png", png()), image_alt_en="A.")
    question.refresh_from_db()

    response = save_question(admin_client, question, image_alt_en="")

    assert "alt text" in page_errors(response)
    question.refresh_from_db()
    assert question.image_alt_en == "A."


def test_a_choice_and_the_explanation_take_images_with_their_alt_texts(
    admin_client, question, django_capture_on_commit_callbacks
):
    data = question_post(
        question,
        explanation_image=upload("why.gif", gif()),
        explanation_image_alt_en="Why, drawn.",
    )
    data["choices-0-image"] = upload("one.webp", webp())
    data["choices-0-image_alt_en"] = "The first choice, drawn."
    data["choices-0-image_alt_ar"] = "الخيار الأول مرسوما."
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    assert question.explanation_image.name.endswith(".gif")
    with (
        default_storage.open(question.explanation_image.name) as stored,
        Image.open(stored) as gif_,
    ):
        assert gif_.n_frames == 2  # still animated
    assert question.explanation_image_alt == "Why, drawn."
    choice = question.choices.get(position=1)
    assert choice.image.name.endswith(".webp")
    assert (choice.image_width, choice.image_height) == (20, 10)
    assert len(stored_files()) == 2


def test_a_choice_image_without_alt_text_is_refused_on_its_row(admin_client, question):
    data = question_post(question)
    data["choices-1-image"] = upload("two.png", png())
    response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)

    assert response.status_code == 200
    assert "alt text" in page_errors(response)
    assert not Choice.objects.exclude(image="").exists()
    assert stored_files() == []


def gif() -> bytes:
    frames = [Image.new("RGB", (12, 12), colour) for colour in ((255, 0, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=200)
    return out.getvalue()


def webp() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (20, 10), (0, 200, 0)).save(out, format="WEBP")
    return out.getvalue()


def test_replacing_an_image_removes_the_old_file(
    admin_client, question, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        save_question(admin_client, question, image=upload("a.png", png()), image_alt_en="A.")
    question.refresh_from_db()
    old = question.image.name

    with django_capture_on_commit_callbacks(execute=True):
        response = save_question(
            admin_client, question, image=upload("b.png", png((50, 50))), image_alt_en="B."
        )

    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    assert question.image.name != old
    assert not default_storage.exists(old)
    assert default_storage.exists(question.image.name)


def test_clearing_an_image_removes_its_file(
    admin_client, question, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        save_question(admin_client, question, image=upload("a.png", png()), image_alt_en="A.")
    question.refresh_from_db()
    old = question.image.name

    with django_capture_on_commit_callbacks(execute=True):
        response = save_question(admin_client, question, **{"image-clear": "on"})

    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    assert not question.image
    assert not default_storage.exists(old)


def images_on(question: Question, admin_client, capture) -> list[str]:
    data = question_post(
        question,
        image=upload("q.png", png()),
        image_alt_en="Q.",
        explanation_image=upload("e.png", png()),
        explanation_image_alt_en="E.",
    )
    data["choices-0-image"] = upload("c.png", png())
    data["choices-0-image_alt_en"] = "C."
    with capture(execute=True):
        response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)
    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    names = [question.image.name, question.explanation_image.name]
    names.append(question.choices.get(position=1).image.name)
    assert all(default_storage.exists(name) for name in names)
    return names


def test_deleting_a_question_in_the_admin_removes_its_files(
    admin_client, question, django_capture_on_commit_callbacks
):
    names = images_on(question, admin_client, django_capture_on_commit_callbacks)

    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(f"/en/admin/quizzes/question/{question.pk}/delete/", {"post": "yes"})

    assert not Question.objects.filter(pk=question.pk).exists()
    assert not any(default_storage.exists(name) for name in names)


def test_deleting_a_quiz_from_the_list_removes_its_questions_files(
    admin_client, question, django_capture_on_commit_callbacks
):
    names = images_on(question, admin_client, django_capture_on_commit_callbacks)

    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            "/en/admin/quizzes/quiz/",
            {"action": "delete_selected", "_selected_action": [question.quiz_id], "post": "yes"},
        )

    assert not Quiz.objects.filter(pk=question.quiz_id).exists()
    assert not any(default_storage.exists(name) for name in names)


def test_deleting_a_choice_row_removes_its_file(
    admin_client, question, django_capture_on_commit_callbacks
):
    names = images_on(question, admin_client, django_capture_on_commit_callbacks)
    doomed = question.choices.get(position=1)
    data = question_post(question, image_alt_en="Q.", explanation_image_alt_en="E.")
    rows = choice_rows(question, delete={doomed.pk})
    data |= inline("choices", rows, initial=len(rows))
    data |= {"choices-0-image_alt_en": "C."}
    if doomed.is_correct:
        data["choices-1-is_correct"] = "on"

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    assert not default_storage.exists(names[2])
    assert default_storage.exists(names[0])


def test_a_file_a_duplicated_quiz_still_names_is_kept_when_the_original_goes(
    admin_client, question, django_capture_on_commit_callbacks
):
    from quizzes.instructors.duplication import quiz_duplicate

    names = images_on(question, admin_client, django_capture_on_commit_callbacks)
    copy = quiz_duplicate(quiz=question.quiz)

    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(f"/en/admin/quizzes/quiz/{question.quiz_id}/delete/", {"post": "yes"})

    assert all(default_storage.exists(name) for name in names)
    assert copy.questions.get(position=1).image.name == names[0]


@override_settings(LANGUAGE_CODE="en")
def test_the_question_page_offers_the_image_fields_with_the_accepted_formats(
    admin_client, question
):
    page = admin_client.get(f"/en/admin/quizzes/question/{question.pk}/change/").content.decode()

    assert 'enctype="multipart/form-data"' in page
    for name in ("image", "image_alt_en", "image_alt_ar", "explanation_image"):
        assert f'name="{name}"' in page
    assert 'name="choices-0-image"' in page
    assert 'accept="image/png,image/jpeg,image/webp,image/gif"' in page
    # Named for assistive technology even when the admin wraps it in a fieldset.
    assert 'aria-label="Image"' in page


def test_the_question_preview_shows_the_stored_images_with_the_alt_texts_typed(
    admin_client, question, django_capture_on_commit_callbacks
):
    images_on(question, admin_client, django_capture_on_commit_callbacks)
    data = question_post(
        question,
        image_alt_en="Typed, not saved.",
        image_alt_ar="مكتوب.",
        explanation_image_alt_en="E.",
    )
    data["choices-0-image_alt_en"] = "C."

    page = admin_client.post(
        f"/en/admin/quizzes/question/preview/?question={question.pk}", data, HTTP_HX_REQUEST="true"
    ).content.decode()

    alts = re.findall(r'<img class="rich-preview__image"[^>]*alt="([^"]*)"', page)
    assert alts == ["Typed, not saved.", "C.", "E.", "مكتوب.", "C.", "E."]
    change = admin_client.get(f"/en/admin/quizzes/question/{question.pk}/change/").content.decode()
    assert f"preview/?question={question.pk}" in change


def test_the_question_preview_of_a_cleared_image_shows_none(
    admin_client, question, django_capture_on_commit_callbacks
):
    images_on(question, admin_client, django_capture_on_commit_callbacks)
    data = question_post(question, **{"image-clear": "on"})

    page = admin_client.post(
        f"/en/admin/quizzes/question/preview/?question={question.pk}", data
    ).content.decode()

    assert "Q." not in re.findall(r'<img class="rich-preview__image"[^>]*alt="([^"]*)"', page)


def test_the_gift_export_writes_images_as_markdown_links_to_their_absolute_urls(
    admin_client, question, django_capture_on_commit_callbacks
):
    from quizzes.instructors.gift.format import parse_gift

    names = images_on(question, admin_client, django_capture_on_commit_callbacks)

    response = admin_client.get(f"/en/admin/quizzes/quiz/{question.quiz_id}/export.gift.txt")

    text = response.content.decode()
    assert response.status_code == 200
    assert f"![Q.](http\\://testserver/media/{names[0]})" in text
    parsed = parse_gift(text).questions[0]
    assert parsed.prompt.en.endswith(f"\n\n![Q.](http://testserver/media/{names[0]})")
    assert parsed.explanation.en.endswith(f"![E.](http://testserver/media/{names[1]})")
    assert parsed.choices[0].text.en.endswith(f" ![C.](http://testserver/media/{names[2]})")
    # Arabic text with no alt of its own takes the English one.
    assert parsed.prompt.ar.endswith(f"![Q.](http://testserver/media/{names[0]})")


def test_the_gift_export_without_a_request_links_images_to_the_site_origin(
    admin_client, question, django_capture_on_commit_callbacks, settings
):
    from quizzes.instructors.exports import quiz_to_gift

    names = images_on(question, admin_client, django_capture_on_commit_callbacks)
    settings.SITE_ORIGIN = "https://daleel.example.org"

    text = quiz_to_gift(question.quiz)

    assert f"![Q.](https\\://daleel.example.org/media/{names[0]})" in text


def test_a_gift_file_with_image_links_imports_them_as_text(admin_client):
    from quizzes.instructors.gift.format import parse_gift

    source = (
        "::Q1::[markdown]What is shown? ![A chart](https\\://cdn.example.org/a.png){\n"
        "=Yes\n~No\n####Because.\n}\n"
    )

    parsed = parse_gift(source)

    assert parsed.errors == []
    assert (
        parsed.questions[0].prompt.en == "What is shown? ![A chart](https://cdn.example.org/a.png)"
    )


def test_a_bmp_that_django_accepts_as_an_image_is_refused_by_format(admin_client, question):
    response = save_question(
        admin_client, question, image=upload("photo.bmp", bmp(), "image/bmp"), image_alt_en="B."
    )

    assert "PNG, JPEG, WebP or GIF" in page_errors(response)
    assert stored_files() == []


def test_the_reencoding_refuses_a_decompression_bomb_itself(settings):
    from django.core.exceptions import ValidationError

    from quizzes.instructors.images import image_reencoded

    with pytest.raises(ValidationError) as refused:
        image_reencoded(upload("bomb.png", png_header(30000, 30000)))

    assert refused.value.code in {"image_unreadable", "image_too_wide"}


def test_deleting_a_question_row_on_the_quizs_page_removes_its_files(
    admin_client, question, django_capture_on_commit_callbacks
):
    from tests.admin_posts import question_rows, save_quiz

    names = images_on(question, admin_client, django_capture_on_commit_callbacks)
    quiz = question.quiz

    with django_capture_on_commit_callbacks(execute=True):
        response = save_quiz(admin_client, quiz, question_rows(quiz, delete={question.pk}))

    assert response.status_code == 302, page_errors(response)
    assert not Question.objects.filter(pk=question.pk).exists()
    assert not any(default_storage.exists(name) for name in names)


def test_replacing_a_choices_image_removes_the_old_file(
    admin_client, question, django_capture_on_commit_callbacks
):
    names = images_on(question, admin_client, django_capture_on_commit_callbacks)
    data = question_post(question, image_alt_en="Q.", explanation_image_alt_en="E.")
    data["choices-0-image"] = upload("new.png", png((9, 9)))
    data["choices-0-image_alt_en"] = "New."

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)

    assert response.status_code == 302, page_errors(response)
    choice = question.choices.get(position=1)
    assert choice.image.name != names[2]
    assert not default_storage.exists(names[2])
    assert default_storage.exists(choice.image.name)


def test_a_long_animation_of_large_frames_is_refused_before_it_is_decoded(monkeypatch):
    from django.core.exceptions import ValidationError

    from quizzes.instructors import images

    monkeypatch.setattr(images, "MAX_ANIMATION_PIXELS", 12 * 12)  # one frame of gif()

    with pytest.raises(ValidationError) as refused:
        images.image_reencoded(upload("long.gif", gif(), "image/gif"))

    assert refused.value.code == "image_too_long"
    assert refused.value.params == {"frames": 2, "width": 12, "height": 12}


def _without_a_correct_mark(question: Question) -> dict:
    """The question's page as a newcomer posts it having forgotten to tick "Correct"."""
    data = question_post(question)
    for key in [key for key in data if key.endswith("-is_correct")]:
        del data[key]
    return data


def test_an_image_chosen_on_a_page_refused_for_another_reason_is_asked_for_again(
    admin_client, question, django_capture_on_commit_callbacks
):
    data = _without_a_correct_mark(question) | {
        "image": upload("figure.png", png()),
        "image_alt_en": "A blue square.",
    }

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)

    assert response.status_code == 200
    errors = page_errors(response)
    assert "Mark one choice as correct." in errors
    assert "Choose this image again" in errors
    # Beside the image field: its error list comes before the file input.
    page = response.content.decode()
    assert page.index("Choose this image again") < page.index('name="image"')
    assert stored_files() == []
    question.refresh_from_db()
    assert not question.image


def test_an_alt_text_left_without_its_image_is_refused(admin_client, question):
    response = save_question(admin_client, question, image_alt_en="A blue square.")

    assert response.status_code == 200
    assert "This text describes an image, and there is none" in page_errors(response)
    question.refresh_from_db()
    assert not question.image_alt_en


def test_an_alt_text_of_a_choice_without_its_image_is_refused_on_its_row(admin_client, question):
    data = question_post(question) | {"choices-0-image_alt_ar": "مربع أزرق."}

    response = admin_client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)

    assert response.status_code == 200
    assert "This text describes an image, and there is none" in page_errors(response)


def test_the_quizs_page_edits_a_questions_images_and_asks_for_them_again_when_refused(
    admin_client, question, django_capture_on_commit_callbacks
):
    from tests.admin_posts import question_rows, save_quiz

    quiz = question.quiz
    rows = question_rows(quiz)
    rows[0] |= {"image": upload("figure.png", png()), "image_alt_en": "A blue square."}
    refused_rows = [dict(row) for row in rows]
    refused_rows[1]["prompt_en"] = ""  # a question without its prompt

    refused = save_quiz(admin_client, quiz, refused_rows)
    rows[0]["image"] = upload("figure.png", png())
    with django_capture_on_commit_callbacks(execute=True):
        saved = save_quiz(admin_client, quiz, rows)

    assert refused.status_code == 200
    assert "Choose this image again" in page_errors(refused)
    assert saved.status_code == 302, page_errors(saved)
    question.refresh_from_db()
    assert question.image.name.endswith(".png")
    assert question.image_alt_en == "A blue square."
    assert stored_files() == [question.image.name.split("/")[-1]]
