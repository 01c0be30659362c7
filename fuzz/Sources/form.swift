// Harness: urlencoded forms and percent-decoding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let kept = FormDecoding.pairs(bytes, malformed: .keepLiteral)
    let strict = FormDecoding.pairs(bytes, malformed: .dropPair)
    // Dropping malformed pairs can only lose pairs, never invent them.
    guard strict.count <= kept.count else { fuzzFailure("dropPair gave more pairs than keepLiteral") }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = FormDecoding.percentDecode(text, plusAsSpace: true)
    _ = FormDecoding.percentDecode(text, plusAsSpace: false)
    return 0
}
