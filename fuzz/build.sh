#!/bin/sh
# Builds one libFuzzer binary per harness into fuzz/.build/<target>.
# Each binary is the harness, FuzzSupport.swift and the MockHTTP sources that parse requests and
# bodies (for `cgi` also WSUV Twitter's CGI readers), compiled as one module (the request parser
# is internal to MockHTTP), linked with the MockSupport helpers they import (JSON, UTF-8, byte
# search), built once as their own module.
# Usage: fuzz/build.sh [target ...]   (default: every target)
set -eu
cd "$(dirname "$0")"
root=..
http="$root/Sources/MockHTTP"
support="$root/Sources/MockSupport"
parsers="$http/RequestParser.swift $http/Message.swift $http/ConnectionFault.swift $http/Body/FormDecoding.swift $http/Body/Multipart.swift
         $http/PendingAnswer.swift"
helpers="$support/JSON/JSONParser.swift $support/JSON/JSONScanner.swift $support/JSON/JSONValue.swift $support/JSON/JSONWriter.swift
         $support/JSON/OrderedJSON.swift $support/UTF8Text.swift $support/ByteSearch.swift"
targets=${*:-"request chunked form multipart json cgi"}
# WSUV Twitter's own readers of CGI.pm's rules (they need nothing from MockHTTP but hexDigitValue).
cgi="$root/Sources/MockRoutes/WSUVTwitter/CGIForm.swift $root/Sources/MockRoutes/WSUVTwitter/CGIMultipart.swift"
mkdir -p .build/support
# Instrumented like the harnesses (coverage and address checks), without libFuzzer's main.
(cd .build/support && swiftc -O -g -sanitize=fuzzer,address -parse-as-library -module-name MockSupport -c $(for f in $helpers; do echo "../../$f"; done) \
    -emit-module -emit-module-path MockSupport.swiftmodule)
for target in $targets; do
    echo "building $target"
    # -parse-as-library: the harness has no top-level code; libFuzzer provides main.
    swiftc -O -g -sanitize=fuzzer,address -use-ld=lld -parse-as-library -module-name MockHTTP \
        -I .build/support $parsers $([ "$target" = cgi ] && echo "$cgi") Sources/FuzzSupport.swift "Sources/$target.swift" \
        .build/support/*.o -o ".build/$target"
done
