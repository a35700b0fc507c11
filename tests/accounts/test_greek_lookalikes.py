"""Greek and Cyrillic letters that confusables.txt leaves apart from the Latin ones they read
as in a username (ε, τ, κ, η, χ, ω; є, т, к) are look-alikes too: `tεach` beside `teach`."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model

from accounts.models import Profile
from accounts.usernames import skeletons
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("teach", "tεach"),  # Greek epsilon
        ("teach", "τeach"),  # Greek tau
        ("kate", "κate"),  # Greek kappa
        ("nour", "ηour"),  # Greek eta
        ("maxwell", "maχωell"),  # Greek chi and omega
        ("teach", "tєach"),  # Cyrillic ukrainian ie
        ("kate", "кate"),  # Cyrillic ka
    ],
)
def test_sign_up_refuses_a_greek_or_cyrillic_look_alike(client, taken, look_alike):
    make_user(taken)

    response = client.post(
        "/en/accounts/signup/",
        {"username": look_alike, "password1": PASSWORD, "password2": PASSWORD},
    )

    assert response.status_code == 400
    assert "A user with that username already exists." in response.content.decode()
    assert not User.objects.filter(username=look_alike).exists()


def test_names_that_merely_share_letters_stay_apart():
    assert skeletons("teach") != skeletons("beach")
    assert skeletons("eta") != skeletons("ena")


def test_the_migration_gives_accounts_from_before_the_new_skeletons_and_the_first_keeps_them():
    first, second = User.objects.bulk_create([User(username="teach"), User(username="tεach")])
    Profile.objects.bulk_create(
        [
            Profile(user=first, username_skeleton="teach", username_folded_skeleton="teach"),
            Profile(user=second, username_skeleton="tꞓach", username_folded_skeleton="tꞓach"),
        ]
    )
    migration = import_module("accounts.migrations.0006_greek_lookalike_skeletons")

    migration.recompute_skeletons(apps, None)

    stored = {
        profile.user_id: (profile.username_skeleton, profile.username_folded_skeleton)
        for profile in Profile.objects.all()
    }
    assert stored == {first.pk: skeletons("teach"), second.pk: ("", "")}
