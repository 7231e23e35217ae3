# `make demo` grades the bundled example submissions, `make test` runs every test, `make check`
# every test but the fresh-venv installs and the browser, and `make quick` runs tests/unit and
# tests/fitness without the tests marked `slow` (every journey, by its folder: tests/journeys/
# conftest.py; tests/conftest.py fails any other test that grades in a process of its own unless
# it is marked): the loop between commits. Each creates .venv and installs what it needs, Debian
# packages included when run as root. The tests print at their end how many grading processes
# they started; `make test` keeps every test's duration (and its grading processes) in
# .ci/junit.xml and prints the twenty slowest.

VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_OUT ?= demo-out

# pytest-xdist workers: one per core and one more by default (`make test JOBS=0` runs them in one
# process). Many tests wait (a hung call's limit, a cluster's heartbeat, a browser), and the extra
# worker grades meanwhile: on 2 cores the suite took 733 and 675 s at -n 3 against 766-780 s at
# -n 2 (three runs). Tests that share an expensive fixture stay on one worker: see tests/conftest.py.
JOBS ?= $(shell n=$$(nproc 2>/dev/null) && echo $$((n + 1)) || echo auto)
PYTEST := $(PY) -m pytest -q -n $(JOBS) --dist loadgroup
# Bytecode caches: each worker's collection and every `python -m grader` a test starts would
# otherwise compile the package and rewrite the test modules' asserts from source again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test check quick lint system-deps browser-deps clean bench

$(STAMP): pyproject.toml setup.py grader/package_data.py
	test -x $(PY) || python3 -m venv $(VENV)
	# torch first, pinned: the project's own range would otherwise let pip pick a CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

# Debian packages, installed only when missing and only when we may (root with apt). An apt
# failure (no network, another apt holding the lock) is a note, never an abort: the grader says
# what is missing and falls back where it safely can.
APT_MISSING = if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } \
	      || echo "note: apt could not install$$missing; going on without (run 'apt-get install$$missing' later for $$why)"; \
	  else \
	    echo "note: not installed:$$missing (install it for $$why)"; \
	  fi; \
	fi

# bubblewrap gives the Linux sandbox: all the demo needs from the system.
system-deps:
	@missing=""; why="the full sandbox"; \
	command -v bwrap >/dev/null 2>&1 || missing=" bubblewrap"; \
	$(APT_MISSING)

# Only for the tests: chromium renders the HTML pages, with a system Japanese font for the notebook
# card (the pages and plots carry their own font, from matplotlib-fontja; a test compares a page drawn
# with that system font and without it, pixel for pixel); Info-ZIP's zip writes the
# exports the LMS tests read, as Linux users re-zip them; openssl makes the cluster's TLS certificates.
browser-deps:
	@missing=""; why="the browser tests and the test tools"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	fc-list :lang=ja 2>/dev/null | grep -q . || missing="$$missing fonts-ipafont-gothic"; \
	command -v zip >/dev/null 2>&1 || missing="$$missing zip"; \
	command -v openssl >/dev/null 2>&1 || missing="$$missing openssl"; \
	$(APT_MISSING)

demo: $(STAMP) system-deps
	$(VENV)/bin/grader batch examples/submissions --out $(DEMO_OUT) --allow-weak-sandbox

# ruff (a small rule set) and mypy (strict but for the modules pyproject.toml relaxes).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# Tests marked `alone` look at every process of this checkout: they run after the others (their
# durations in .ci/junit-alone.xml).
test: $(STAMP) system-deps browser-deps lint
	$(PYTEST) --durations=20 --junitxml=.ci/junit.xml -m "not alone"
	$(PY) -m pytest -q -m alone --junitxml=.ci/junit-alone.xml
	$(PY) -m tests.cost .ci/junit.xml -n 10
	$(VENV)/bin/grader validate --all

check: $(STAMP) system-deps lint
	$(PYTEST) -m "not install and not browser and not alone"
	$(PY) -m pytest -q -m "alone and not install and not browser"

# The fastest loop: the unit tests and the house rules, without the tests marked `slow` (the
# journeys, and the few unit tests that grade through a real sandbox). Every module of grader/
# is imported by one of them (tests/fitness/test_quick_covers_every_module.py).
quick: $(STAMP) system-deps lint
	$(PYTEST) -m "not slow and not install and not browser and not alone" tests/unit tests/fitness

bench: $(STAMP) system-deps
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) $(DEMO_OUT) build *.egg-info .mypy_cache .ruff_cache
