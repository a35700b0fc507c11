"""Our templates that stand in for a library's (django-allauth's pages and mails, Django's admin,
and our copies of the admin's stacked inline and fieldset for a quiz's questions) are written
against the library's template as it is now: its blocks, its context, its wording. Each is
pinned here to the library's file by its SHA-256, so that an upgrade that changes the library's
template fails this test, and whoever upgrades reads the new template and brings ours in line
(then records its new hash). A template of ours that shadows a library's without being listed
fails too.
"""

from __future__ import annotations

import hashlib
from importlib import import_module
from pathlib import Path

from django.conf import settings

TEMPLATES = Path(settings.BASE_DIR) / "templates"

# Our template's path: (the library's package, the SHA-256 of the library's template it replaces).
PINNED = {
    "account/email/account_already_exists_message.txt": (
        "allauth",
        "2b212f99aab23f52d7965fb34ccdf1c995a3ae02d84b48a382ae9368f42c3245",
    ),
    "account/email/account_already_exists_subject.txt": (
        "allauth",
        "3ff77e95eb0d552db868cafb81007f0ab3ce1c149d5a256f1ed595dc42ef6bf0",
    ),
    "account/email/base_message.txt": (
        "allauth",
        "cc6ef23389ed5d5218ad152939ed4bf7d84ab2597bc91057fb27476c2277a21c",
    ),
    "account/email/base_notification.txt": (
        "allauth",
        "9c3459b155ce5334e14378129f313291aafec635fd84fc255ccbbec691f5ee46",
    ),
    "account/email/email_changed_message.txt": (
        "allauth",
        "bbb040d1674d3d6aafcd9c095fcf0d401c823d58cb0327ba52c7dd01777b6d72",
    ),
    "account/email/email_changed_subject.txt": (
        "allauth",
        "0c519584506928689738f7127f2a0c3689d74e6104d5664ed6217e1d1e770a16",
    ),
    "account/email/email_confirm_message.txt": (
        "allauth",
        "e0faed4bb55f72842e38731c29de01c2658885fd098654cc01709b6b0151051f",
    ),
    "account/email/email_confirm_subject.txt": (
        "allauth",
        "3514ad37c80d5ac10b783e3bbcbb785807e2f9a83d0457dbf0bcfcac028b0951",
    ),
    "account/email/email_confirmation_message.txt": (
        "allauth",
        "0472d46010e342f87275fd380415257b7c54e9818e3852818ec63ae163fbfdd5",
    ),
    "account/email/email_confirmation_signup_message.txt": (
        "allauth",
        "fdd633740481341a311b9abf890a5325d973d39ac4d625f9fd439fb9dcc87565",
    ),
    "account/email/email_confirmation_signup_subject.txt": (
        "allauth",
        "133c916a972c88ad299843fb7c061745705da91fe5da77b61b2b4f947b3601fb",
    ),
    "account/email/email_confirmation_subject.txt": (
        "allauth",
        "2d7c231a8ea4b886e555dee8aea50230d999597cf024c24624b27f3b20b8b05b",
    ),
    "account/email/email_deleted_message.txt": (
        "allauth",
        "1bb0084d24ded44695573d3fede1aeed1cda11e439609ba6dab5dbb875e357fe",
    ),
    "account/email/email_deleted_subject.txt": (
        "allauth",
        "d0ba1313a687644abd0983c0304b69a87464f2e23ae278fc0b0bc5c2cb348ef5",
    ),
    "account/email/password_changed_message.txt": (
        "allauth",
        "70934708dd73a169e88a245abc309a80964f743bf108211f78f3724002bd2a40",
    ),
    "account/email/password_changed_subject.txt": (
        "allauth",
        "245d2dfedc67a65ed2a7407dcef9a73b1d23f36a7267990f58d637021e593f3e",
    ),
    "account/email/password_reset_key_message.txt": (
        "allauth",
        "84e3a017d02f7fea3d8278acfb73f51c2239804f015ace8e8e89aaea6a98bfe4",
    ),
    "account/email/password_reset_key_subject.txt": (
        "allauth",
        "209fbf32f5b898c61077410f89f4a4957de51a8baef26dfa0f8d9bc77f4d496c",
    ),
    "account/email/password_reset_message.txt": (
        "allauth",
        "c59de0f7fb80fca4950df35f71e42d965f9f278a11c7959ef9962d1201d8b186",
    ),
    "account/email/password_reset_subject.txt": (
        "allauth",
        "18d17817d99db231a7d3bc445f784986e90745a6c8d1a58547afdc7109beaa53",
    ),
    "account/email/password_set_message.txt": (
        "allauth",
        "0c3bfb88d2bf263bf6f34cddb67e5274601e89fafe0420d1c552272d524067bb",
    ),
    "account/email/password_set_subject.txt": (
        "allauth",
        "5dcc2b93743cc0e5f8ba37a3e00685cfbb824d114064cbbb3032d4680e5df9bd",
    ),
    "account/email/unknown_account_message.txt": (
        "allauth",
        "e59c9bf299b2b81fb53fc4a52d661e20abf68d0c82c677eef4b2324377f0d5a2",
    ),
    "account/email/unknown_account_subject.txt": (
        "allauth",
        "ccea8487c5364ddf1b673f89b2582014bdd33bc76255a5db575dc40e95a7027f",
    ),
    "account/email_change.html": (
        "allauth",
        "da346e22f260a150825aedc9a4078eea2913e0ba2d778f198086cd489d253b0a",
    ),
    "account/email_confirm.html": (
        "allauth",
        "1492773a7f581d12eecfe70f97883f9b6400b98498a84438e008147ae4cf6214",
    ),
    "account/email.html": (
        "allauth",
        "b828763e520b3a1241e815b6608bb8a2438758a699cdc66ee9619713597f9157",
    ),
    "account/login.html": (
        "allauth",
        "bc38debd2f3c65608dc72f102170055a9c5fadbe0db7400d35eda03fd796c339",
    ),
    "account/logout.html": (
        "allauth",
        "78eca3d4ad6ba874723233ee0b214baeb86a035c8f03d5a34f95ca0e41c0203c",
    ),
    "account/messages/logged_in.txt": (
        "allauth",
        "73abcf600bc3ccf15a34160e535f2a905e9f29be45650a5ae5cfe14a37c51181",
    ),
    "account/messages/logged_out.txt": (
        "allauth",
        "2a17c7044d793e9d5ac5a75a89413b0b7e014df565007491b3b713af2e12f85d",
    ),
    "account/password_change.html": (
        "allauth",
        "af226f532fb9cbf8be98fcb76eb16980a21670e2f20bef27cdd93788b027df39",
    ),
    "account/password_reset.html": (
        "allauth",
        "3bd4a82fc776309cb237d3789143803b50c2978a7f3f97802ed895d9740acf33",
    ),
    "account/password_reset_done.html": (
        "allauth",
        "845d4c92f669d9201df0b23a0bbe4e25ebd99b3a633909d09ae35f992daab7e6",
    ),
    "account/password_reset_from_key.html": (
        "allauth",
        "a440b3cb49b8f55641d26cf3146a028f21a9e67ed00d1b61676d3a14ce5ba039",
    ),
    "account/password_reset_from_key_done.html": (
        "allauth",
        "84a7e4eeba8bf3ecfc5fae59f8658e7ba6edd9f521383e4d87afe42b55697707",
    ),
    "account/signup.html": (
        "allauth",
        "aed5bfcdc7b6436ae09478c1066ef05d7bc5e14eea8368675451351f66fe7e67",
    ),
    "admin/base_site.html": (
        "django.contrib.admin",
        "182897817c02fd96758284ca9eb6dd35f58e3688c6c536ad883e610ac03c1d38",
    ),
    "admin/pagination.html": (
        "django.contrib.admin",
        "a50313922facefca1a529ea20e1ddd24b70a923ac4cf4faef5bc75826d81bd69",
    ),
    "allauth/elements/button.html": (
        "allauth",
        "4261ec646c26be91f4ec20130c5e9bf2889a39e760dfca6287dfee12606e9cd4",
    ),
    "allauth/elements/field.html": (
        "allauth",
        "e3a64f1e4ca35d95cb69d7b28adac00fffbdb82684c88b68748e2455515af1a0",
    ),
    "allauth/elements/fields.html": (
        "allauth",
        "08181a5248d6f5d32c10a19d3c12b95228491ffb30fa5f1a24c3ccac7eded6c5",
    ),
    "allauth/elements/form.html": (
        "allauth",
        "a1401cefffdd6d5548b12fa67f66dcbb8c708dc87e22b0389e09796394032d40",
    ),
    "allauth/layouts/base.html": (
        "allauth",
        "f7fc39128d98000f1d09955e681b752ad76ba7fab05e80174ce01411ed1802be",
    ),
    "mfa/authenticate.html": (
        "allauth",
        "37e688fdef8f745254fbc6afcacebe74a288c7591743f45880bd368b886dd73e",
    ),
    "mfa/email/recovery_codes_generated_message.txt": (
        "allauth",
        "9c2f5d0bd9bcd73b25f0b1e3dc96ba051db67152e397428dd3a9db57ed3e23e1",
    ),
    "mfa/email/recovery_codes_generated_subject.txt": (
        "allauth",
        "0cafc461786dd57c2f7a858b78e2e34f3bef6071d345edbb0918592305f424c5",
    ),
    "mfa/email/totp_activated_message.txt": (
        "allauth",
        "0aaf0226f23a7f1dff03ea561e2b9334ae5dcdacf584f425a60932c17d8950e5",
    ),
    "mfa/email/totp_activated_subject.txt": (
        "allauth",
        "7e6f3b9356d8400a214fcc90cd316061136aba62363e5272fabb3cb67703410f",
    ),
    "mfa/email/totp_deactivated_message.txt": (
        "allauth",
        "9a1a19b69f29619dff0ccf378be8e1cc1672dc3e60e26373851620d0bcc712b9",
    ),
    "mfa/email/totp_deactivated_subject.txt": (
        "allauth",
        "66e3d66f0e76b9b9b92f0b8fd2089df7646bdfbb142d7f1d00513ccb4681a5d6",
    ),
    "mfa/email/webauthn_added_message.txt": (
        "allauth",
        "79a7672220a0c080757cd4566c9ba8cba823195bd0376d8cc09271bc37784fd7",
    ),
    "mfa/email/webauthn_added_subject.txt": (
        "allauth",
        "7a35e112ca5d08291411ba047a17c03fd76b5924dda4a2a191720514c3b2eb13",
    ),
    "mfa/email/webauthn_removed_message.txt": (
        "allauth",
        "bd2389d9f83f387648008d9e60243dde618ce478db5c18c118e3a3bde6e6494c",
    ),
    "mfa/email/webauthn_removed_subject.txt": (
        "allauth",
        "c9bf1838102d57b1a5628df705030df26589f4cbac13f0466c445704648725be",
    ),
    "mfa/index.html": (
        "allauth",
        "ae4ccf604a9a47463c51900bd11cec5e01a663da50929be0028aaf09b8c1f86c",
    ),
    "mfa/recovery_codes/index.html": (
        "allauth",
        "33303ef4ae6a58a2a18c6fde81dc8819a19cbd29f51f88e0a8d8100094428a04",
    ),
    "mfa/totp/activate_form.html": (
        "allauth",
        "c7268f27735c65136561468cd40614ca146b194b6f20fcf4d2f0794d1a04af40",
    ),
    "mfa/webauthn/add_form.html": (
        "allauth",
        "7e774d06b5f69e3d4310c919175517f6339b7052ea7c4df367e8332628556910",
    ),
    "mfa/webauthn/reauthenticate.html": (
        "allauth",
        "b2c9d327d8f24be435242235811bc005722f5c6aa91f87cd397aec48b581a30f",
    ),
    "mfa/webauthn/signup_form.html": (
        "allauth",
        "d622f26b9587a824817cec6f1446f22ac888b489b31cace0087e894344159e51",
    ),
    "mfa/webauthn/snippets/login_script.html": (
        "allauth",
        "1451b11a9b80c6c564dfba8e38a8f646a301bf40d808af0a9ef3a8a8ba790efa",
    ),
    "mfa/webauthn/snippets/scripts.html": (
        "allauth",
        "4b202a2efbc5fa8f0bd9bf48874e20713b2a4ebced721ae6a1a87951d73a76a7",
    ),
}

