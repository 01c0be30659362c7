#!/usr/bin/env bash
# Builds (and tests) the package with the oldest compilers students have, each in a Debian root:
#   trixie: swiftlang 6.0.x (the Swift of Xcode 16.0-16.2), glibc 2.41: swift build --build-tests (no
#           expression over 300 ms to type-check), swift test
#   sid:    swiftlang 6.2.x (the Swift of Xcode 26 before 6.3):        swift build, each test target compiled
#           (no expression over 300 ms either)
# A root is made once with debootstrap and reused while complete (a marker file written last says so).
# Roots live outside the checkout (MOCK_TOOLCHAIN_ROOTS, default /var/tmp/mock-backend-roots), so a
# fresh clone in CI reuses the ones a session made. Needs root (debootstrap, chroot, mounts).
#   scripts/check-old-toolchains.sh            both roots
#   scripts/check-old-toolchains.sh trixie     one of them
# One run at a time per root (a lock beside it); the script is read whole before it starts (main),
# so editing it during a run does not change that run.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
roots=${MOCK_TOOLCHAIN_ROOTS:-/var/tmp/mock-backend-roots}
# Milliseconds Swift 6.0 may spend type-checking one expression (scripts/check-long-expressions.sh).
long_expression_limit=${MOCK_LONG_EXPRESSION_MS:-300}
mirror=${MOCK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(trixie sid)

say() { echo "check-old-toolchains: $*"; }

if [ "$(id -u)" != 0 ]; then
    say "skipped: needs root for debootstrap and chroot"
    exit 0
fi
if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap (apt)"
    apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null
fi

mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${mounted[$i]}" 2>/dev/null || true
    done
    mounted=()
}
trap unmount_all EXIT

mount_into() { # source target [options]
    mkdir -p "$2"
    if ! mountpoint -q "$2"; then
        mount "${@:3}" "$1" "$2"
        mounted+=("$2")
    fi
}

# What a root gets besides debootstrap's minimal system: the compiler, the C library's headers and
# start files it links against (a Recommends of gcc, so named), and what the test suite runs (git:
# the test that the README's state file is ignored asks git).
packages=(swiftlang libc6-dev python3 python3-openapi-spec-validator ca-certificates git)

mount_system() { # root: what apt and the tests use of the host
    # The root a mount point of its own, as a container's is: the tests that make a read-only
    # container (unshare, then `mount --make-rprivate /`) need one.
    mount_into "$1" "$1" --bind --make-private
    mount_into proc "$1/proc" -t proc
    mount_into /dev "$1/dev" --bind
    mount_into /dev/pts "$1/dev/pts" --bind
    mount_into tmpfs "$1/tmp" -t tmpfs
}

make_root() { # suite root
    local suite=$1 root=$2 started=$SECONDS
    # The marker holds the package list, so a root made with another list is brought up to date.
    if [ "$(cat "$root/.mock-backend-root-complete" 2>/dev/null)" = "${packages[*]}" ]; then
        mount_system "$root"
        say "$suite: reusing $root ($(chroot "$root" swift --version 2>/dev/null | head -n 1))"
        return
    fi
    # debootstrap removes its own work folder last, so a root without it was finished.
    if [ -x "$root/usr/bin/apt-get" ] && [ ! -d "$root/debootstrap" ]; then
        say "$suite: $root was made before; bringing its packages up to date"
    else
        say "$suite: making $root with debootstrap (about a minute)"
        # Never through a mount a run that was killed may have left (the host's /dev).
        for dir in tmp dev/pts dev proc .; do
            if mountpoint -q "$root/$dir"; then umount -l "$root/$dir"; fi
        done
        rm -rf --one-file-system "$root"
        mkdir -p "$root"
        debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$roots/$suite-debootstrap.log" 2>&1 \
            || { tail -n 20 "$roots/$suite-debootstrap.log"; exit 1; }
        say "$suite: root made in $((SECONDS - started)) s"
        started=$SECONDS
    fi
    say "$suite: apt-get install ${packages[*]} (about a minute)"
    mount_system "$root"
    # sid's Release file is valid for a week only; a machine whose clock is past that (this one's
    # was) would get no package lists. The signatures are still checked.
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99mock-backend-no-expiry"
    chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${packages[@]}" >"$roots/$suite-apt.log" 2>&1 \
        || { tail -n 20 "$roots/$suite-apt.log"; exit 1; }
    say "$suite: compiler installed in $((SECONDS - started)) s: $(chroot "$root" swift --version 2>/dev/null | head -n 1)"
    echo "${packages[*]}" >"$root/.mock-backend-root-complete"
}

