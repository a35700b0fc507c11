from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from lti.models import Deployment, Registration
from lti.tool import signing_key
from lti.views import tool_urls


class Command(BaseCommand):
    help = (
        "Register an LTI 1.3 platform (or update its registration: issuer and client id name "
        "it) with one deployment, and print the tool's endpoints to enter on the platform."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--issuer", required=True)
        parser.add_argument("--client-id", required=True)
        parser.add_argument("--deployment-id", required=True)
        parser.add_argument("--auth-url", required=True)
        parser.add_argument("--token-url", required=True)
        parser.add_argument("--jwks-url", required=True)
        parser.add_argument("--name", default="")
        parser.add_argument(
            "--base-url",
            default="",
            help="This site's public origin, e.g. https://quiz.example.org (default SITE_ORIGIN).",
        )
        parser.add_argument(
            "--frame-origin",
            action="append",
            default=[],
            help="Another origin the platform shows Daleel from (repeatable), e.g. "
            "https://school.instructure.com.",
        )
        parser.add_argument(
            "--grants-instructor",
            action="store_true",
            help="Platform instructors who launch Daleel join the Instructors group.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        base = (options["base_url"] or settings.SITE_ORIGIN).strip().rstrip("/")
        if not base.startswith(("https://", "http://")):
            raise CommandError("Give --base-url https://… or set SITE_ORIGIN.")
        with transaction.atomic():
            defaults = {
                "auth_url": options["auth_url"],
                "token_url": options["token_url"],
                "jwks_url": options["jwks_url"],
                "is_active": True,
            }
            if options["name"]:
                defaults["name"] = options["name"]
            if options["frame_origin"]:
                defaults["frame_origins"] = "\n".join(options["frame_origin"])
            if options["grants_instructor"]:
                defaults["grants_instructor"] = True
            registration, created = Registration.objects.update_or_create(
                issuer=options["issuer"], client_id=options["client_id"], defaults=defaults
            )
            if not registration.name:
                registration.name = options["issuer"]
                registration.save(update_fields=["name"])
            Deployment.objects.get_or_create(
                registration=registration, deployment_id=options["deployment_id"]
            )
            signing_key()
        for label, url in tool_urls(base).items():
            self.stdout.write(f"{label}: {url}")
