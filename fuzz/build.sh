#!/bin/sh
# Builds one libFuzzer binary per harness into fuzz/.build/<target>.
# Each binary is the harness, FuzzSupport.swift and the MockHTTP sources that parse requests and
# bodies (for `cgi` also WSUV Twitter's CGI readers), compiled as one module (the request parser
# is internal to MockHTTP).
# Usage: fuzz/build.sh [target ...]   (default: every target)
set -eu
cd "$(dirname "$0")"
root=..
http="$root/Sources/MockHTTP"
parsers="$http/RequestParser.swift $http/Message.swift $http/ConnectionFault.swift $http/Body/FormDecoding.swift $http/Body/Multipart.swift
         $http/JSON/JSONParser.swift $http/JSON/JSONScanner.swift $http/JSON/JSONValue.swift $http/JSON/JSONWriter.swift $http/JSON/OrderedJSON.swift $http/UTF8Text.swift $http/ByteSearch.swift $http/PendingAnswer.swift"
targets=${*:-"request chunked form multipart json cgi"}
# WSUV Twitter's own readers of CGI.pm's rules (they need nothing from MockHTTP but hexDigitValue).
cgi="$root/Sources/MockRoutes/WSUVTwitter/CGIForm.swift $root/Sources/MockRoutes/WSUVTwitter/CGIMultipart.swift"
mkdir -p .build
for target in $targets; do
    echo "building $target"
    # -parse-as-library: the harness has no top-level code; libFuzzer provides main.
    swiftc -O -g -sanitize=fuzzer,address -use-ld=lld -parse-as-library -module-name MockHTTP \
        $parsers $([ "$target" = cgi ] && echo "$cgi") Sources/FuzzSupport.swift "Sources/$target.swift" -o ".build/$target"
done
