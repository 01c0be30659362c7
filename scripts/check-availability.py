#!/usr/bin/env python3
"""Availability check, without a Mac: nothing in Sources/ or Tests/ uses a declaration of the Swift
standard library, Foundation, Dispatch or XCTest that is newer than macOS 13, our floor.

How: `swift build --build-tests` leaves an index store (every symbol each of our files references,
by USR), and scripts/check-darwin.sh one for the Darwin branches that Linux does not compile;
`swift-symbolgraph-extract` prints the toolchain's public declarations with the @available
annotations Apple's platforms get (the Linux toolchain's interfaces carry them). A reference to a
declaration introduced after macOS 13.0 - or unavailable there - on itself or on the type it belongs
to, fails the check with its file and line.

Limits: it sees declarations, not language features that need a newer runtime (the compiler on a
Mac reports those); and Linux's Foundation is swift-foundation plus swift-corelibs-foundation, so a
Foundation API that Linux lacks cannot be used here anyway, and one Linux has under different
annotations than Apple's SDK is judged by Linux's.

Usage: scripts/check-availability.py [--no-build]   (run from anywhere; about 30 s after a build)
"""
import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile

FLOOR = (13, 0)
MODULES = ["Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization",
           "FoundationNetworking", "Dispatch", "XCTest", "Synchronization"]
ROLE_REFERENCE = 1 << 2
DEPENDENCY_RECORD = 2

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
toolchain_bin = os.path.dirname(os.path.realpath(subprocess.check_output(["which", "swift"], text=True).strip()))
toolchain = os.path.dirname(toolchain_bin)


class StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    def text(self):
        return ctypes.string_at(self.data, self.length).decode() if self.data else ""


def index_store_library():
    lib = ctypes.CDLL(os.path.join(toolchain, "lib", "libIndexStore.so"))
    handle, pointer = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    signatures = {
        "indexstore_store_create": (handle, [ctypes.c_char_p, pointer]),
        "indexstore_store_units_apply_f": (ctypes.c_bool, [handle, ctypes.c_uint, handle, handle]),
        "indexstore_unit_reader_create": (handle, [handle, ctypes.c_char_p, pointer]),
        "indexstore_unit_reader_get_main_file": (StringRef, [handle]),
        "indexstore_unit_reader_dependencies_apply_f": (ctypes.c_bool, [handle, handle, handle]),
        "indexstore_unit_dependency_get_kind": (ctypes.c_int, [handle]),
        "indexstore_unit_dependency_get_name": (StringRef, [handle]),
        "indexstore_unit_dependency_get_filepath": (StringRef, [handle]),
        "indexstore_record_reader_create": (handle, [handle, ctypes.c_char_p, pointer]),
        "indexstore_record_reader_occurrences_apply_f": (ctypes.c_bool, [handle, handle, handle]),
        "indexstore_occurrence_get_symbol": (handle, [handle]),
        "indexstore_occurrence_get_roles": (ctypes.c_uint64, [handle]),
        "indexstore_occurrence_get_line_col": (None, [handle, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]),
        "indexstore_symbol_get_usr": (StringRef, [handle]),
        "indexstore_symbol_get_name": (StringRef, [handle]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, arguments
    return lib


def references(store_path):
    """(file, line, usr, name) for every reference in the records of our own source files."""
    lib = index_store_library()
    error = ctypes.c_void_p()
    store = lib.indexstore_store_create(store_path.encode(), ctypes.byref(error))
    if not store:
        sys.exit(f"check-availability: cannot open the index store {store_path}")
    unit_callback = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, StringRef)
    pointer_callback = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, ctypes.c_void_p)
    ours = tuple(os.path.join(root, folder) + os.sep for folder in ("Sources", "Tests"))

    units = []
    keep = unit_callback(lambda _, name: units.append(name.text()) or True)
    lib.indexstore_store_units_apply_f(store, 0, None, keep)

    records = {}  # record name -> source file; units of deleted files are skipped
    for unit in units:
        reader = lib.indexstore_unit_reader_create(store, unit.encode(), ctypes.byref(error))
        if not reader:
            continue
        main = lib.indexstore_unit_reader_get_main_file(reader).text()
        if not main.startswith(ours) or not os.path.exists(main):
            continue

        def dependency(_, dep):
            if lib.indexstore_unit_dependency_get_kind(dep) == DEPENDENCY_RECORD:
                records[lib.indexstore_unit_dependency_get_name(dep).text()] = \
                    lib.indexstore_unit_dependency_get_filepath(dep).text()
            return True
        lib.indexstore_unit_reader_dependencies_apply_f(reader, None, pointer_callback(dependency))

    found = []
    for record, path in records.items():
        reader = lib.indexstore_record_reader_create(store, record.encode(), ctypes.byref(error))
        if not reader:
            continue

        def occurrence(_, occ, path=path):
            if lib.indexstore_occurrence_get_roles(occ) & ROLE_REFERENCE:
                symbol = lib.indexstore_occurrence_get_symbol(occ)
                line, column = ctypes.c_uint(), ctypes.c_uint()
                lib.indexstore_occurrence_get_line_col(occ, ctypes.byref(line), ctypes.byref(column))
                found.append((os.path.relpath(path, root), line.value,
                              lib.indexstore_symbol_get_usr(symbol).text(), lib.indexstore_symbol_get_name(symbol).text()))
            return True
        lib.indexstore_record_reader_occurrences_apply_f(reader, None, pointer_callback(occurrence))
    return found


