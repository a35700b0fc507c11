"""A name that looks like another account's is refused however the account is made (issue
32): sign-up, createsuperuser, the admin's user pages and the shell all store the name's
skeletons, and all refuse a look-alike, with confusables read before case is folded."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from accounts.models import Profile
from accounts.usernames import skeletons
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

User = get_user_model()
TAKEN = "A user with that username already exists."


def _sign_up(client, username):
    return client.post(
        "/en/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
    )


def _createsuperuser(username, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", "--noinput", username=username, email="", verbosity=0)


# Each pair: a name taken first, and one that looks like it.
LOOK_ALIKES = [
    ("alice", "aIice"),  # capital I for small l: folded first, it was "aiice"
    ("aIice", "alice"),
    ("root", "гооt"),  # Cyrillic о
    ("root", "r00t"),  # zeros
    ("ALICE", "аlice"),  # Cyrillic а, in another case
    ("аlice", "ALICE"),
    ("alice", "ALICE"),
]


@pytest.mark.parametrize(("taken", "look_alike"), LOOK_ALIKES)
def test_sign_up_refuses_a_look_alike_of_an_account_made_by_createsuperuser(
    client, monkeypatch, taken, look_alike
):
    _createsuperuser(taken, monkeypatch)

    response = _sign_up(client, look_alike)

    assert response.status_code == 400
    assert TAKEN in response.content.decode()
    assert User.objects.count() == 1


@pytest.mark.parametrize(("taken", "look_alike"), LOOK_ALIKES)
def test_createsuperuser_refuses_a_look_alike_of_a_signed_up_account(
    client, monkeypatch, taken, look_alike
):
    assert _sign_up(client, taken).status_code == 302

    with pytest.raises(CommandError, match=TAKEN):
        _createsuperuser(look_alike, monkeypatch)

    assert list(User.objects.values_list("username", flat=True)) == [taken]


def test_the_shell_refuses_a_look_alike_and_writes_nothing():
    User.objects.create_user("root")

    with pytest.raises(ValidationError, match=TAKEN):
        User.objects.create_user("гооt")

    assert list(User.objects.values_list("username", flat=True)) == ["root"]
    assert Profile.objects.count() == 1


def test_different_names_made_in_code_each_get_their_skeletons():
    for name in ("omar", "omer", "ali", "all"):
        User.objects.create_user(name)

    stored = dict(
        Profile.objects.values_list("user__username", "username_skeleton").order_by("user__pk")
    )
    assert stored == {name: skeletons(name)[0] for name in ("omar", "omer", "ali", "all")}


def test_the_admin_refuses_to_add_a_look_alike(admin_client):
    User.objects.create_user("alice")

    response = admin_client.post(
        "/en/admin/auth/user/add/",
        {
            "username": "aIice",
            "usable_password": "true",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )

    assert response.status_code == 200
    assert TAKEN in response.content.decode()
    assert not User.objects.filter(username="aIice").exists()


def _rename(admin_client, user, username):
    return admin_client.post(
        f"/en/admin/auth/user/{user.pk}/change/",
        {
            "username": username,
            "email": "",
            "is_active": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )


def test_the_admin_refuses_to_rename_an_account_to_a_look_alike(admin_client):
    User.objects.create_user("root")
    other = User.objects.create_user("learner")

    response = _rename(admin_client, other, "гооt")

    assert TAKEN in response.content.decode()
    assert User.objects.get(pk=other.pk).username == "learner"


def test_a_renamed_account_frees_its_old_name_and_holds_its_new_one(admin_client, client):
    user = User.objects.create_user("learner")

    assert _rename(admin_client, user, "amina").status_code == 302

    assert Profile.objects.get(user=user).username_skeleton == skeletons("amina")[0]
    assert _sign_up(client, "amına").status_code == 400
    assert _sign_up(client, "learner").status_code == 302


def test_an_account_saved_again_under_its_own_name_is_not_refused():
    user = User.objects.create_user("alice")
    user.first_name = "Alice"
    user.save()

    assert Profile.objects.get(user=user).username_skeleton == skeletons("alice")[0]


def test_the_migration_gives_every_account_its_skeletons_and_the_first_look_alike_keeps_them():
    # Accounts from before: no profiles (createsuperuser), or the old skeleton.
    first, second, third = User.objects.bulk_create(
        [User(username="alice"), User(username="aIice"), User(username="bob")]
    )
    Profile.objects.bulk_create([Profile(user=third, username_skeleton="old")])
    migration = import_module("accounts.migrations.0003_username_folded_skeleton")

    migration.recompute_skeletons(apps, None)

    stored = {
        profile.user_id: (profile.username_skeleton, profile.username_folded_skeleton)
        for profile in Profile.objects.all()
    }
    assert stored == {first.pk: skeletons("alice"), second.pk: ("", ""), third.pk: skeletons("bob")}
