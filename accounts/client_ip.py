"""The address django-axes locks out, when the site runs behind load balancers."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """The learner's address as the outermost trusted proxy saw it.

    Each of the TRUSTED_PROXY_COUNT proxies appends the address it received the request from
    to X-Forwarded-For, so that entry, counted from the right, is the one no client can forge
    (a client may send any X-Forwarded-For of its own, which only adds entries to the left).
    Without the header (a request that bypassed the proxies) the connection's address counts.
    """
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    hops = [hop for hop in hops if hop]
    if len(hops) >= settings.TRUSTED_PROXY_COUNT:
        return hops[-settings.TRUSTED_PROXY_COUNT]
    return request.META.get("REMOTE_ADDR")
