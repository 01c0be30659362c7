// Harness: the JSON parser, and the writer on whatever it accepts (parse, write, parse again
// must give the same value). The checker that builds nothing (`JSONParser.validate`, which seeds
// and state files go through) must accept exactly what the parser accepts, at every nesting limit.

import MockSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    for maxDepth in [2, 64, 128] {
        let parsed = (try? JSONParser.parse(bytes, maxDepth: maxDepth)) != nil
        let valid = (try? JSONParser.validate(bytes, maxDepth: maxDepth)) != nil
        guard parsed == valid else {
            fuzzFailure("parse \(parsed ? "accepts" : "rejects") and validate \(valid ? "accepts" : "rejects") at maxDepth \(maxDepth)")
        }
    }
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    for escapeSlash in [false, true] {
        let written = value.encoded(escapeSlash: escapeSlash)
        guard let again = try? JSONParser.parse(written) else {
            fuzzFailure("the writer produced JSON the parser rejects: \(String(decoding: written, as: UTF8.self))")
        }
        guard again == value else { fuzzFailure("round trip changed the value") }
    }
    return 0
}
