import AnchorData
import Foundation
import Hummingbird

// Hummingbird 2 the way its documentation builds an app: a Router, Codable answers encoded by the
// request context's JSONEncoder, and the big read-only products answer kept as one ByteBuffer.
extension ThreadList: ResponseEncodable {}
extension Health: ResponseEncodable {}

let data: AnchorData
do {
    data = try AnchorData()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
let productsBody = ByteBuffer(bytes: data.productsBody)

let router = Router()
router.get("/api/threads") { request, _ -> ThreadList in
    guard data.user(authorization: request.headers[.authorization]) != nil else { throw HTTPError(.unauthorized) }
    return data.threadList()
}
router.get("/products") { request, _ -> Response in
    guard let token = request.uri.queryParameters.get("loginToken"), data.productTokens.contains(token) else {
        throw HTTPError(.unauthorized)
    }
    return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: productsBody))
}
router.get("/_mock/health") { _, _ -> Health in data.health() }

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: data.port)))
try await app.runService()
