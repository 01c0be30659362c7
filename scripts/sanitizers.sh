#!/bin/sh
# Runs the whole test suite under ThreadSanitizer and AddressSanitizer, each in its own scratch
# directory (.build-tsan, .build-asan; both ignored by git).
# Usage: scripts/sanitizers.sh [thread|address ...]   (default: both)
#
# Measured on 2 shared cores (debug builds already warm): thread ~3.5 min, address ~2 min of tests,
# plus ~4-6 min per sanitizer for a cold build.
#
# Leak detection is off for the XCTest run: swift-corelibs-xctest never releases its test case
# objects (one direct leak in awaitUsingExpectation, everything the test cases hold hangs off it
# as "indirect"), which buries any real report. Leaks in the parsers are caught by the fuzzers
# (libFuzzer runs with LeakSanitizer on), leaks in the server by scripts/soak.sh's RSS check.
set -eu
cd "$(dirname "$0")/.."
sanitizers=${*:-"thread address"}
status=0
for sanitizer in $sanitizers; do
    scratch=".build-$(echo "$sanitizer" | sed 's/thread/tsan/; s/address/asan/')"
    echo "== $sanitizer ($scratch)"
    started=$(date +%s)
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | grep -E "error|warning:" || true
    log="$scratch/sanitizer-tests.log"
    if ASAN_OPTIONS=detect_leaks=0 TSAN_OPTIONS=halt_on_error=0 \
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" >"$log" 2>&1; then
        result=passed
    else
        result=FAILED
        status=1
    fi
    # A sanitizer report fails the run even when every test passed.
    if grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" "$log"; then
        result="FAILED (sanitizer report)"
        status=1
    fi
    grep -E "error:|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|Executed [0-9]+ tests" "$log" | tail -5
    echo "$sanitizer: $result in $(( $(date +%s) - started )) s (log: $log)"
done
exit $status
