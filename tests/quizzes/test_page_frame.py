"""The page frame (templates/base.html): its links and static paths are computed once per
language (quizzes.context_processors.frame) and are each language's own."""

import pytest

from quizzes.context_processors import _frame

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "ar"])
def test_the_navigation_links_to_the_pages_of_the_pages_language(learner_client, language):
    page = learner_client.get(f"/{language}/").content.decode()

    for path in ("", "guides/", "attempts/", "review/", "accounts/profile/"):
        assert f'href="/{language}/{path}"' in page
    assert f'action="/{language}/accounts/logout/"' in page


def test_the_language_switch_offers_the_other_language_by_its_own_name(client):
    english = client.get("/en/").content.decode()
    arabic = client.get("/ar/").content.decode()

    assert (
        '<span lang="ar">العربيّة</span>' in english
        and 'title="Read this page in Arabic"' in english
    )
    assert '<span lang="en">English</span>' in arabic and "عرض هذه الصفحة باللغة" in arabic
    assert 'href="/en/accounts/login/?next=/en/"' in english


def test_the_frame_is_computed_once_per_language(client):
    _frame.cache_clear()
    for _ in range(3):
        client.get("/en/")
        client.get("/ar/")
    info = _frame.cache_info()
    assert info.misses == 2 and info.hits >= 4
