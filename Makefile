# Daleel: `make run` serves the site with the seed quizzes, `make test` runs every test,
# `make test-fast` the change loop's (no browser, no servers of their own).
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# pyenv reads .python-version (3.12); elsewhere set PYTHON=python3.12.
PYTHON ?= python3

.PHONY: install system-packages run test test-fast test-servers test-e2e test-deep deploy-check lint format messages compile-messages migrations-check bench bench-scale code-css

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_quizzes
	$(PY) manage.py schedule_tasks
	@echo "Daleel on http://127.0.0.1:$(PORT)/ with its task worker; Ctrl-C stops both."
	$(PY) manage.py db_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT; \
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# The suite includes browser tests: system packages first (Chromium etc., see the script).
system-packages:
	bash .ci/system-packages

# The suite in three runs: the tests that run in parallel (pytest-xdist, a database per worker,
# WORKERS of them: one per core), then those that start servers of their own on loopback
# (tests/outages, the scale-out check: one at a time), then the browser tests (Chromium, one
# live server). PYTEST_ARGS goes to each (CI: --durations=25); HYPOTHESIS_PROFILE=deep
# (`make test-deep`) fuzzes with many more examples than the default `ci` profile.
PYTEST := $(PY) -m pytest
PYTEST_ARGS ?=
WORKERS ?= auto
PARALLEL := -m "not e2e and not servers" -n $(WORKERS)

# The server tests mostly wait (on the outages they cause): they run beside the browser tests,
# and their report is printed after the browser tests'; either failing fails the target.
test: install system-packages
	$(PYTEST) $(PARALLEL) $(PYTEST_ARGS)
	@log=$$(mktemp); \
	($(PYTEST) -m servers $(PYTEST_ARGS) > $$log 2>&1; echo $$? > $$log.status) & servers=$$!; \
	$(PYTEST) -m e2e $(PYTEST_ARGS); e2e=$$?; \
	wait $$servers; echo "== the server tests"; cat $$log; status=$$(cat $$log.status); \
	rm -f $$log $$log.status; test $$e2e = 0 && test $$status = 0

# The change loop: everything but the browser and the servers, in parallel (about 4 minutes
# on two cores; README, "Running the tests").
test-fast: install
	$(PYTEST) $(PARALLEL) $(PYTEST_ARGS)

# Only the tests that start their own PostgreSQL, Redis and gunicorn (as root, see
# tests/conftest.py's real_servers).
test-servers: install system-packages
	$(PYTEST) -m servers $(PYTEST_ARGS)

# Only the browser tests (Debian's chromium, see tests/e2e/conftest.py); screenshots land in
# test-artifacts/screenshots/.
test-e2e: install system-packages
	$(PYTEST) -m e2e $(PYTEST_ARGS)

# The stack deploy/ describes (nginx when installed, gunicorn, the worker, PostgreSQL, Redis),
# started on loopback from a production install (`pip install .`, no dev extras), then a smoke
# test: its last line is `deploy-check: ok` or `deploy-check: FAILED …` (deploy/check.py). As
# root; about two minutes.
deploy-check: install system-packages
	$(PY) deploy/check.py

# `make test` with hypothesis's `deep` profile: each fuzz test's full number of examples.
test-deep:
	HYPOTHESIS_PROFILE=deep $(MAKE) test

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Update locale/ar from the templates and code, then compile; translate what is new in
# between (the tests fail on any untranslated or fuzzy entry, or a stale .mo).
# The Jinja2 templates' strings (quizzes/jinja2/, locale/babel.cfg) are extracted by Babel and merged in
# with makemessages' own (msgmerge brings back the translations it had just set aside).
messages: install
	$(PY) manage.py makemessages --locale ar --no-location --keep-pot --ignore=.venv --ignore=staticfiles --ignore=tests --ignore=bench --ignore=node_modules
	$(VENV)/bin/pybabel -q extract --no-location -F locale/babel.cfg -o locale/jinja2.pot quizzes/jinja2
	msgcat --use-first locale/django.pot locale/jinja2.pot -o locale/django.pot
	msgmerge -q --update --backup=none --previous --no-location locale/ar/LC_MESSAGES/django.po locale/django.pot
	rm -f locale/django.pot locale/jinja2.pot
	$(MAKE) compile-messages

compile-messages: install
	$(PY) manage.py compilemessages --locale ar --ignore=.venv

migrations-check: install
	$(PY) manage.py makemigrations --check --dry-run

# Regenerate the highlighted code's stylesheet from Pygments (quizzes/text.py); a test fails
# when the committed one is stale.
code-css: install
	$(PY) -c 'import django, os; os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings"); django.setup(); from quizzes.text import code_stylesheet; open("static/css/code.css", "w").write(code_stylesheet())'

bench: install
	bash bench/run

# Does a page's cost follow the page or the data? Each measure at a small and a 100× larger
# size (bench/scale.py: PostgreSQL and Redis of their own, data made with COPY); the last line
# is `bench: scale targets met` or `… MISSED: …`. About 3 minutes on two idle cores.
bench-scale: install
	bash bench/run --data-scale
