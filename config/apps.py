from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site's own app (label `config`): the database cache's migration, the system checks
    that refuse a half-configured production (config/checks.py), and what operators watch:
    metrics and error reports of requests and tasks (config/observe.py)."""

    name = "config"
    verbose_name = "Daleel"

    def ready(self) -> None:
        from . import checks, observe

        checks.register()
        observe.connect()
