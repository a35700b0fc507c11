"""Hostile files are refused with a clear reason, quickly, and nothing is written: XML external
entities and entity expansion, zip bombs, paths that climb out of a package, links, too many
or too large members, files past the size cap."""

from __future__ import annotations

import io
import stat
import tracemalloc
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from quizzes.instructors.exchange import safety
from quizzes.instructors.exchange.content import ExchangeError
from quizzes.instructors.imports import file_dry_run, quiz_import_file
from quizzes.models import Question, Quiz

from .test_qti import QTI, zipped

pytestmark = pytest.mark.django_db

SECRET = "top-secret-line-of-a-server-file"


# What refusing a file may allocate at most (the worst here takes about 2 MB): the 30 MB bomb
# unpacked to its 20 MB cap, or an entity expanded, would take far more. "Quickly" is proved
# by what is never unpacked, not by the clock, which a busy machine slows.
REFUSAL_PEAK_BYTES = 8 * 1024 * 1024


def refused(data: bytes) -> str:
    tracemalloc.start()
    try:
        with pytest.raises(ExchangeError) as refusal:
            quiz_import_file(data=data, filename="hostile")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < REFUSAL_PEAK_BYTES, "a hostile file must not be expanded to be refused"
    assert Quiz.objects.count() == 0 and Question.objects.count() == 0
    return str(refusal.value)


def package(members: dict[str, bytes], *, manifest: bool = True) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        if manifest:
            archive.writestr("imsmanifest.xml", "<manifest><resources/></manifest>")
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_an_external_entity_is_refused_and_the_server_file_is_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    data = (
        '<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY leak SYSTEM "file://'
        f'{secret}">]><quiz><question type="category"><category><text>&leak;</text>'
        "</category></question></quiz>"
    ).encode()

    message = refused(data)

    assert "XML entities, which are refused" in message
    assert SECRET not in message


def test_entity_expansion_is_refused_at_once():
    levels = ['<!ENTITY e0 "lol">'] + [
        f'<!ENTITY e{n} "{("&e" + str(n - 1) + ";") * 10}">' for n in range(1, 10)
    ]
    data = f'<?xml version="1.0"?><!DOCTYPE quiz [{"".join(levels)}]><quiz>&e9;</quiz>'.encode()

    assert "XML entities, which are refused" in refused(data)


