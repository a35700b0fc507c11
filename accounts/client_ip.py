"""The client's address, even behind proxies; and the key every limit counts it under.

An IPv6 client is counted by its network (CLIENT_IPV6_PREFIX bits, a /64 by default): one
subscriber or one host is given a whole /64 and may use any address in it, so counting each
address would give it 2**64 fresh counts. An IPv4 client is counted by its address.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


@lru_cache(maxsize=8)
def _networks(cidrs: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


def _trusted(address: Address) -> bool:
    return any(address in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def from_trusted_proxy(request: HttpRequest) -> bool:
    """Whether the request came straight from one of TRUSTED_PROXIES (whose headers say what
    the client sent: X-Forwarded-For, nginx's X-Request-ID)."""
    peer = _address(request.META.get("REMOTE_ADDR") or "")
    return peer is not None and _trusted(peer)


def client_ip(request: HttpRequest) -> str | None:
    """The address of whoever sent the request, as far as proxies we trust tell it.

    X-Forwarded-For counts only when the connection comes from a trusted proxy
    (TRUSTED_PROXIES); each proxy appends the address it received the request from, so read
    from the right, past trusted proxies, the first address no trusted proxy vouches for is the
    client's. What a client writes into the header itself lies further left and is never
    reached; a client that connects directly has its header ignored altogether.
    TRUSTED_PROXY_COUNT, if set, walks at most that many entries (the older setting).
    """
    peer = request.META.get("REMOTE_ADDR")
    client = _address(peer or "")
    if client is None or not _trusted(client):
        return peer
    hops = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    limit = settings.TRUSTED_PROXY_COUNT or len(hops)
    for hop in reversed([hop for hop in hops if hop.strip()][-limit:]):
        address = _address(hop)
        if address is None:  # junk a client wrote: the last trusted hop is all we know
            break
        client = address
        if not _trusted(address):
            break
    return str(client)


def client_key(request: HttpRequest) -> str | None:
    """The client as every limit and django-axes count it (AXES_CLIENT_IP_CALLABLE): its IPv4
    address, or the first address of its IPv6 network (CLIENT_IPV6_PREFIX bits), so that
    `2001:db8:1:2::9` and `2001:db8:1:2:ffff::1` are one client, `2001:db8:1:3::9` another.
    Pages that show or check an address itself (a notice's "from where", the metrics'
    allowed addresses) use `client_ip`."""
    text = client_ip(request)
    address = _address(text or "")
    if address is None:
        return text
    if address.version == 4:
        return str(address)
    network = ipaddress.ip_network(f"{address}/{settings.CLIENT_IPV6_PREFIX}", strict=False)
    return str(network.network_address)
