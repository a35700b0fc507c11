"""The site's mark is the favicon of learner pages and the admin; /favicon.ico finds it."""

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static

ICONS = ("favicon.svg", "favicon.png", "apple-touch-icon.png")


def test_favicon_ico_redirects_to_the_png_mark(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == static("favicon.png")


def test_the_icons_are_real_files_of_their_kind():
    with open(finders.find("favicon.svg"), encoding="utf-8") as svg:
        assert svg.read().startswith("<svg")
    for name in ("favicon.png", "apple-touch-icon.png"):
        with open(finders.find(name), "rb") as png:
            assert png.read(8) == b"\x89PNG\r\n\x1a\n", name


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_learner_pages_and_the_admin_name_every_icon(client, admin_user, lang):
    pages = [client.get(f"/{lang}/").content.decode()]
    # The admin's sign-in sends to the site's own, which names them too.
    pages.append(client.get(f"/{lang}/admin/login/", follow=True).content.decode())
    client.force_login(admin_user)
    pages.append(client.get(f"/{lang}/admin/").content.decode())
    pages.append(client.get(f"/{lang}/admin/quizzes/quiz/").content.decode())
    for html in pages:
        for name in ICONS:
            assert f'href="{static(name)}"' in html, name
