// Harness: WSUV Twitter's CGI.pm-style parameter reading. The first line is the Content-Type
// header (without `boundary=`, the body's own first line is the delimiter), the rest the body,
// read both as a multipart body (CGIMultipart.parameters) and as a form (CGIForm.firstValue).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCGI(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let newline = bytes.firstIndex(of: 10) ?? bytes.count
    let contentType = String(decoding: bytes[0..<newline], as: UTF8.self)
    let body = newline < bytes.count ? Array(bytes[(newline + 1)...]) : []
    var names: [[UInt8]] = []
    _ = CGIMultipart.parameters(body, contentType: contentType, hasContentLength: true) { name, value in
        if name.count > body.count || value.count > body.count { fuzzFailure("a multipart parameter is larger than the body") }
        names.append(Array(name))
    }
    // Every escape decodes to no more bytes than it was written with: a few names a script asks
    // for, and the names the multipart reading found.
    for name in [Array("username".utf8), Array("tweet".utf8), Array("a".utf8)] + names.prefix(4) {
        guard let value = CGIForm.firstValue(named: name, in: body) else { continue }
        guard value.count <= body.count else { fuzzFailure("a form value decoded to more bytes than the form had") }
    }
    return 0
}
