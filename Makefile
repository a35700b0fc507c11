# Daleel: `make run` serves the site with the seed quizzes, `make test` runs every test.
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# pyenv reads .python-version (3.12); elsewhere set PYTHON=python3.12.
PYTHON ?= python3

.PHONY: install system-packages run test test-e2e lint format messages compile-messages migrations-check bench code-css

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

test: install system-packages
	$(PY) -m pytest

# Only the browser tests (Debian's chromium, see tests/e2e/conftest.py); screenshots land in
# test-artifacts/screenshots/.
test-e2e: install system-packages
	$(PY) -m pytest -m e2e

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Update locale/ar from the templates and code, then compile; translate what is new in
# between (the tests fail on any untranslated or fuzzy entry, or a stale .mo).
messages: install
	$(PY) manage.py makemessages --locale ar --no-location --ignore=.venv --ignore=staticfiles --ignore=tests --ignore=bench --ignore=node_modules
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
