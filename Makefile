# docbench: `make run` starts everything, `make test` checks everything.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
# One stamp per set of extras, named after pyproject.toml's hash: running installs the project
# alone (its runtime dependencies), testing and linting add the test and docs extras (`make test`
# builds the manual too), `make docs` the docs extra alone, benchmarking
# also the bench extras (the benchmarks start the tests' servers and browsers).
HASH := $(shell md5sum < pyproject.toml | cut -c1-12)
EXTRAS_run :=
EXTRAS_test := [test,docs]
EXTRAS_bench := [test,docs,bench]
EXTRAS_docs := [docs]
installed = $(VENV)/.installed-$(1)-$(HASH)
# The lint step syntax-checks the workbench's JavaScript with Node: Debian's nodejs when no
# node is on the PATH (one installed otherwise, nvm's say, is used as it is).
NODE_PACKAGE := $(if $(shell command -v node),,nodejs)

.PHONY: run samples test bench lint docs clean

$(PY):
	@PYTHON=$${PYTHON:-$$(scripts/find_python.sh)} && echo "creating $(VENV) with $$PYTHON" && "$$PYTHON" -m venv $(VENV)

$(VENV)/.installed-%-$(HASH): pyproject.toml | $(PY)
	@scripts/provision.sh
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.$(EXTRAS_$*)'
	@rm -f $(VENV)/.installed-$*-* && touch $@

run: $(call installed,run)
	$(VENV)/bin/docbench serve $(if $(PORT),--port $(PORT))

samples: $(call installed,run)
	$(PY) -m workbench.samples --out out

test: $(call installed,test)
	@scripts/provision.sh redis-server postgresql chromium poppler-utils mupdf-tools strace $(NODE_PACKAGE)
	$(VENV)/bin/ruff check engine api workbench tests benchmarks docs/hooks
	scripts/check_js.sh
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir $$(mktemp -d)
	# Two workers, a test file each: most tests wait on the servers, browsers and databases they start;
	# then the few that need the machine to themselves.
	$(PY) -m pytest -n 2 --dist loadfile -m "not alone" --durations=30
	$(PY) -m pytest -m alone

bench: $(call installed,bench)
	@scripts/provision.sh redis-server postgresql chromium wrk
	$(PY) -m benchmarks.render
	$(PY) -m benchmarks.typst
	$(PY) -m benchmarks.computed
	$(PY) -m benchmarks.letterhead
	$(PY) -m benchmarks.label_sheets
	$(PY) -m benchmarks.charts
	$(PY) -m benchmarks.profile --quick
	$(PY) -m benchmarks.finishing
	$(PY) -m benchmarks.api
	$(PY) -m benchmarks.service --baseline 0c07d55 --profile
	$(PY) -m benchmarks.revisions
	$(PY) -m benchmarks.batch
	$(PY) -m benchmarks.editor
	$(PY) -m benchmarks.notebook

# The manual (docs/, mkdocs.yml) into site/; strict: a broken link or missing page fails it.
docs: $(call installed,docs)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

lint: $(call installed,test)
	@scripts/provision.sh $(NODE_PACKAGE)
	$(VENV)/bin/ruff check engine api workbench tests benchmarks docs/hooks
	scripts/check_js.sh

clean:
	rm -rf $(VENV) out site .pytest_cache
