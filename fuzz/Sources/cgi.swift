// Harness: WSUV Twitter's CGI.pm-style parameter reading. The first line is the Content-Type
// header (CGIMultipart.boundary, falling back to a fixed boundary), the rest the body, read both
// as a multipart body (CGIMultipart.parameters) and as a form (CGIForm.pairs).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCGI(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let newline = bytes.firstIndex(of: 10) ?? bytes.count
    let contentType = String(decoding: bytes[0..<newline], as: UTF8.self)
    let body = newline < bytes.count ? Array(bytes[(newline + 1)...]) : []
    let boundary = CGIMultipart.boundary(in: contentType) ?? Array("XyZ".utf8)
    for parameter in CGIMultipart.parameters(body, boundary: boundary) ?? []
    where parameter.name.count > body.count || parameter.value.count > body.count {
        fuzzFailure("a multipart parameter is larger than the body")
    }
    // Every escape decodes to no more bytes than it was written with.
    let decoded = CGIForm.pairs(body).reduce(0) { $0 + $1.name.count + $1.value.count }
    guard decoded <= body.count else { fuzzFailure("a form decoded to more bytes than it had") }
    return 0
}
