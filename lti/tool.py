"""pylti1p3 wired to Daleel's models: the tool configuration, the launch with its checks, the
tool's signing key. Every JWT is read and signed by pylti1p3 (PyJWT, jwcrypto); what is ours
is where state and nonce live (a PendingLogin row, never a browser session) and their single
use, the cached platform keys, and the claims we compare."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

import requests
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from pylti1p3.contrib.django.message_launch import DjangoMessageLaunch
from pylti1p3.contrib.django.oidc_login import DjangoOIDCLogin
from pylti1p3.contrib.django.request import DjangoRequest
from pylti1p3.deployment import Deployment as PyDeployment
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.registration import Registration as PyRegistration
from pylti1p3.registration import TKeySet
from pylti1p3.tool_config.abstract import ToolConfAbstract

from .models import Deployment, PendingLogin, Registration, ToolKey, UsedLaunchValue

JWKS_CACHE_SECONDS = 60 * 60
# A token naming a key the cached set lacks fetches the platform's keys again at most this
# often per platform: a forged launch with a made-up `kid` costs no fetch within the minute.
JWKS_REFETCH_SECONDS = 60
HTTP_TIMEOUT = 10
LOGIN_SECONDS = 5 * 60
EXPIRED_LOGINS_KEPT = timedelta(hours=1)
NONCE_KEY = "lti1p3-nonce-"


def signing_key() -> ToolKey:
    """The key that signs: the newest not being retired; made on first use."""
    key = ToolKey.objects.filter(retire_at=None).first()
    if key is None:
        key = ToolKey.generate()
    return key


def jwks() -> dict[str, Any]:
    signing_key()
    return {"keys": [key.public_jwk for key in ToolKey.objects.published()]}


def rotate_key(*, keep_old_until: datetime) -> ToolKey:
    """A new signing key; the current ones stay published until `keep_old_until`."""
    with transaction.atomic():
        ToolKey.objects.filter(retire_at=None).update(retire_at=keep_old_until)
        return ToolKey.generate()


def py_registration(registration: Registration) -> PyRegistration:
    key = signing_key()
    return (
        PyRegistration()
        .set_issuer(registration.issuer)
        .set_client_id(registration.client_id)
        .set_auth_login_url(registration.auth_url)
        .set_auth_token_url(registration.token_url)
        .set_key_set_url(registration.jwks_url)
        .set_tool_private_key(key.private_pem)
        .set_tool_public_key(key.public_pem)
    )


class ToolConf(ToolConfAbstract[DjangoRequest]):
    """Registrations and deployments from the database; an unknown deployment is refused,
    never created."""

    def __init__(self) -> None:
        super().__init__()
        self.registration: Registration | None = None
        self.py_reg: PyRegistration | None = None

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    # pylti1p3 takes None for "not found", though its annotations say otherwise.
    def find_registration_by_issuer(  # type: ignore[override]
        self, iss: str, *args: Any, **kwargs: Any
    ) -> PyRegistration | None:
        return None  # every lookup names the client id (check_iss_has_many_clients)

    def find_registration_by_params(  # type: ignore[override]
        self, iss: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> PyRegistration | None:
        lookups: dict[str, Any] = {"issuer": iss, "is_active": True}
        if client_id:
            lookups["client_id"] = client_id
        found = list(Registration.objects.filter(**lookups)[:2])
        if len(found) != 1:  # none, or an issuer with several and no client id to choose
            return None
        self.registration = found[0]
        self.py_reg = py_registration(found[0])
        return self.py_reg

    def find_deployment(self, iss: str, deployment_id: str) -> PyDeployment | None:
        return None

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> PyDeployment | None:
        if self.registration is None:
            self.find_registration_by_params(iss, client_id)
        if self.registration is None:
            return None
        exists = Deployment.objects.filter(
            registration=self.registration, deployment_id=deployment_id
        ).exists()
        return PyDeployment().set_deployment_id(deployment_id) if exists else None


class PendingLoginStorage(LaunchDataStorage[Any]):
    """pylti1p3's launch data storage (its extension point for where a login's data lives)
    over PendingLogin rows, instead of the browser's session: the login's nonce is noted here
    and written with its state (`oidc_login`); a launch finds it by its nonce. pylti1p3's copy
    of the launch data is not kept: the launch is handled in its own request."""

    def __init__(self) -> None:
        super().__init__()
        self.nonce: str | None = None

    def get_session_cookie_name(self) -> None:
        return None  # no cookie of pylti1p3's own: rows are keyed by state and nonce

    def can_set_keys_expiration(self) -> bool:
        return True

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        if key.startswith(NONCE_KEY):
            self.nonce = key.removeprefix(NONCE_KEY)

    def get_value(self, key: str) -> Any:
        return None

    def check_value(self, key: str) -> bool:
        if not key.startswith(NONCE_KEY):
            return False
        nonce = key.removeprefix(NONCE_KEY)
        return PendingLogin.objects.filter(nonce=nonce, expires_at__gt=timezone.now()).exists()


class KeptParams(DjangoRequest):
    """The request of a login whose parameters we kept (lti.login): those, and nothing the
    address adds."""

    def __init__(self, request: HttpRequest, params: dict[str, str]) -> None:
        super().__init__(request, default_params=params)  # type: ignore[no-untyped-call]

    def get_param(self, key: str) -> Any:
        return (self._default_params or {}).get(key)


def _jwks_cache_key(url: str) -> str:
    return "lti-jwks-" + hashlib.sha256(url.encode()).hexdigest()


class Launch(DjangoMessageLaunch):
    """pylti1p3's launch, with the platform's keys cached in Django's cache and fetched again
    once when the id_token names a key the cached set lacks (the platform rotated)."""

    def __init__(self, request: HttpRequest, tool_conf: ToolConf) -> None:
        # pylti1p3's Django classes are untyped.
        super().__init__(  # type: ignore[no-untyped-call]
            request, tool_conf, launch_data_storage=PendingLoginStorage()
        )
        self.tool_conf = tool_conf
        self._refetched = False
        self._fetched = False

    def fetch_public_key(self, key_set_url: str) -> TKeySet:
        key = _jwks_cache_key(key_set_url)
        found: TKeySet | None = None if self._refetched else cache.get(key)
        if found:
            return found
        self._fetched = True
        try:
            response = requests.get(key_set_url, timeout=HTTP_TIMEOUT)
            response.raise_for_status()
            found = response.json()
        except (requests.RequestException, ValueError) as error:
            raise LtiException(f"The platform's keys could not be read: {error}") from error
        cache.set(key, found, JWKS_CACHE_SECONDS)
        return cast(TKeySet, found)

    def claims(self) -> dict[str, Any]:
        """The launch's claims (its JWT's body) as a plain dict: their names are the LTI
        specification's, read by name."""
        return dict(self.get_launch_data())

    def get_public_key(self) -> tuple[str, str]:
        try:
            return super().get_public_key()
        except LtiException:
            registration = self.tool_conf.registration
            if self._refetched or self._fetched or self.tool_conf.py_reg is None:
                raise
            if registration is None or not cache.add(
                f"lti-jwks-refetch-{registration.pk}", 1, JWKS_REFETCH_SECONDS
            ):
                raise
            self._refetched = True
            self.tool_conf.py_reg.set_key_set(None)
            return super().get_public_key()