def too_new(folder):
    """USR -> why, for every toolchain declaration newer than the floor on macOS (or unavailable)."""
    target = subprocess.check_output(["swiftc", "-print-target-info"], text=True)
    triple = json.loads(target)["target"]["triple"]
    for module in MODULES:
        subprocess.run([os.path.join(toolchain_bin, "swift-symbolgraph-extract"), "-module-name", module,
                        "-target", triple, "-minimum-access-level", "public", "-output-dir", folder],
                       check=True, stderr=subprocess.DEVNULL)
    own, parents = {}, {}
    for path in glob.glob(os.path.join(folder, "*.symbols.json")):
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            usr = symbol["identifier"]["precise"].split("::SYNTHESIZED::")[0]
            for entry in symbol.get("availability") or []:
                if entry.get("domain") != "macOS":
                    continue
                if entry.get("isUnconditionallyUnavailable"):
                    own[usr] = "unavailable on macOS"
                elif "introduced" in entry:
                    version = (entry["introduced"]["major"], entry["introduced"].get("minor", 0))
                    if version > FLOOR:
                        own[usr] = "macOS %d.%d+" % version
        for relation in graph.get("relationships", []):
            if relation["kind"] in ("memberOf", "optionalRequirementOf", "requirementOf"):
                parents.setdefault(relation["source"].split("::SYNTHESIZED::")[0], relation["target"])

    def why(usr, depth=0):
        if usr in own:
            return own[usr]
        parent = parents.get(usr)
        return why(parent, depth + 1) if parent and depth < 10 else None
    return why


def main():
    if "--no-build" not in sys.argv:
        subprocess.run(["swift", "build", "--build-tests"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    bin_path = subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=root, text=True).strip()
    store = os.path.join(bin_path, "index", "store")
    found = references(store)
    if not found:
        sys.exit("check-availability: the index store holds no references from Sources/ or Tests/; was it built?")
    with tempfile.TemporaryDirectory() as darwin_store:
        subprocess.run([os.path.join(root, "scripts", "check-darwin.sh")], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, DARWIN_INDEX_STORE=darwin_store))
        found += references(darwin_store)
    with tempfile.TemporaryDirectory() as folder:
        why = too_new(folder)
        problems = sorted({(path, line, name, reason) for path, line, usr, name in found
                           if (reason := why(usr))})
    for path, line, name, reason in problems:
        print(f"{path}:{line}: {name} is {reason}; our floor is macOS {FLOOR[0]}")
    files = len({path for path, *_ in found})
    if problems:
        sys.exit(f"check-availability: {len(problems)} use(s) newer than macOS {FLOOR[0]} ({files} files checked)")
    print(f"check-availability: {len(found)} references in {files} files, none newer than macOS {FLOOR[0]}")


main()