in_root() { # suite root step what command: command in the clone, its output in $roots/<suite>-<step>.log
    local suite=$1 root=$2 step=$3 what=$4 command=$5 started=$SECONDS
    say "$suite: $what"
    chroot "$root" /usr/bin/env HOME=/root bash -c "cd /work/mock-backend && ($command) 2>&1" >"$roots/$suite-$step.log" || {
        # Each error once (the compiler repeats them); "|| true": head closing the pipe is no failure.
        grep -E "^[^ ]+: error: |^error: |' failed \(|Fatal error" "$roots/$suite-$step.log" | awk '!seen[$0]++' | head -n 40 || true
        tail -n 5 "$roots/$suite-$step.log"
        say "$suite: $step FAILED after $((SECONDS - started)) s (whole log: $roots/$suite-$step.log)"
        return 1
    }
    grep -E "Executed [0-9]+ tests" "$roots/$suite-$step.log" | tail -n 1 || true
    say "$suite: $step passed in $((SECONDS - started)) s"
}

# Every expression's type-check time in the build log (scripts/check-long-expressions.sh applies the limit).
expression_times="-Xswiftc -Xfrontend -Xswiftc -warn-long-expression-type-checking=1"

# Each test target compiled on its own: its module, without linking a test bundle.
compile_test_targets=$(cat <<'EOF'
tests=$(swift package dump-package | python3 -c 'import json, sys
print(*[t["name"] for t in json.load(sys.stdin)["targets"] if t["type"] == "test"])')
for target in $tests; do
    echo "== $target" && swift build --target "$target" $expression_times || exit 1
done
EOF
)

# The type checker's times grow with the machine's load (342 ms under a load of 12 for an
# expression that takes 186 ms at 3): an expression over the limit is measured a second time, its
# file alone compiled again, and fails the check only when it is over both times.
check_expression_times() { # suite root build-command log
    local suite=$1 root=$2 build=$3 log=$4 report files
    if report=$(scripts/check-long-expressions.sh --log "$log" "$long_expression_limit"); then
        echo "$report"
        return 0
    fi
    echo "$report"
    # "  342 ms  Sources/X.swift:85": the files of the expressions over the limit.
    files=$(echo "$report" | awk '$2 == "ms" { sub(/:[0-9]+$/, "", $3); print $3 }' | sort -u)
    [ -n "$files" ] || return 1
    say "$suite: measuring those again, each file compiled once more: $(echo $files)"
    (cd "$root/work/mock-backend" && touch $files)
    in_root "$suite" "$root" build-again "the same build, those files only" "$build"
    scripts/check-long-expressions.sh --log "$roots/$suite-build-again.log" "$long_expression_limit"
}

run_in_root() { # suite root
    local suite=$1 root=$2 build
    mount_system "$root"
    # A clone of what is committed, as a student would have it, made afresh each run.
    rm -rf "$root/work/mock-backend"
    mkdir -p "$root/work"
    git clone --quiet "$checkout" "$root/work/mock-backend"
    case $suite in
        trixie)
            build="swift build --build-tests $expression_times"
            in_root "$suite" "$root" build "swift build --build-tests, expression times logged" "$build"
            check_expression_times "$suite" "$root" "$build" "$roots/$suite-build.log"
            in_root "$suite" "$root" test "swift test" "swift test"
            ;;
        sid)
            # Debian's swiftlang 6.2.3 ships the _Testing_Foundation module without its library,
            # so no test bundle links there ("cannot find -l_Testing_Foundation"): the program is
            # built, and every test target compiled.
            in_root "$suite" "$root" build "swift build, expression times logged" "swift build $expression_times"
            in_root "$suite" "$root" build-tests "swift build --target T, for each test target T" \
                "$compile_test_targets"
            cat "$roots/$suite-build.log" "$roots/$suite-build-tests.log" >"$roots/$suite-expressions.log"
            check_expression_times "$suite" "$root" "swift build $expression_times || exit 1
$compile_test_targets" \
                "$roots/$suite-expressions.log"
            ;;
    esac
    unmount_all
}

main() {
    mkdir -p "$roots"
    local suite lock
    for suite in "${suites[@]}"; do
        case $suite in
            trixie | sid) ;;
            *) say "unknown suite $suite (trixie or sid)"; exit 2 ;;
        esac
        # A second run in the same root (another checkout's CI) would replace the clone under this one.
        exec {lock}>"$roots/$suite.lock"
        if ! flock -n "$lock"; then
            say "$suite: waiting for another run in $roots/$suite to end"
            flock "$lock"
        fi
        make_root "$suite" "$roots/$suite"
        unmount_all
        run_in_root "$suite" "$roots/$suite"
        exec {lock}>&-
    done
    say "all passed: ${suites[*]}"
}

# On one line, so that bash has read all of it before main starts.
main; exit
