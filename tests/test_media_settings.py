"""Where uploaded images are kept and served from, as the environment says
(config/settings.py: MEDIA_ROOT, MEDIA_URL, MEDIA_STORAGE and the AWS_* variables)."""

import json

import pytest

from tests.test_settings import _run_manage

SHOW = (
    "import json; from django.conf import settings; "
    "from django.core.files.storage import default_storage; "
    "print(json.dumps({'backend': settings.STORAGES['default']['BACKEND'], "
    "'img': settings.SECURE_CSP['img-src'], 'url': default_storage.url('quizzes/a.png')}))"
)
S3 = {"MEDIA_STORAGE": "s3", "AWS_STORAGE_BUCKET_NAME": "daleel-media"}


def _settings(**env: str) -> dict:
    result = _run_manage("shell", "--no-imports", "-c", SHOW, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_by_default_images_are_files_in_the_media_folder_served_from_the_site_itself():
    shown = _settings()

    assert shown["backend"] == "django.core.files.storage.FileSystemStorage"
    assert shown["url"] == "/media/quizzes/a.png"
    assert shown["img"] == ["'self'", "data:"]


def test_an_s3_store_behind_a_custom_domain_is_the_only_other_origin_images_may_come_from():
    shown = _settings(**S3, AWS_S3_CUSTOM_DOMAIN="media.example.org", AWS_ACCESS_KEY_ID="k")

    assert shown["backend"] == "storages.backends.s3.S3Storage"
    assert shown["url"].startswith("https://media.example.org/quizzes/a.png")
    assert shown["img"] == ["'self'", "data:", "https://media.example.org"]


def test_an_s3_compatible_store_at_its_own_address_is_allowed_by_the_csp():
    shown_csp = _run_manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(settings.SECURE_CSP['img-src'])",
        **S3,
        AWS_S3_ENDPOINT_URL="https://objects.example.net:9000",
    )

    assert shown_csp.returncode == 0, shown_csp.stderr
    assert "https://objects.example.net:9000" in shown_csp.stdout


def test_the_site_refuses_to_start_with_an_s3_store_and_no_bucket():
    result = _run_manage("check", MEDIA_STORAGE="s3")

    assert result.returncode != 0
    assert "MEDIA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME" in result.stderr


def test_the_site_refuses_an_unknown_media_storage():
    result = _run_manage("check", MEDIA_STORAGE="ftp")

    assert result.returncode != 0
    assert "MEDIA_STORAGE is 'filesystem'" in result.stderr


@pytest.mark.django_db
def test_the_media_folder_is_served_by_django_only_while_serve_media_is_on(client, settings):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    name = default_storage.save("quizzes/a.png", ContentFile(b"\x89PNG not really"))

    settings.SERVE_MEDIA = False
    assert client.get(f"/media/{name}").status_code == 404
    settings.SERVE_MEDIA = True
    served = client.get(f"/media/{name}")
    assert served.status_code == 200
    assert b"".join(served.streaming_content) == b"\x89PNG not really"
    client.raise_request_exception = False
    # Outside the folder: refused as a suspicious request, never read.
    assert client.get("/media/../config/settings.py").status_code == 400


def test_serve_media_follows_debug_unless_set():
    show = "from django.conf import settings; print(settings.SERVE_MEDIA)"
    secret = "x" * 50
    debug = _run_manage("shell", "--no-imports", "-c", show, DEBUG="true")
    production = _run_manage("shell", "--no-imports", "-c", show, DEBUG="false", SECRET_KEY=secret)
    small = _run_manage(
        "shell", "--no-imports", "-c", show, DEBUG="false", SECRET_KEY=secret, SERVE_MEDIA="1"
    )

    assert debug.stdout.strip() == "True"
    assert production.stdout.strip() == "False"
    assert small.stdout.strip() == "True"


def test_a_private_buckets_image_links_are_signed_for_six_hours_by_default():
    shown = _settings(
        **S3,
        AWS_S3_REGION_NAME="eu-west-1",
        AWS_ACCESS_KEY_ID="AKIAEXAMPLE",
        AWS_SECRET_ACCESS_KEY="not-a-real-secret",
    )

    assert shown["url"].startswith("https://daleel-media.s3.")
    # Signature Version 4 (AWS refuses version 2 for buckets made since 2020): the link says
    # how many seconds it works from its signing.
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in shown["url"]
    expires = int(shown["url"].rsplit("X-Amz-Expires=", 1)[1].split("&")[0])
    assert expires == 6 * 60 * 60
    assert "https://daleel-media.s3.eu-west-1.amazonaws.com" in shown["img"]
    origin = shown["url"].split("/quizzes/")[0]
    assert origin in shown["img"]