# Our copies of a library's template under another name: (the library's package, its
# template's path, the SHA-256 of that template when ours was written).
COPIED = {
    "admin/quizzes/quiz/questions.html": (
        "django.contrib.admin",
        "admin/edit_inline/stacked.html",
        "ab80d40a24dfae5572a4c57a4ebbe4378ce5d500dee7b97e553bd870eeb29754",
    ),
    "admin/quizzes/row_fields.html": (
        "django.contrib.admin",
        "admin/includes/fieldset.html",
        "cdcfa96ca6b4672d417f204f48aee1a176bfcf35891f187b7599246162a6f594",
    ),
}

LIBRARIES = ("allauth", "django.contrib.admin")

# Django's Jinja2 widget templates that ours (quizzes/jinja2/django/forms/widgets/, used by the
# quiz page's rows: quizzes/instructors/rendering.py) write as one, each include written in:
# ours → the SHA-256 of each of Django's it merges.
WIDGETS = Path(settings.BASE_DIR) / "quizzes" / "jinja2" / "django" / "forms" / "widgets"
_INPUT = {
    "input.html": "bb5d9f65d7beba090400090f02d01f4b1c0642660191792cb16a21394b3ec681",
    "attrs.html": "fc9d8ff803a91c5848c1aa8235cac9171118e2cf8a3ddcb459cab42a56ab206d",
}
_INCLUDES_INPUT = "7d7a5bc4ccc075bbff6af7d60b9e3ae200f68c59e0f77d44abbbf36f3cb5fb20"
MERGED_WIDGETS = {
    **{
        name: {name: _INCLUDES_INPUT, **_INPUT}
        for name in ("text.html", "number.html", "hidden.html", "checkbox.html", "file.html")
    },
    "textarea.html": {
        "textarea.html": "02fd58fa1a57514d808eb867522be064528d04b7700926527ae4a60aa9829030",
        "attrs.html": _INPUT["attrs.html"],
    },
    "select.html": {
        "select.html": "112c83cdb2d3b4cefe386df812e4949efc42b723f922b42c661d23185ac87440",
        "select_option.html": "b4d6b50f71bc8b2d9971678ac88fa68a38c38d198c6aa4a8fa39c047f552dd07",
        "attrs.html": _INPUT["attrs.html"],
    },
    "clearable_file_input.html": {
        "clearable_file_input.html": (
            "d5dbf8c6d8a4eae9bf9b32b5b2451117f9f81b5b75ca5bb3890bb65166ba7d7f"
        ),
        "attrs.html": _INPUT["attrs.html"],
    },
}


