// Harness: chunked framing, with the fuzz bytes as the body after a fixed chunked head.

private let chunkedHead = Array("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunked(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let pieceSize = Int(data[0] % 8) + 1
    let bytes = chunkedHead + Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    checkSplitsAgree(bytes, pieceSize: pieceSize)
    return 0
}
