"""What make deploy-check (deploy/check.py) puts in place of the outside world, on loopback: a
mail server that keeps what it is sent, and an error-report endpoint that keeps the envelopes
sentry-sdk posts. Both are real servers the site talks to over its real protocols."""

from __future__ import annotations

import email
import email.policy
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import brotli
from aiosmtpd.controller import Controller

# Mail to an address starting so is refused by the mail server (550), as a real one refuses
# an unknown mailbox: the task that sends it fails.
REFUSED_PREFIX = "refused"


class MailServer:
    """SMTP on 127.0.0.1 (aiosmtpd), keeping every message it accepts."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.messages: list[email.message.EmailMessage] = []
        self._controller = Controller(self, hostname="127.0.0.1", port=port)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        if address.startswith(REFUSED_PREFIX):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append(message)  # type: ignore[arg-type]
        return "250 Message accepted"

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def wait_for(self, to: str, body_has: str = "", seconds: float = 30):
        """The first mail to `to` whose plain text holds `body_has`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for message in list(self.messages):
                text = message.get_body(("plain",)).get_content()
                if to in str(message["To"]) and body_has in text:
                    return message
            time.sleep(0.2)
        seen = [(str(m["To"]), str(m["Subject"])) for m in self.messages]
        raise AssertionError(f"no mail to {to} ({body_has!r}) within {seconds} s; got {seen}")


class ErrorReports:
    """An HTTP endpoint where sentry-sdk posts its envelopes (/api/<project>/envelope/),
    keeping each one as it arrived (decompressed) and parsed."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.raw: list[bytes] = []
        reports = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                encoding = self.headers.get("Content-Encoding", "")
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "br":
                    body = brotli.decompress(body)
                reports.raw.append(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def dsn(self) -> str:
        return f"http://deploycheckpublickey@127.0.0.1:{self.port}/1"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def events(self) -> list[tuple[dict, bytes]]:
        """Each event item of every envelope, with the whole envelope it came in."""
        return [
            (json.loads(payload), raw)
            for raw in list(self.raw)
            for header, payload in _items(raw)
            if header.get("type") == "event"
        ]

    def wait_for(self, matches, seconds: float = 20) -> tuple[dict, bytes]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for event, raw in self.events():
                if matches(event):
                    return event, raw
            time.sleep(0.2)
        kinds = [
            [value.get("type") for value in event.get("exception", {}).get("values", [])]
            for event, _raw in self.events()
        ]
        raise AssertionError(f"no such error report within {seconds} s; got {kinds}")


def _items(raw: bytes):
    """An envelope's items, (header, payload): after the envelope's header line, each item is
    a header line, then its payload of `length` bytes or up to the end of the line."""

    def line_at(position: int) -> tuple[bytes, int]:
        end = raw.find(b"\n", position)
        end = len(raw) if end == -1 else end
        return raw[position:end], end + 1

    _envelope_header, position = line_at(0)
    while position < len(raw):
        line, position = line_at(position)
        if not line.strip():
            continue
        header = json.loads(line)
        if "length" in header:
            payload = raw[position : position + header["length"]]
            position += header["length"] + 1
        else:
            payload, position = line_at(position)
        yield header, payload
