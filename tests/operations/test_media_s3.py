"""MEDIA_STORAGE=s3, the images of several app servers in one object store: an instructor's
upload lands in the bucket and a learner's page links it, signed, from the store itself. The
store is moto's S3 server on loopback (S3's API over HTTP; MinIO's binary is not on PyPI or
Debian), with the settings config/settings.py makes from the environment."""

from __future__ import annotations

import io
import json
import subprocess

import boto3
import pytest
import requests
from django.urls import reverse
from PIL import Image

from bench.services import _wait_for_port, free_port
from quizzes.models import Attempt
from tests.factories import make_quiz
from tests.instructors.test_images import png, save_question, upload
from tests.operations.deploy_files import ROOT
from tests.test_settings import _run_manage

pytestmark = [pytest.mark.servers, pytest.mark.django_db]

BUCKET = "daleel-media"
KEYS = {"AWS_ACCESS_KEY_ID": "daleel-test", "AWS_SECRET_ACCESS_KEY": "daleel-test-secret"}


@pytest.fixture
def store(settings, monkeypatch):
    port = free_port()
    server = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, 30, server)
        endpoint = f"http://127.0.0.1:{port}"
        environment = {
            "MEDIA_STORAGE": "s3",
            "AWS_STORAGE_BUCKET_NAME": BUCKET,
            "AWS_S3_ENDPOINT_URL": endpoint,
            "AWS_S3_REGION_NAME": "us-east-1",
        }
        shown = _run_manage(
            "shell",
            "--no-imports",
            "-c",
            "import json; from django.conf import settings; "
            "print(json.dumps(settings.STORAGES['default']))",
            **environment,
        )
        assert shown.returncode == 0, shown.stderr
        for name, value in KEYS.items():
            monkeypatch.setenv(name, value)
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            **{
                "aws_access_key_id": KEYS["AWS_ACCESS_KEY_ID"],
                "aws_secret_access_key": KEYS["AWS_SECRET_ACCESS_KEY"],
            },
        )
        client.create_bucket(Bucket=BUCKET)
        settings.STORAGES = {**settings.STORAGES, "default": json.loads(shown.stdout)}
        yield client
    finally:
        server.terminate()
        server.wait(10)


def test_an_uploaded_image_goes_to_the_bucket_and_a_learner_gets_it_by_a_signed_link(
    store, admin_client, learner_client
):
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()

    saved = save_question(
        admin_client,
        question,
        image=upload("photo.png", png((64, 48))),
        image_alt_en="A blue rectangle",
    )

    assert saved.status_code == 302
    question.refresh_from_db()
    stored = [item["Key"] for item in store.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert stored == [question.image.name]
    learner_client.post(reverse("quizzes:start", args=[quiz.slug]))
    attempt = Attempt.objects.get()
    page = learner_client.get(reverse("quizzes:question", args=[attempt.pk, 1])).content.decode()
    link = next(
        part.split('"')[0].replace("&amp;", "&")
        for part in page.split('src="')[1:]
        if question.image.name in part.split('"')[0]
    )
    assert link.startswith(store.meta.endpoint_url + f"/{BUCKET}/quizzes/")
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in link and "X-Amz-Signature=" in link
    browser = requests.Session()
    browser.trust_env = False
    served = browser.get(link, timeout=10)
    assert served.status_code == 200
    assert Image.open(io.BytesIO(served.content)).size == (64, 48)
