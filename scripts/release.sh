#!/usr/bin/env bash
# The release build: one self-contained program plus its seed, in dist/mock-backend/.
#   dist/mock-backend/mock-backend   release build, Swift standard library and Foundation linked in
#   dist/mock-backend/Seed/          the shipped seed (the program finds it beside itself)
# The Dockerfile's build stage runs this very script, so the image carries exactly these files.
# Copy the folder anywhere (or the program to PREFIX/bin and Seed/ to PREFIX/share/mock-backend/Seed).
set -euo pipefail
cd "$(dirname "$0")/.."

build=(swift build -c release --product mock-backend)
# Linux: link Swift's runtime, Foundation and ICU (with its time zone data) into the program, so the
# target machine needs only glibc, libstdc++ and libgcc. macOS ships the Swift runtime itself.
if [[ "$(uname -s)" == Linux ]]; then
    build+=(--static-swift-stdlib)
fi

"${build[@]}"
binary="$("${build[@]}" --show-bin-path)/mock-backend"

out=dist/mock-backend
rm -rf "$out"
mkdir -p "$out"
cp "$binary" "$out/mock-backend"
# Debug symbols are most of the size and are no use to a teaching assistant.
strip "$out/mock-backend"
cp -R Seed "$out/Seed"

echo "release: $out/mock-backend $(wc -c < "$out/mock-backend" | tr -d ' ') bytes ($(du -sh "$out/mock-backend" | cut -f1)), seed $(du -sh "$out/Seed" | cut -f1)"
