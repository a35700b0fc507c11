import io
import re

import pytest

from accounts.models import Profile
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "ar"])
def test_make_runs_console_prints_the_reset_mail_with_its_link_whole(client, settings, language):
    """With DEBUG on, the reset mail is read off the run command's output: no "=" breaks in
    the link, no base64 for Arabic."""
    output = io.StringIO()
    settings.MAILERS = {
        "default": {
            "BACKEND": "accounts.mail.ReadableConsoleBackend",
            "OPTIONS": {"stream": output},
        }
    }
    user = make_user("huda", email="huda@example.org")
    Profile.for_user(user)
    Profile.objects.filter(user=user).update(language=language)
    client.post("/en/accounts/password/reset/", {"email": "huda@example.org"})

    printed = output.getvalue()
    links = re.findall(rf"http://testserver/{language}/accounts/password/reset/key/\S+/", printed)
    assert len(links) == 1
    path = links[0].removeprefix("http://testserver")
    assert 'name="password1"' in client.get(path, follow=True).content.decode()
    assert ("Someone, probably you" if language == "en" else "طلب أحدهم") in printed
