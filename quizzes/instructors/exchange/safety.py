"""Hostile files: XML read without entities, DTDs or the network; zip packages read member by
member within caps, never onto the disk.

- XML is parsed by libxml2 (lxml) with entity substitution, DTD loading and the network off,
  and the tree kept within libxml2's default limits (`huge_tree` off). A document that declares
  or uses an entity (XXE, "billion laughs") is refused, whatever it would have expanded to.
- A package is a zip read in memory: at most `MAX_MEMBERS` members, each at most
  `MAX_MEMBER_BYTES` and all together `MAX_UNPACKED_BYTES` once unpacked, counted as they
  are read, not as the archive claims (a zip bomb lies). Names that climb out of the package
  (`..`, absolute paths, drive letters, backslashes), links and encrypted members refuse the
  package whole.
"""

from __future__ import annotations

import posixpath
import stat
import zipfile
from copy import deepcopy
from io import BytesIO
from urllib.parse import unquote, urlsplit

from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from lxml import etree

from .content import ExchangeError, Note

# What one import may bring: the upload's own cap (the admin's page, the command alike), and
# what a package may unpack to.
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_MEMBERS = 5000
MAX_MEMBER_BYTES = 20 * 1024 * 1024
MAX_UNPACKED_BYTES = 100 * 1024 * 1024
ZIP_MAGIC = b"PK\x03\x04"
_CHUNK = 64 * 1024
ENTITIES_REFUSED = _lazy(
    "The file declares or uses XML entities, which are refused: export it again without them."
)


def refused(message: str, *, source: str = "", line: int = 0) -> ExchangeError:
    return ExchangeError([Note(line, message, source)])


def parse_xml(data: bytes, *, source: str = "") -> etree._Element:
    """The root of the XML document `data`, or ExchangeError saying why not."""
    parser = etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    # Nothing outside the document is ever read: not a DTD, not an entity, not a schema.
    parser.resolvers.add(_NothingOutside())
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        line = error.lineno or 0
        if "amplification" in error.msg or "ntity" in error.msg:
            raise refused(str(ENTITIES_REFUSED), source=source) from None
        raise refused(
            _("This is not well-formed XML (%(reason)s).") % {"reason": error.msg},
            source=source,
            line=line,
        ) from None
    doctype = root.getroottree().docinfo
    internal = doctype.internalDTD
    declares = internal is not None and any(True for _entity in internal.iterentities())
    if declares or any(True for _entity in root.iter(etree.Entity)):
        # Entities are how XML reads files of the server (XXE) and grows a few bytes into
        # gigabytes: none of the formats needs one.
        raise refused(str(ENTITIES_REFUSED), source=source)
    return root


class _NothingOutside(etree.Resolver):
    def resolve(self, system_url, public_id, context):
        return self.resolve_string("", context)


def local(element: etree._Element) -> str:
    """An element's name without its namespace (the formats' versions differ only there)."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element if local(child) == name]


def child(element: etree._Element | None, name: str) -> etree._Element | None:
    if element is None:
        return None
    return next((c for c in element if local(c) == name), None)


def descendants(element: etree._Element, name: str) -> list[etree._Element]:
    return [node for node in element.iter() if local(node) == name]


class Package:
    """A zip package's members by name, each read at most once and within the caps."""

    def __init__(self, data: bytes) -> None:
        try:
            self.archive = zipfile.ZipFile(BytesIO(data))
            infos = self.archive.infolist()
        except (zipfile.BadZipFile, OSError, ValueError) as error:
            raise refused(
                _("This zip file cannot be read (%(reason)s).") % {"reason": error}
            ) from None
        if len(infos) > MAX_MEMBERS:
            raise refused(
                _("The package holds %(count)d files; at most %(max)d are read.")
                % {"count": len(infos), "max": MAX_MEMBERS}
            )
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            if not _safe_name(name):
                raise refused(
                    _(
                        "The package holds a file named “%(name)s”, which points outside the "
                        "package: it is refused whole."
                    )
                    % {"name": name[:200]}
                )
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise refused(
                    _("The package holds a link (“%(name)s”): it is refused whole.")
                    % {"name": name[:200]}
                )
            if info.flag_bits & 0x1:
                raise refused(_("The package is encrypted: export it again without a password."))
            if not info.is_dir():
                self.members[name] = info
        self.unpacked = 0

    def __contains__(self, name: str) -> bool:
        return name in self.members

    def read(self, name: str) -> bytes:
        """Member `name`, unpacked within the caps (counted as it unpacks)."""
        info = self.members[name]
        if info.file_size > MAX_MEMBER_BYTES:
            raise self._too_large(name)
        out = bytearray()
        try:
            with self.archive.open(info) as member:
                while chunk := member.read(_CHUNK):
                    out += chunk
                    self.unpacked += len(chunk)
                    if len(out) > MAX_MEMBER_BYTES:
                        raise self._too_large(name)
                    if self.unpacked > MAX_UNPACKED_BYTES:
                        raise refused(
                            _(
                                "The package unpacks to more than %(size)s; split it into "
                                "several packages."
                            )
                            % {"size": filesizeformat(MAX_UNPACKED_BYTES)}
                        )
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as error:
            raise refused(
                _("“%(name)s” in the package cannot be read (%(reason)s).")
                % {"name": name, "reason": error}
            ) from None
        return bytes(out)

    def _too_large(self, name: str) -> ExchangeError:
        return refused(
            _("“%(name)s” in the package unpacks to more than %(size)s.")
            % {"name": name, "size": filesizeformat(MAX_MEMBER_BYTES)}
        )

    def resolve(self, base: str, href: str) -> str | None:
        """The member that `href` names, relative to member `base`; None if it names no member
        of the package (an address elsewhere, or a path that would climb out of it)."""
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            return None
        path = unquote(parts.path)
        if not path:
            return None
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(base), path))
        if joined.startswith(("../", "/")) or joined == "..":
            return None
        return joined if joined in self.members else None


def _safe_name(name: str) -> bool:
    if not name or "\\" in name or "\x00" in name or name.startswith("/"):
        return False
    if len(name) > 1 and name[1] == ":":  # a drive letter
        return False
    return ".." not in name.split("/")


XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def language_of(node: etree._Element) -> str:
    if not isinstance(node.tag, str):
        return ""
    value = node.get(XML_LANG) or node.get("lang") or ""
    return value.strip().lower().replace("_", "-").split("-")[0]


def copy_element(element: etree._Element) -> etree._Element:
    copied = deepcopy(element)
    copied.tail = None
    return copied


def remove_element(node: etree._Element) -> None:
    parent = node.getparent()
    if parent is None:
        return
    tail = node.tail
    previous = node.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(node)


def replace_with_text(node: etree._Element, text: str) -> None:
    node.tail = text + (node.tail or "")
    remove_element(node)
