"""Reading the environment: each setting of config/settings.py that an operator may change is
an environment variable, read by one of these (the README's table lists them)."""

import importlib.metadata
import ipaddress
import os

from django.core.exceptions import ImproperlyConfigured


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    return float(value) if value.strip() else default


def env_prepare_threshold() -> int | None:
    """DB_PREPARE_THRESHOLD: uses of a statement on a connection before it is prepared (psycopg's
    prepare_threshold, default 5); "off" prepares none."""
    value = os.environ.get("DB_PREPARE_THRESHOLD", "").strip()
    if value.lower() == "off":
        return None
    return int(value) if value else 5


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name, "")
    return [item.strip() for item in value.split(",") if item.strip()] or default


def env_networks(name: str, default: list[str]) -> list[str]:
    """Comma-separated addresses or CIDR networks; `none` for none."""
    networks = env_list(name, default)
    if [network.lower() for network in networks] == ["none"]:
        return []
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {network!r} is not an address or a network such as 10.0.0.0/8."
            ) from None
    return networks


def env_minutes(name: str, default: list[str]) -> list[int]:
    """Comma-separated minutes; `none` for none."""
    values = env_list(name, default)
    return [] if [value.lower() for value in values] == ["none"] else [int(v) for v in values]


def package_version() -> str:
    try:
        return importlib.metadata.version("daleel")
    except importlib.metadata.PackageNotFoundError:  # run from a folder never installed
        return "dev"
