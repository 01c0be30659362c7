// Harness: the JSON parser, and the writer on whatever it accepts (parse, write, parse again
// must give the same value).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
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
