"""A test LMS: its own RSA key, and JWKS, token and line-item score endpoints over real HTTP on
127.0.0.1. It records what it receives. Its "authorization endpoint" is `id_token()`: the test
reads state, nonce and redirect_uri from the tool's redirect and has it sign the answer.

For a browser: `/course` is a course page that shows the tool in an iframe, starting at the
tool's login (`course_page_for`), and `/auth` answers the tool's authorization request as an
LMS does, with a form that posts the signed id_token to the tool's redirect_uri
(`launch_claims` are its claims)."""

from __future__ import annotations

import html
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from jwcrypto.jwk import JWK

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


def new_key(kid: str) -> JWK:
    return JWK.generate(kty="RSA", size=2048, kid=kid)


@dataclass
class Received:
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    jwks_fetches: int = 0
    auth_requests: list[dict[str, str]] = field(default_factory=list)


class TestPlatform:
    __test__ = False  # not a test class for pytest

    client_id = "daleel-client"
    deployment_id = "deployment-1"

    def __init__(self) -> None:
        self.key = new_key("platform-key-1")
        self.published = [self.key]
        self.received = Received()
        self.tool_jwks: dict[str, Any] | None = None  # set by the test from the tool's /lti/jwks/
        self.score_statuses: list[int] = []  # answers to the next score posts (then 200)
        self.tokens: set[str] = set()
        self.launch_claims: dict[str, Any] = {}  # what /auth signs, besides the nonce
        self.framed_login: str = ""  # the tool's login address /course frames
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # Addresses
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def issuer(self) -> str:
        return self.base

    @property
    def auth_url(self) -> str:
        return self.base + "/auth"

    @property
    def token_url(self) -> str:
        return self.base + "/token"

    @property
    def jwks_url(self) -> str:
        return self.base + "/jwks"

    def lineitem(self, name: str = "1") -> str:
        return f"{self.base}/lineitems/{name}"

    def start(self) -> TestPlatform:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def course_page_for(self, tool_origin: str, **launch_claims: Any) -> str:
        """The address of a course page that frames the tool, whose login starts there."""
        target = launch_claims.get("target_link_uri", "")
        self.framed_login = (
            tool_origin
            + "/lti/login/?"
            + urlencode(
                {
                    "iss": self.issuer,
                    "login_hint": "hint-1",
                    "target_link_uri": target,
                    "lti_message_hint": "message-hint-1",
                    "client_id": self.client_id,
                    "lti_deployment_id": self.deployment_id,
                }
            )
        )
        self.launch_claims = launch_claims
        return self.base + "/course"

    def rotate(self) -> None:
        self.key = new_key(f"platform-key-{uuid.uuid4().hex[:6]}")
        self.published.append(self.key)

    # The authorization endpoint's answer
    def id_token(
        self,
        *,
        nonce: str,
        message_type: str = "LtiResourceLinkRequest",
        sub: str = "learner-sub-1",
        roles: list[str] | None = None,
        target_link_uri: str = "",
        key: JWK | None = None,
        lineitem: str | None = None,
        **overrides: Any,
    ) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "azp": self.client_id,
            "sub": sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": "Amina Haddad",
            "given_name": "Amina",
            "family_name": "Haddad",
            "email": "amina@lms.example",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "message_type": message_type,
            CLAIM + "version": "1.3.0",
            CLAIM + "roles": roles if roles is not None else [LEARNER],
            CLAIM + "target_link_uri": target_link_uri,
            CLAIM + "context": {"id": "course-1", "title": "Course 1"},
        }
        if message_type == "LtiResourceLinkRequest":
            claims[CLAIM + "resource_link"] = {"id": "link-1", "title": "Quiz"}
            claims[AGS] = {
                "scope": [SCORE_SCOPE],
                "lineitem": lineitem or self.lineitem(),
                "lineitems": self.base + "/lineitems",
            }
        else:
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": self.base + "/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": True,
                "data": "platform-data-1",
            }
        for name, value in overrides.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        signer = key or self.key
        return jwt.encode(
            claims,
            signer.export_to_pem(private_key=True, password=None),
            algorithm="RS256",
            headers={"kid": signer.kid},
        )

    def verify_tool_jwt(self, token: str, *, audience: str | None = None) -> dict[str, Any]:
        """What the platform does with a JWT from the tool: check it with the tool's JWKS."""
        assert self.tool_jwks is not None, "give the platform the tool's JWKS first"
        kid = jwt.get_unverified_header(token)["kid"]
        (jwk,) = [k for k in self.tool_jwks["keys"] if k["kid"] == kid]
        return jwt.decode(
            token,
            jwt.PyJWK(jwk).key,
            algorithms=["RS256"],
            audience=audience or self.issuer,
        )

    # HTTP
    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any = None, content_type="application/json"):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _page(self, body: str) -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                if path == "/course":
                    src = html.escape(platform.framed_login)
                    return self._page(
                        "<!doctype html><title>Course 1</title><h1>Course 1</h1>"
                        f'<iframe id="tool" title="Daleel" src="{src}" width="1000" '
                        'height="700"></iframe>'
                    )
                if path == "/auth":
                    query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                    with platform.lock:
                        platform.received.auth_requests.append(query)
                    token = platform.id_token(nonce=query["nonce"], **platform.launch_claims)
                    action = html.escape(query["redirect_uri"])
                    fields = {"id_token": token, "state": query["state"]}
                    inputs = "".join(
                        f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
                        for name, value in fields.items()
                    )
                    return self._page(
                        f'<!doctype html><form method="post" action="{action}">{inputs}</form>'
                        "<script>document.forms[0].submit()</script>"
                    )
                if self.path == "/jwks":
                    with platform.lock:
                        platform.received.jwks_fetches += 1
                        keys = [
                            {**json.loads(k.export_public()), "alg": "RS256", "use": "sig"}
                            for k in platform.published
                        ]
                    return self._send(200, {"keys": keys})
                return self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode()
                path = urlsplit(self.path).path
                if path == "/token":
                    form = {k: v[0] for k, v in parse_qs(raw).items()}
                    try:
                        claims = platform.verify_tool_jwt(
                            form["client_assertion"], audience=platform.token_url
                        )
                    except Exception as error:  # noqa: BLE001 — any failure is a 401
                        with platform.lock:
                            platform.received.token_requests.append({"error": str(error)})
                        return self._send(401, {"error": "invalid_client"})
                    token = "token-" + uuid.uuid4().hex
                    with platform.lock:
                        platform.tokens.add(token)
                        platform.received.token_requests.append({**form, "claims": claims})
                    return self._send(
                        200,
                        {"access_token": token, "token_type": "Bearer", "expires_in": 3600},
                    )
                if path.startswith("/lineitems/") and path.endswith("/scores"):
                    bearer = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    if bearer not in platform.tokens:
                        return self._send(401, {"error": "bad token"})
                    with platform.lock:
                        status = platform.score_statuses.pop(0) if platform.score_statuses else 200
                        if status == 200:
                            platform.received.scores.append(
                                {
                                    "lineitem": path.removesuffix("/scores"),
                                    "content_type": self.headers.get("Content-Type"),
                                    **json.loads(raw),
                                }
                            )
                    return self._send(status, {} if status == 200 else {"error": "down"})
                return self._send(404, {"error": "not found"})

        return Handler
