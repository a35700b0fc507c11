"""gunicorn's settings for Daleel, as deploy/daleel-web.service starts it:

    /srv/daleel/venv/bin/gunicorn --config deploy/gunicorn.conf.py config.wsgi

Any of them can be changed in /etc/daleel/daleel.env through gunicorn's own GUNICORN_CMD_ARGS,
e.g. GUNICORN_CMD_ARGS="--bind 10.0.0.21:8000" for a load balancer on another machine.
"""

import multiprocessing
import os
import sys

# nginx on this machine passes requests here (deploy/nginx-daleel.conf's upstream).
bind = ["127.0.0.1:8000"]
# One worker per core, each with two threads: a worker uses the CPU while its other request
# waits on PostgreSQL, and gthread keeps nginx's connections alive.
workers = multiprocessing.cpu_count()
worker_class = "gthread"
threads = 2
# A restart lets requests in flight finish first.
graceful_timeout = 30
# nginx logs every request; with LOG_FORMAT=json Django adds one line per request with its
# request id (config/observe.py). gunicorn's own messages go to standard error: the journal.
accesslog = None
errorlog = "-"
# systemctl reload / restart are the controls; no control socket in the user's home.
control_socket_disable = True
proc_name = "daleel-web"


def on_starting(server):
    """Refuse to start half-configured: Django's system checks, as `manage.py check` runs
    them (config/checks.py: SITE_ORIGIN, mail, the metrics' protection), before any worker."""
    import django
    from django.core.management import call_command

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    call_command("check", fail_level="ERROR", stdout=sys.stderr)


def child_exit(server, worker):
    # prometheus-client's multiprocess mode: a worker gone no longer reports live values.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