def test_an_entity_inside_a_package_is_refused_too(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    manifest = (
        f'<!DOCTYPE m [<!ENTITY x SYSTEM "file://{secret}">]><manifest>&x;</manifest>'
    ).encode()

    message = refused(package({"imsmanifest.xml": manifest}, manifest=False))

    assert "imsmanifest.xml: The file declares or uses XML entities" in message
    assert SECRET not in message


@pytest.mark.parametrize(
    "name", ["../evil.xml", "/etc/cron.d/evil", "items/../../evil.xml", "C:/evil.xml", "a\\..\\b"]
)
def test_a_member_named_outside_the_package_refuses_it_whole(name):
    message = refused(package({name: b"<x/>"}))

    assert "points outside the package: it is refused whole" in message


def test_a_manifest_that_points_outside_the_package_reads_nothing_there():
    manifest = (
        b'<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>'
        b'<resource identifier="a" type="imsqti_item_xmlv2p1" href="../../../etc/passwd"/>'
        b"</resources></manifest>"
    )

    message = refused(package({"imsmanifest.xml": manifest}, manifest=False))

    assert message == "The file has no question that can be imported."


def test_a_link_inside_a_package_refuses_it():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("imsmanifest.xml", "<manifest/>")
        link = zipfile.ZipInfo("items/q.xml")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")

    assert "holds a link" in refused(out.getvalue())


def test_a_zip_bomb_is_refused_as_it_unpacks():
    # 30 MB of zeros packs into about 30 KB: the member is refused past its cap, whatever
    # the archive claims.
    manifest = (
        b'<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>'
        b'<resource identifier="a" type="imsqti_item_xmlv2p1" href="items/bomb.xml"/>'
        b"</resources></manifest>"
    )
    members = {"imsmanifest.xml": manifest, "items/bomb.xml": b"\0" * (30 * 1024 * 1024)}
    bomb = package(members, manifest=False)
    assert len(bomb) < 100_000

    assert "“items/bomb.xml” in the package unpacks to more than 20.0\xa0MB" in refused(bomb)


def test_a_member_that_lies_about_its_size_is_still_stopped_at_the_cap(monkeypatch):
    monkeypatch.setattr(safety, "MAX_MEMBER_BYTES", 1024 * 1024)
    data = package({"items/q.xml": b" " * (3 * 1024 * 1024)})
    # The central directory says 100 bytes: the reader counts what it unpacks instead.
    data = data.replace((3 * 1024 * 1024).to_bytes(4, "little"), (100).to_bytes(4, "little"))
    reader = safety.Package(data)

    with pytest.raises(ExchangeError) as refusal:
        reader.read("items/q.xml")

    assert "unpacks to more than" in str(refusal.value) or "cannot be read" in str(refusal.value)


def test_a_package_that_unpacks_past_its_total_cap_is_refused(monkeypatch):
    monkeypatch.setattr(safety, "MAX_UNPACKED_BYTES", 2 * 1024 * 1024)
    manifest = (
        '<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>'
        + "".join(
            f'<resource identifier="r{n}" type="imsqti_item_xmlv2p1" href="i{n}.xml"/>'
            for n in range(3)
        )
        + "</resources></manifest>"
    ).encode()
    filler = b"<assessmentItem>" + b" " * (1024 * 1024) + b"</assessmentItem>"
    members = {"imsmanifest.xml": manifest} | {f"i{n}.xml": filler for n in range(3)}

    assert "The package unpacks to more than 2.0\xa0MB" in refused(package(members, manifest=False))


def test_a_package_of_too_many_files_is_refused(monkeypatch):
    monkeypatch.setattr(safety, "MAX_MEMBERS", 50)

    message = refused(package({f"f{n}.txt": b"x" for n in range(60)}))

    assert "The package holds 61 files; at most 50 are read." in message


def test_a_file_past_the_size_cap_is_refused_before_it_is_read(monkeypatch):
    monkeypatch.setattr("quizzes.instructors.imports.MAX_FILE_BYTES", 1000)
    data = b'<?xml version="1.0"?><quiz>' + b" " * 2000 + b"</quiz>"

    assert refused(data) == "The file is larger than 0 MB."


def test_an_image_that_would_unpack_to_gigabytes_is_refused():
    from .test_images import png_header

    manifest = (QTI / "interactionmix_saxony_v3" / "imsmanifest.xml").read_bytes()
    data = zipped(QTI / "interactionmix_saxony_v3")
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        members = {name: source.read(name) for name in source.namelist()}
    members["media/c2f541343b9b4bfdba9fc90c7a18403e.jpg"] = png_header(100_000, 100_000)
    members["imsmanifest.xml"] = manifest

    message = refused(package(members, manifest=False))

    assert "the image “c2f541343b9b4bfdba9fc90c7a18403e.jpg” cannot be imported" in message


def test_the_dry_run_refuses_hostile_files_too():
    with pytest.raises(ExchangeError, match="points outside the package"):
        file_dry_run(package({"../x": b""}))


def test_the_admin_refuses_a_file_past_the_cap_with_a_form_error(instructor_client, monkeypatch):
    monkeypatch.setattr("quizzes.instructors.tools.MAX_FILE_BYTES", 1024)
    upload = SimpleUploadedFile("big.zip", b"PK\x03\x04" + b"\0" * 2048)

    response = instructor_client.post("/en/admin/quizzes/quiz/import/", {"file": upload})

    assert response.status_code == 200
    assert "The file is larger than 0 MB." in response.content.decode()
    assert Quiz.objects.count() == 0
