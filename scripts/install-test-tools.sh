#!/usr/bin/env bash
# What the test suite uses besides Swift: the OpenAPI validator (PyPI), in a virtual environment this
# script makes in .venv (Homebrew's and Debian's Python refuse a plain `pip install`, PEP 668).
# The tests run .venv/bin/python3 when it is there, else python3. strace (Debian) delays a server's
# sends for StoredTextBudgetTests; without it (not root, no apt) that test skips.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python3 ]; then
    echo "install-test-tools: making .venv (python3 -m venv)"
    python3 -m venv .venv
fi
if ! .venv/bin/python3 -c "import openapi_spec_validator" 2>/dev/null; then
    echo "install-test-tools: pip install openapi-spec-validator into .venv"
    .venv/bin/python3 -m pip install --quiet --disable-pip-version-check "openapi-spec-validator>=0.7"
fi
.venv/bin/python3 -c "import openapi_spec_validator; print('install-test-tools: openapi-spec-validator ready in .venv')"
if ! command -v strace >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "install-test-tools: installing strace (apt)"
    apt-get update -qq && apt-get install -y -qq strace >/dev/null
fi
command -v strace >/dev/null && echo "install-test-tools: strace ready" || echo "install-test-tools: no strace: one StoredTextBudgetTests test skips"
