// Harness: the HTTP/1.x request parser, on arbitrary bytes, whole and split.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    // The first byte picks how the rest is split into reads.
    let pieceSize = Int(data[0] % 8) + 1
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    checkSplitsAgree(bytes, pieceSize: pieceSize)
    return 0
}
