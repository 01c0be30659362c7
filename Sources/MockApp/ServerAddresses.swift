import Foundation
import MockHTTP

/// `--public-url`: the address other devices use (docs/admin.md#addresses). Scheme, host and port
/// only: the apps add their own paths, which the server answers at its root.
public struct PublicURL: Equatable, Sendable {
    /// `http://192.168.1.20:9000`, scheme and host in lower case, no trailing slash.
    public let origin: String
    public let isHTTPS: Bool

    public struct Invalid: Error, Equatable {
        public var reason: String
    }

    public init(parsing text: String) throws(Invalid) {
        let lowered = text.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else {
            throw Invalid(reason: "it must start with http:// or https://")
        }
        var rest = text.dropFirst(scheme.count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains(where: { "/?#".contains($0) }) else {
            throw Invalid(reason: "no path, query or fragment: the apps add their own paths")
        }
        guard !rest.contains("@") else { throw Invalid(reason: "no user name or password") }
        let host: Substring, port: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw Invalid(reason: "an IPv6 address needs its closing ]") }
            host = rest[...close]
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw Invalid(reason: "only :PORT may follow the host") }
            port = after.isEmpty ? nil : after.dropFirst()
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.count > 2 else {
                throw Invalid(reason: "the IPv6 address in brackets is malformed")
            }
        } else {
            let colon = rest.firstIndex(of: ":")
            host = rest[..<(colon ?? rest.endIndex)]
            port = colon.map { rest[rest.index(after: $0)...] }
            guard !host.isEmpty else { throw Invalid(reason: "the host is missing") }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }),
                  !host.hasPrefix("."), !host.hasPrefix("-") else {
                throw Invalid(reason: "the host may hold only letters, digits, dots and hyphens (or be an IPv6 address in brackets)")
            }
        }
        if let port {
            guard port.count <= 5, port.allSatisfy(\.isASCII), let number = Int(port), (1...65_535).contains(number) else {
                throw Invalid(reason: "the port must be a number from 1 to 65535")
            }
        }
        origin = scheme + host.lowercased() + (port.map { ":\(Int($0)!)" } ?? "")
        isHTTPS = scheme == "https://"
    }
}

/// Whether this process runs in a container, where its own addresses and port are not the ones
/// clients use: those belong to the host, which the container cannot see.
public enum ContainerDetection {
    /// `MOCK_IN_CONTAINER` decides when set (1/true/yes or 0/false/no): for a runtime the signs below
    /// miss, or to run a test as if in one. Otherwise: Docker's `/.dockerenv`, Podman's
    /// `/run/.containerenv`, the `container` variable systemd-nspawn and Podman set, a Kubernetes
    /// pod's `KUBERNETES_SERVICE_HOST`, or a container runtime named in `/proc/1/cgroup` (cgroup v1).
    public static func isContainer(environment: [String: String], fileExists: (String) -> Bool = FileManager.default.fileExists,
                                   readFile: (String) -> String? = { try? String(contentsOfFile: $0, encoding: .utf8) }) -> Bool {
        if let override = environment["MOCK_IN_CONTAINER"]?.lowercased(), !override.isEmpty {
            return !["0", "false", "no"].contains(override)
        }
        if fileExists("/.dockerenv") || fileExists("/run/.containerenv") { return true }
        if !(environment["container"] ?? "").isEmpty || !(environment["KUBERNETES_SERVICE_HOST"] ?? "").isEmpty { return true }
        let cgroup = readFile("/proc/1/cgroup") ?? ""
        return ["docker", "kubepods", "containerd", "libpod", "lxc"].contains { cgroup.contains($0) }
    }
}

/// What the banner, the index page and the https hint offer as this server's address
/// (docs/admin.md#addresses).
public struct ServerAddresses: Sendable {
    public var publicURL: PublicURL?
    public var inContainer: Bool
    /// The interfaces to pick same-network addresses from, read at each use; tests pass a fixed list.
    public var interfaces: @Sendable () -> [NetworkInterface]

    public init(publicURL: PublicURL? = nil, inContainer: Bool = false,
                interfaces: @escaping @Sendable () -> [NetworkInterface] = NetworkInterface.all) {
        self.publicURL = publicURL
        self.inContainer = inContainer
        self.interfaces = interfaces
    }

    public static let publicURLAdvice = "-e MOCK_PUBLIC_URL=http://<host-ip>:<host-port>"

    /// Addresses for a phone on the same network: none beside a public URL (it says where to go), none
    /// in a container (they would be the container's own, unreachable from the host's network).
    public var sameNetwork: [String] {
        publicURL == nil && !inContainer ? SameNetwork.addresses(interfaces()) : []
    }

    /// Where an https client on the http port should go instead: `serverName` is the name it asked
    /// for (TLS server_name), `port` the one this server listens on.
    func plainHTTPAddress(serverName: String?, port: Int) -> String {
        if let publicURL { return publicURL.origin }
        // Inside a container the listening port is the container's; the host's is the one published.
        return "http://\(serverName ?? "HOST"):" + (inContainer ? "<host-port>" : "\(port)")
    }
}
