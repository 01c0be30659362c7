#!/usr/bin/env bash
# What the test suite uses besides Swift: the OpenAPI validator (PyPI).
set -euo pipefail
if ! python3 -c "import openapi_spec_validator" 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check "openapi-spec-validator>=0.7"
fi
python3 -c "import openapi_spec_validator; print('openapi-spec-validator ready')"
