// Harness: multipart/form-data. The first line is the Content-Type header, the rest the body;
// a header without a usable boundary falls back to a fixed one so the body is still parsed.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let newline = bytes.firstIndex(of: 10) ?? bytes.count
    let contentType = String(decoding: bytes[0..<newline], as: UTF8.self)
    let body = newline < bytes.count ? Array(bytes[(newline + 1)...]) : []
    let boundary = Multipart.boundary(fromContentType: contentType) ?? "XyZ"
    if let parts = Multipart.parse(body, boundary: boundary) {
        for part in parts where part.body.count > body.count {
            fuzzFailure("a part is larger than the body")
        }
    }
    return 0
}
