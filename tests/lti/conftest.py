from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django.test import Client

from .platform import TestPlatform


def login_params(platform: TestPlatform, *, target_link_uri: str) -> dict[str, str]:
    return {
        "iss": platform.issuer,
        "login_hint": "hint-1",
        "target_link_uri": target_link_uri,
        "lti_message_hint": "message-hint-1",
        "client_id": platform.client_id,
        "lti_deployment_id": platform.deployment_id,
    }


def login_continue(client: Client, platform: TestPlatform, *, target_link_uri: str) -> str:
    """The OIDC login's first step, as the platform starts it: the address of its second."""
    response = client.get("/lti/login/", login_params(platform, target_link_uri=target_link_uri))
    assert response.status_code == 302, response.content
    assert response["Location"].startswith("/lti/login/continue/?t=")
    return response["Location"]


def login_redirect(client: Client, platform: TestPlatform, *, target_link_uri: str) -> dict:
    """The OIDC login, as the platform starts it, in a browser that keeps our cookies; returns
    the auth request's parameters."""
    response = client.get(login_continue(client, platform, target_link_uri=target_link_uri))
    assert response.status_code == 302, response.content
    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == platform.auth_url
    return {key: values[0] for key, values in parse_qs(location.query).items()}


def launch(client: Client, platform: TestPlatform, *, target_link_uri: str, **claims):
    """Login, the platform's signed answer, and its POST to the tool: the launch's response."""
    auth = login_redirect(client, platform, target_link_uri=target_link_uri)
    token = platform.id_token(nonce=auth["nonce"], target_link_uri=target_link_uri, **claims)
    return (
        client.post(
            urlsplit(auth["redirect_uri"]).path, {"id_token": token, "state": auth["state"]}
        ),
        token,
        auth,
    )
