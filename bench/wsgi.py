"""The production WSGI application, plus a per-request SQL count for the benchmark only.

gunicorn serves `bench.wsgi:application` in the benchmark. With DALEEL_BENCH_COUNT_QUERIES=1
every response carries `X-Bench-Queries: N`, the number of SQL statements the request sent
(counted with `connection.execute_wrapper`, so on the server and for every query, whatever
code sent it; transaction control that the driver issues itself, BEGIN and COMMIT, is not a
statement Django executes and is not counted). Without the variable this is exactly
`config.wsgi.application`: no counting code exists on production paths.
"""

from __future__ import annotations

import os
from contextlib import ExitStack

from config.wsgi import application as django_application

QUERIES_HEADER = "X-Bench-Queries"


def _counting(app):
    from django.db import connections

    def counted(environ, start_response):
        count = 0

        def counter(execute, sql, params, many, context):
            nonlocal count
            count += 1
            return execute(sql, params, many, context)

        def start(status, headers, exc_info=None):
            # Django calls start_response once the response is complete (sessions saved,
            # messages stored), so the count is final here.
            headers.append((QUERIES_HEADER, str(count)))
            return start_response(status, headers, exc_info)

        with ExitStack() as stack:
            for alias in connections:
                stack.enter_context(connections[alias].execute_wrapper(counter))
            return app(environ, start)

    return counted


if os.environ.get("DALEEL_BENCH_COUNT_QUERIES") == "1":
    application = _counting(django_application)
else:
    application = django_application
