"""Deep linking: an instructor picks quizzes; the platform gets a signed response it verifies."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from lti.models import LtiIdentity
from tests.factories import make_quiz

from .conftest import launch
from .platform import DL, INSTRUCTOR, LEARNER

pytestmark = pytest.mark.django_db

DEEP_LINKING = "http://testserver/lti/deep-linking/"


def instructor_launch(registered, **claims) -> Client:
    client = Client(enforce_csrf_checks=True)
    response, _token, auth = launch(
        client,
        registered,
        target_link_uri=DEEP_LINKING,
        message_type="LtiDeepLinkingRequest",
        roles=[INSTRUCTOR],
        **claims,
    )
    assert auth["redirect_uri"] == DEEP_LINKING
    assert response.status_code == 302, response.content
    assert response["Location"] == "/lti/deep-linking/"
    return client


def csrf_of(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def test_an_instructor_picks_quizzes_and_the_platform_gets_a_signed_resource_link_each(
    registered,
):
    first = make_quiz(questions=3, title_en="Sharding basics", title_ar="أساسيات التجزئة")
    second = make_quiz(questions=5, title_en="Recomputation", title_ar="إعادة الحساب")
    make_quiz(title_en="Hidden draft", is_published=False)
    client = instructor_launch(registered)

    picker = client.get("/lti/deep-linking/")
    html = picker.content.decode()
    assert picker.status_code == 200
    assert "Sharding basics" in html and "Recomputation" in html
    assert "Hidden draft" not in html
    assert registered.issuer in picker["Content-Security-Policy"]

    response = client.post(
        "/lti/deep-linking/",
        {"quizzes": [first.slug, second.slug], "csrfmiddlewaretoken": csrf_of(html)},
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert f'action="{registered.base}/deep-link-return"' in html
    assert "js/lti-autosubmit" in html and "<script>" not in html
    assert "Continue to your course" in html  # the button without JavaScript
    assert registered.base in response["Content-Security-Policy"].split("form-action")[1]
    jwt_value = re.search(r'name="JWT" value="([^"]+)"', html).group(1)
    registered.tool_jwks = client.get("/lti/jwks/").json()
    claims = registered.verify_tool_jwt(jwt_value)
    assert claims["iss"] == registered.client_id
    assert claims["https://purl.imsglobal.org/spec/lti/claim/message_type"] == (
        "LtiDeepLinkingResponse"
    )
    assert claims[DL + "data"] == "platform-data-1"
    items = claims[DL + "content_items"]
    assert [item["type"] for item in items] == ["ltiResourceLink", "ltiResourceLink"]
    by_title = {item["title"]: item for item in items}
    assert by_title["Sharding basics"]["url"] == f"http://testserver/en/quizzes/{first.slug}/"
    assert by_title["Sharding basics"]["lineItem"]["scoreMaximum"] == 3
    assert by_title["Recomputation"]["lineItem"]["scoreMaximum"] == 5
    assert by_title["Recomputation"]["custom"] == {"quiz": second.slug}
    assert not LtiIdentity.objects.exists()  # deep linking makes no account


@pytest.mark.parametrize(("query", "found"), [("sharding", True), ("التجزئة", True), ("x", False)])
def test_the_picker_searches_both_languages(registered, query, found):
    make_quiz(title_en="Sharding basics", title_ar="أساسيات التجزئة")
    client = instructor_launch(registered)

    html = client.get("/lti/deep-linking/", {"q": query}).content.decode()

    assert ("Sharding basics" in html) == found


def test_a_pick_of_nothing_asks_again(registered):
    make_quiz()
    client = instructor_launch(registered)
    html = client.get("/lti/deep-linking/").content.decode()

    response = client.post("/lti/deep-linking/", {"csrfmiddlewaretoken": csrf_of(html)})

    assert response.status_code == 400
    assert "Choose at least one quiz." in response.content.decode()


def test_a_learner_cannot_deep_link(registered):
    response, _token, _auth = launch(
        Client(),
        registered,
        target_link_uri=DEEP_LINKING,
        message_type="LtiDeepLinkingRequest",
        roles=[LEARNER],
    )

    assert response.status_code == 403


def test_the_picker_without_a_deep_linking_launch_says_so(db):
    response = Client().get("/lti/deep-linking/")

    assert response.status_code == 400


def test_the_picker_speaks_the_language_of_the_instructors_lms(registered):
    make_quiz(title_en="Sharding basics", title_ar="أساسيات التجزئة")
    client = instructor_launch(registered, locale="ar")

    html = client.get("/lti/deep-linking/").content.decode()

    assert 'lang="ar" dir="rtl"' in html
    assert "أساسيات التجزئة" in html and "إضافة إلى المقرّر" in html


def test_a_platform_that_takes_one_item_gets_one_quiz(registered):
    first = make_quiz(title_en="Sharding basics")
    second = make_quiz(title_en="Recomputation")
    client = instructor_launch(
        registered,
        **{
            DL + "deep_linking_settings": {
                "deep_link_return_url": registered.base + "/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe"],
                "accept_multiple": False,
            }
        },
    )
    html = client.get("/lti/deep-linking/").content.decode()
    assert 'type="radio" name="quizzes"' in html and 'type="checkbox"' not in html

    both = client.post(
        "/lti/deep-linking/",
        {"quizzes": [first.slug, second.slug], "csrfmiddlewaretoken": csrf_of(html)},
    )
    assert both.status_code == 400
    assert "one quiz at a time" in both.content.decode()

    one = client.post(
        "/lti/deep-linking/", {"quizzes": [second.slug], "csrfmiddlewaretoken": csrf_of(html)}
    )
    registered.tool_jwks = client.get("/lti/jwks/").json()
    jwt_value = re.search(r'name="JWT" value="([^"]+)"', one.content.decode()).group(1)
    items = registered.verify_tool_jwt(jwt_value)[DL + "content_items"]
    assert [item["title"] for item in items] == ["Recomputation"]