class LaunchRefused(Exception):
    """A launch Daleel refuses; `reason` says why, in English for the log and the page."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _claims_check(body: dict[str, Any], registration: Registration) -> None:
    aud = body.get("aud")
    audiences = aud if isinstance(aud, list) else [aud]
    if registration.client_id not in audiences:
        raise LaunchRefused("The token's audience (aud) is not this tool's client id.")
    if len(audiences) > 1 and body.get("azp") != registration.client_id:
        raise LaunchRefused("The token has several audiences and its azp is not this tool.")
    if "azp" in body and body["azp"] != registration.client_id:
        raise LaunchRefused("The token's authorized party (azp) is not this tool.")
    if not isinstance(body.get("exp"), int | float):
        raise LaunchRefused("The token has no expiry (exp).")


def use_once(value: str, expires_at: datetime) -> bool:
    """Whether `value` is used for the first time (a unique row until `expires_at`)."""
    try:
        with transaction.atomic():
            UsedLaunchValue.objects.create(value=value[:255], expires_at=expires_at)
    except IntegrityError:
        return False
    return True


def _issuer_known(launch: Launch) -> bool:
    try:
        # The issuer as the refused token says (unverified: it only words the message).
        issuer = launch.set_auto_validation(enable=False).get_iss()
    except LtiException:
        return False
    return Registration.objects.filter(issuer=issuer, is_active=True).exists()


def _login_expired(launch: Launch) -> bool:
    """Whether the refused launch's nonce is a login's that expired (its row is kept a while
    past that: `oidc_login`), rather than one never made or used already."""
    try:
        # The nonce as the refused token says (unverified: it only words the message).
        nonce = str(launch.set_auto_validation(enable=False).get_launch_data().get("nonce"))
    except LtiException:
        return False
    return PendingLogin.objects.filter(nonce=nonce, expires_at__lte=timezone.now()).exists()


def validate_launch(request: HttpRequest) -> Launch:
    """The launch POSTed to `request`, validated by pylti1p3, its claims compared, and its
    state and nonce used up. Raises LaunchRefused."""
    tool_conf = ToolConf()
    launch = Launch(request, tool_conf)
    try:
        launch.validate()
    except LtiException as error:
        reason = str(error)
        if reason.startswith("Registration not found") and _issuer_known(launch):
            reason = "The token's audience (aud) is not a client id registered for its issuer."
        elif reason == "Invalid Nonce" and _login_expired(launch):
            reason = "The launch's login expired (it took more than five minutes)."
        raise LaunchRefused(reason) from error
    except Exception as error:  # a malformed token pylti1p3 did not expect (KeyError…)
        raise LaunchRefused(f"The launch could not be read: {error}") from error
    body = launch.claims()
    registration = tool_conf.registration
    assert registration is not None
    _claims_check(body, registration)
    now = timezone.now()
    UsedLaunchValue.objects.filter(expires_at__lt=now).delete()
    expires = max(datetime.fromtimestamp(body["exp"], tz=UTC), now) + timedelta(hours=1)
    state = request.POST.get("state", "")
    # The login's row goes with its launch: a second launch of it finds none.
    login_used, _deleted = PendingLogin.objects.filter(
        state=state, nonce=str(body.get("nonce")), registration=registration
    ).delete()
    nonce_used = use_once(f"nonce:{registration.issuer}:{body.get('nonce')}", expires)
    state_used = use_once(f"state:{state}", expires)
    if not (login_used and nonce_used and state_used):
        raise LaunchRefused("This launch was used already (replayed state or nonce).")
    return launch


def oidc_login(request: HttpRequest, launch_url: str, *, params: dict[str, str]) -> HttpResponse:
    """The redirect to the platform's authorization endpoint for the login-initiation
    `params`, with a new state (pylti1p3's cookie) and nonce (a PendingLogin row with the
    state; nothing in the browser's session). Raises LaunchRefused for an unknown platform."""
    storage = PendingLoginStorage()
    tool_conf = ToolConf()
    login = DjangoOIDCLogin(KeptParams(request, params), tool_conf, launch_data_storage=storage)
    try:
        response: HttpResponse = login.disable_check_cookies().redirect(launch_url)
    except (LtiException, OIDCException) as error:
        raise LaunchRefused(str(error)) from error
    state = parse_qs(urlsplit(response["Location"]).query).get("state", [""])[0]
    assert tool_conf.registration is not None and storage.nonce is not None
    now = timezone.now()
    # An expired login's row stays a while, so that its launch is told it expired.
    PendingLogin.objects.filter(expires_at__lt=now - EXPIRED_LOGINS_KEPT).delete()
    PendingLogin.objects.create(
        state=state,
        nonce=storage.nonce,
        registration=tool_conf.registration,
        expires_at=now + timedelta(seconds=LOGIN_SECONDS),
    )
    return response
