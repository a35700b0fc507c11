from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from lti.tool import rotate_key


class Command(BaseCommand):
    help = (
        "Make a new signing key for LTI; the current one stays published in the JWKS for "
        "--keep-days days (platforms verify what it signed meanwhile), then drops out."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--keep-days", type=int, default=7)

    def handle(self, *args: Any, **options: Any) -> None:
        until = timezone.now() + timedelta(days=options["keep_days"])
        key = rotate_key(keep_old_until=until)
        self.stdout.write(
            f"New key {key.kid}; the previous one is published until {until:%Y-%m-%d %H:%M} UTC."
        )
