"""A learner's browser for the benchmark's setup and checks: stdlib HTTP with its own cookies.

With DEBUG off the session and CSRF cookies are `Secure`, and a standard cookie jar sends
those only over HTTPS; on plain-HTTP loopback this jar keeps and sends every cookie by name,
as a browser behind the TLS proxy would. CSRF works as in a browser: the csrftoken cookie
comes from a page, and a POST sends it back in the X-CSRFToken header.
"""

from __future__ import annotations

import gzip
import http.client
import re
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    raw: bytes  # the body as sent (compressed if the server compressed it)
    header_bytes: int

    @property
    def body(self) -> bytes:
        if self.headers.get("Content-Encoding") == "gzip":
            return gzip.decompress(self.raw)
        return self.raw

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    @property
    def transferred(self) -> int:
        """Bytes on the wire for this response: status line and headers plus the body."""
        return self.header_bytes + len(self.raw)

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


@dataclass
class Browser:
    base_url: str
    cookies: dict[str, str] = field(default_factory=dict)
    gzip: bool = False
    _connections: dict[str, http.client.HTTPConnection] = field(default_factory=dict)

    def get(self, path: str, *, htmx: bool = False, base_url: str | None = None) -> Response:
        return self.request("GET", path, htmx=htmx, base_url=base_url)

    def post(
        self,
        path: str,
        data: dict[str, object] | None = None,
        *,
        htmx: bool = False,
        base_url: str | None = None,
    ) -> Response:
        return self.request("POST", path, data=data or {}, htmx=htmx, base_url=base_url)

    def request(
        self,
        method: str,
        path: str,
        *,
        data: dict[str, object] | None = None,
        htmx: bool = False,
        base_url: str | None = None,
    ) -> Response:
        base = base_url or self.base_url
        headers = {"User-Agent": "daleel-bench", "Accept-Language": "en"}
        if self.gzip:
            headers["Accept-Encoding"] = "gzip"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        body = None
        if method == "POST":
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(data or {}).encode()
        for retry in (False, True):
            connection = self._connection(base)
            try:
                connection.request(method, path, body=body, headers=headers)
                reply = connection.getresponse()
                raw = reply.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server closed meanwhile: open another, once.
                connection.close()
                self._connections.pop(base, None)
                if retry:
                    raise
        if reply.getheader("Connection", "").lower() == "close":
            connection.close()
            self._connections.pop(base, None)
        header_bytes = len(f"HTTP/1.1 {reply.status} {reply.reason}\r\n\r\n") + sum(
            len(f"{name}: {value}\r\n") for name, value in reply.getheaders()
        )
        self._remember(reply.headers.get_all("Set-Cookie") or [])
        return Response(reply.status, reply.headers, raw, header_bytes)

    def close(self) -> None:
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def _connection(self, base: str) -> http.client.HTTPConnection:
        connection = self._connections.get(base)
        if connection is None:
            netloc = urllib.parse.urlsplit(base).netloc
            connection = http.client.HTTPConnection(netloc, timeout=30)
            self._connections[base] = connection
        return connection

    def _remember(self, set_cookies: list[str]) -> None:
        for line in set_cookies:
            for name, morsel in SimpleCookie(line).items():
                expired = morsel["max-age"] == "0" or "1970" in morsel["expires"]
                if expired:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value


CHOICE = re.compile(r'name="choice" value="(\d+)"')


def choice_ids(html: str) -> list[int]:
    return [int(value) for value in CHOICE.findall(html)]


SCORE = re.compile(r'class="score-summary__big"[^>]*>(.*?)</p>', re.S)


def score_of(html: str) -> str | None:
    """The "score / total" a result page shows, or None."""
    summary = SCORE.search(html)
    if summary is None:
        return None
    numbers = re.search(r"(\d+)\s*/\s*(\d+)", re.sub(r"<[^>]+>", "", summary[1]))
    return f"{numbers[1]} / {numbers[2]}" if numbers else None