def _library_templates(package: str) -> Path:
    module = import_module(package)
    assert module.__file__ is not None
    return Path(module.__file__).parent / "templates"


def test_every_library_template_we_replace_is_as_it_was_when_ours_was_written():
    changed = {}
    for path, (package, digest) in PINNED.items():
        theirs = _library_templates(package) / path
        assert theirs.exists(), f"{package} no longer has {path}: is ours still needed?"
        if hashlib.sha256(theirs.read_bytes()).hexdigest() != digest:
            changed[path] = package
    assert changed == {}, "the library's template changed under ours: read it, update ours"


def test_every_library_template_we_copied_under_another_name_is_as_it_was():
    changed = {}
    for ours, (package, path, digest) in COPIED.items():
        assert (TEMPLATES / ours).exists(), ours
        theirs = _library_templates(package) / path
        assert theirs.exists(), f"{package} no longer has {path}: is {ours} still needed?"
        if hashlib.sha256(theirs.read_bytes()).hexdigest() != digest:
            changed[ours] = f"{package}:{path}"
    assert changed == {}, "the library's template changed under our copy: read it, update ours"


def test_every_widget_template_we_merged_is_made_of_djangos_as_they_are():
    import django.forms

    theirs = Path(django.forms.__file__).parent / "jinja2" / "django" / "forms" / "widgets"
    assert {path.name for path in WIDGETS.glob("*.html")} == set(MERGED_WIDGETS)
    changed = {}
    for ours, merged in MERGED_WIDGETS.items():
        for name, digest in merged.items():
            if hashlib.sha256((theirs / name).read_bytes()).hexdigest() != digest:
                changed[ours] = name
    assert changed == {}, "Django's widget template changed under our merged one: update ours"


def test_every_template_of_ours_that_shadows_a_librarys_is_pinned():
    shadowing = set()
    for ours in TEMPLATES.rglob("*"):
        relative = ours.relative_to(TEMPLATES).as_posix()
        if ours.is_file() and any(
            (_library_templates(package) / relative).exists() for package in LIBRARIES
        ):
            shadowing.add(relative)
    assert shadowing == set(PINNED)
