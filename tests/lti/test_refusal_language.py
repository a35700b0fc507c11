"""A refused launch speaks both languages (the learner's is not known yet), the request's first:
an Arabic browser reads the Arabic block at the top, not under the English one."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("language", "order"), [("ar", ["ar", "en"]), ("en", ["en", "ar"])])
def test_a_refused_launch_speaks_the_requests_language_first(language, order):
    client = Client()
    client.cookies["django_language"] = language
    page = client.post("/lti/launch/").content.decode()
    assert re.findall(r'<section lang="(\w\w)"', page) == order
    if language == "ar":
        assert "تعذّر على «دليل» تلبية طلب الفتح هذا" in page
