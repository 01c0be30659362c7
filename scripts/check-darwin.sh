#!/usr/bin/env bash
# Darwin type-check, without a Mac (about 10 s): compiles every `#if canImport(Darwin)` branch on Linux
# against scripts/darwin-standin, a stand-in `Darwin` module that declares only the C functions,
# types and constants we call, as Apple's headers declare them. A Glibc-only call (accept4,
# epoll_wait, MSG_NOSIGNAL, Glibc's enum-typed SOCK_STREAM...) in a Darwin branch fails here.
#
# Rules for anyone touching Darwin branches:
# - They live in files of Sources/MockSupport or Sources/MockHTTP that import no Foundation (on
#   Linux Foundation re-exports Glibc, whose declarations would clash with the stand-in's): today
#   MockSupport's FileSignature.swift, MockHTTP's Platform.swift and
#   PlatformDarwin.swift. Each target's are compiled as a module
#   of that name; anything else MockHTTP's need from MockHTTP is declared in
#   scripts/darwin-standin/Stubs.swift.
# - A new C call or constant: declare it in scripts/darwin-standin/CDarwin/darwin.h exactly as the
#   macOS header that declares it (xnu bsd/..., Libc include/...), never by copying Glibc's.
set -euo pipefail
cd "$(dirname "$0")/.."
standin=scripts/darwin-standin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t files < <(grep -rl --include='*.swift' 'canImport(Darwin)' Sources Tests | sort)
for file in "${files[@]}"; do
    if [[ $file != Sources/MockSupport/* && $file != Sources/MockHTTP/* ]] || grep -q '^import Foundation' "$file"; then
        echo "check-darwin: $file has a Darwin branch; keep those in Sources/MockSupport or Sources/MockHTTP files without Foundation" >&2
        exit 1
    fi
done
echo "check-darwin: type-checking ${files[*]} against the stand-in Darwin module"
swiftc -emit-module -parse-as-library -module-name Darwin -I "$standin/CDarwin" \
    -emit-module-path "$work/Darwin.swiftmodule" "$standin/Darwin.swift"
# Modules rather than -typecheck, so that there is an index for scripts/check-availability.py,
# which sets DARWIN_INDEX_STORE to check these branches for declarations newer than macOS 13 too.
# MockSupport first: MockHTTP may import it.
for target in MockSupport MockHTTP; do
    mapfile -t sources < <(printf '%s\n' "${files[@]}" | grep "^Sources/$target/")
    [[ $target == MockHTTP ]] && sources+=("$standin/Stubs.swift")
    swiftc -emit-module -module-name "$target" -I "$work" -I "$standin/CDarwin" -emit-module-path "$work/$target.swiftmodule" \
        -index-store-path "${DARWIN_INDEX_STORE:-$work/index}" "${sources[@]}"
done
echo "check-darwin: every Darwin branch compiles"
