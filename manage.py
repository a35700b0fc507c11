#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Processes started here share one cache even with DEBUG on (config/settings.py, CACHES):
    # `make run`, its worker and `manage.py shell` see each other's changes. The test suite,
    # which does not start here, keeps each process's own.
    os.environ.setdefault("DALEEL_SHARED_DEV_CACHE", "true")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
