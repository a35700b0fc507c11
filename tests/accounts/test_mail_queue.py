"""Mail leaves through the task queue: the request only queues it, the worker sends it."""

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from tests.factories import make_user


@pytest.fixture
def queued_in_the_database(settings):
    settings.TASKS = {"default": {"BACKEND": settings.TASKS_BACKENDS["database"]}}


@pytest.mark.django_db(transaction=True)
def test_a_reset_request_queues_its_mail_and_the_worker_sends_it(client, queued_in_the_database):
    make_user(email="learner@example.com")

    response = client.post(reverse("accounts:password_reset"), {"email": "learner@example.com"})

    assert response.status_code == 302
    assert mail.outbox == []
    assert DBTaskResult.objects.count() == 1

    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", verbosity=0)

    assert [message.to for message in mail.outbox] == [["learner@example.com"]]
    assert "/reset/" in mail.outbox[0].body
    # The request's task, then the mail it wrote.
    assert [(t.task_path, t.status) for t in DBTaskResult.objects.order_by("enqueued_at")] == [
        ("accounts.reset.reset_requested", "SUCCESSFUL"),
        ("accounts.mail.deliver_template", "SUCCESSFUL"),
    ]


@pytest.mark.django_db(transaction=True)
def test_a_reset_for_an_unknown_address_queues_one_mail_as_a_known_one_does(
    client, queued_in_the_database
):
    client.post(reverse("accounts:password_reset"), {"email": "nobody@example.com"})

    assert DBTaskResult.objects.count() == 1
