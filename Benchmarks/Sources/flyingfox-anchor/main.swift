import AnchorData
import FlyingFox
import Foundation

// FlyingFox the way its README builds an app: closure routes, Codable answers through
// JSONEncoder, and the big read-only products answer kept as one Data.
let data: AnchorData
do {
    data = try AnchorData()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

func json(_ body: Data, extra: HTTPHeaders = [:]) -> HTTPResponse {
    var headers = extra
    headers[.contentType] = "application/json; charset=utf-8"
    return HTTPResponse(statusCode: .ok, headers: headers, body: body)
}

// A long timeout so idle keep-alive connections stay open as long as the other servers keep them.
let server = HTTPServer(config: .init(address: try .inet(ip4: "127.0.0.1", port: UInt16(data.port)), timeout: 600, logger: .disabled))
await server.appendRoute("GET /api/threads") { request in
    guard data.user(authorization: request.headers[.authorization]) != nil else { return HTTPResponse(statusCode: .unauthorized) }
    return json(try JSONEncoder().encode(data.threadList()))
}
await server.appendRoute("GET /products") { request in
    guard let token = request.query.first(where: { $0.name == "loginToken" })?.value, data.productTokens.contains(token) else {
        return HTTPResponse(statusCode: .unauthorized)
    }
    return json(data.productsBody, extra: [HTTPHeader("Cache-Control"): "no-cache"])
}
await server.appendRoute("GET /_mock/health") { _ in
    json(try JSONEncoder().encode(data.health()))
}
try await server.run()
