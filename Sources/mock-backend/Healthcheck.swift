import Foundation
import MockHTTP

/// `--healthcheck [URL]`: for Docker's HEALTHCHECK in an image without curl.
enum Healthcheck {
    /// 0 when the server at `url` answers `/_mock/health` with status ok, 1 otherwise.
    static func run(url: String, adminToken: String?) -> Int32 {
        guard let components = URLComponents(string: url), let host = components.host else {
            FileHandle.standardError.write(Data("mock-backend: --healthcheck: cannot read URL \(url)\n".utf8))
            return 1
        }
        let port = components.port ?? 80
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        let path = base.hasSuffix("/_mock/health") ? base : base + "/_mock/health"
        do {
            let client = try BlockingClient(host: host, port: port, timeout: 5)
            let token = adminToken.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            client.send("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n\(token)Connection: close\r\n\r\n")
            let response = try client.readResponse()
            if response.status == 200 && response.text.contains("\"status\":\"ok\"") {
                print("healthy: \(response.text)")
                return 0
            }
            print("unhealthy: HTTP \(response.status) \(response.text)")
        } catch {
            print("unhealthy: \(error)")
        }
        return 1
    }
}
