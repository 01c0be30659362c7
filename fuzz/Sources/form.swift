// Harness: urlencoded forms and percent-decoding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let kept = FormDecoding.pairs(bytes, malformed: .keepLiteral, limit: .max)
    let strict = FormDecoding.pairs(bytes, malformed: .dropPair, limit: .max)
    // Dropping malformed pairs can only lose pairs, never invent them.
    guard strict.count <= kept.count else { fuzzFailure("dropPair gave more pairs than keepLiteral") }
    // The cap keeps the first pairs, as they are.
    let capped = FormDecoding.pairs(bytes, malformed: .keepLiteral, limit: 2)
    guard capped.elementsEqual(kept.prefix(2), by: { $0 == $1 }) else { fuzzFailure("the cap changed the first pairs") }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = FormDecoding.percentDecode(text, plusAsSpace: true)
    _ = FormDecoding.percentDecode(text, plusAsSpace: false)
    return 0
}
