import Foundation
import MockHTTP

/// `--healthcheck [URL]`: for Docker's HEALTHCHECK in an image without curl.
enum Healthcheck {
    /// The flags that, given to `--healthcheck` itself, say which server to ask.
    static let addressFlags: Set<String> = ["--host", "--port", "--admin-token"]

    /// 0 when the server answers `/_mock/health` with status ok, 1 otherwise. Which server: the URL;
    /// else `--host`/`--port`/`--admin-token` given with `--healthcheck`; else the health file's;
    /// else, with no file (a read-only container), PID 1's; else 127.0.0.1 at `PORT` with `MOCK_ADMIN_TOKEN`.
    static func run(url: String?, options: Options, environment: [String: String]) -> Int32 {
        if let url { return probe(url: url, adminToken: options.adminToken) }
        if options.givenFlags.isDisjoint(with: addressFlags) {
            let path = HealthFile.path(environment: environment)
            switch HealthFile.read(path) {
            case .found(let file):
                return probe(host: file.host, port: file.port, adminToken: file.adminToken)
            case .serverGone(let pid):
                print("unhealthy: the server that wrote \(path) (process \(pid)) is not running")
                return 1
            case .unusable(let reason):
                FileHandle.standardError.write(Data("mock-backend: --healthcheck: \(path) ignored: \(reason)\n".utf8))
            case .missing:
                break
            }
            if let server = ContainerServer.find() {
                return probe(host: server.host, port: server.port, adminToken: server.adminToken)
            }
        }
        return probe(host: HealthFile.loopback(listening: options.host), port: options.port, adminToken: options.adminToken)
    }

    private static func probe(url: String, adminToken: String?) -> Int32 {
        guard let components = URLComponents(string: url), var host = components.host else {
            FileHandle.standardError.write(Data("mock-backend: --healthcheck: cannot read URL \(url)\n".utf8))
            return 1
        }
        // `[::1]`: Linux's Foundation keeps an IPv6 address's brackets in `host`, Apple's drops them.
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        return probe(host: host, port: components.port ?? 80,
                     path: base.hasSuffix("/_mock/health") ? base : base + "/_mock/health", adminToken: adminToken)
    }

    private static func probe(host: String, port: Int, path: String = "/_mock/health", adminToken: String?) -> Int32 {
        do {
            let client = try BlockingClient(host: host, port: port, timeout: 5)
            let token = adminToken.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            client.send("GET \(path) HTTP/1.1\r\nHost: \(authority)\r\n\(token)Connection: close\r\n\r\n")
            let response = try client.readResponse()
            if response.status == 200 && response.text.contains("\"status\":\"ok\"") {
                print("healthy: \(response.text)")
                return 0
            }
            print("unhealthy: HTTP \(response.status) \(response.text)")
        } catch {
            print("unhealthy: \(host) port \(port): \(error)")
        }
        return 1
    }
}

/// Where a running server leaves its health address and admin token for `--healthcheck` without
/// flags: Docker's HEALTHCHECK runs the program anew without the flags given after the image name
/// (`--port 9000 --admin-token T`), so only the server knows them. It holds the token, so it is
/// private (mode 0600) and read only when private and the reader's own. The last server started
/// wins; a server that stops removes it if it is still its own.
struct HealthFile: Codable, Equatable {
    var pid: Int32
    var host: String
    var port: Int
    var adminToken: String?

    enum Reading {
        case found(HealthFile)
        case missing
        case serverGone(pid: Int32)
        case unusable(String)
    }

    static func path(environment: [String: String]) -> String {
        if let path = environment["MOCK_HEALTH_FILE"], !path.isEmpty { return path }
        let folder = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return URL(fileURLWithPath: folder).appendingPathComponent("mock-backend-\(getuid()).health").path
    }

    /// The address a client on this machine dials for a server listening on `host` (nil: everywhere).
    static func loopback(listening host: String?) -> String {
        switch host {
        case nil, "0.0.0.0": return "127.0.0.1"
        case "::": return "::1"
        case let host?: return host
        }
    }

    /// Written to a new private file beside `path`, then renamed over it: a reader sees the old
    /// file or the new one, and the token is never in a file anyone else could open. Fails (and
    /// leaves `path` alone) when `path` belongs to another user in a sticky folder like /tmp.
    func write(to path: String) throws(FileProblem) {
        let temporary = path + ".\(pid).new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileProblem(call: "open", path: temporary, errno: errno) }
        let bytes = Array((try? JSONEncoder().encode(self)) ?? Data())
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        close(fd)
        guard written == bytes.count else {
            unlink(temporary)
            throw FileProblem(call: "write", path: temporary, errno: writeError)
        }
        guard rename(temporary, path) == 0 else {
            let renameError = errno
            unlink(temporary)
            throw FileProblem(call: "rename", path: path, errno: renameError)
        }
    }

    static func read(_ path: String) -> Reading {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            return errno == ENOENT ? .missing : .unusable(String(cString: strerror(errno)))
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var status = stat()
        guard fstat(fd, &status) == 0, Int(status.st_mode) & Int(S_IFMT) == Int(S_IFREG) else {
            return .unusable("not a regular file")
        }
        // Anyone who could write it could send the health check (and its token) elsewhere.
        guard status.st_uid == getuid(), Int(status.st_mode) & 0o077 == 0 else {
            return .unusable("it must belong to this user and be private to it (mode 0600)")
        }
        guard let data = try? handle.readToEnd(), let file = try? JSONDecoder().decode(HealthFile.self, from: data) else {
            return .unusable("not a health file")
        }
        if kill(file.pid, 0) != 0 && errno == ESRCH { return .serverGone(pid: file.pid) }
        return .found(file)
    }

    /// Only if this process wrote it: another server may have replaced it.
    static func remove(_ path: String) {
        if case .found(let file) = read(path), file.pid == getpid() { unlink(path) }
    }

    struct FileProblem: Error, CustomStringConvertible {
        var call: String
        var path: String
        var errno: Int32
        var description: String { "\(path): \(call) failed: \(String(cString: strerror(errno)))" }
    }
}

/// The server of a container, found without a file: in the image it is PID 1 (the ENTRYPOINT), and
/// `/proc/1` shows its command line, its environment and its listening socket to a health check of
/// the same user, so the health check needs no writable file system (`docker run --read-only`).
enum ContainerServer {
    static func find() -> (host: String, port: Int, adminToken: String?)? {
        #if os(Linux)
        guard isThisProgram(pid: 1), let arguments = nulSeparated("/proc/1/cmdline"), !arguments.isEmpty else { return nil }
        // Unreadable when the server runs as another user; Docker gives the check the container's own.
        let environment = nulSeparated("/proc/1/environ").map(variables) ?? ProcessInfo.processInfo.environment
        guard let options = try? Options(arguments: Array(arguments.dropFirst()), environment: environment),
              options.healthcheck == nil else { return nil }
        return (HealthFile.loopback(listening: options.host), listeningPort(pid: 1) ?? options.port, options.adminToken)
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The same executable file as this process's, by device and inode.
    private static func isThisProgram(pid: Int32) -> Bool {
        var mine = stat(), theirs = stat()
        return stat("/proc/self/exe", &mine) == 0 && stat("/proc/\(pid)/exe", &theirs) == 0
            && mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    private static func nulSeparated(_ path: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    private static func variables(_ entries: [String]) -> [String: String] {
        let pairs = entries.compactMap { entry in
            entry.firstIndex(of: "=").map { (String(entry[..<$0]), String(entry[entry.index(after: $0)...])) }
        }
        return Dictionary(pairs, uniquingKeysWith: { $1 })
    }

    /// The port of a TCP socket the process listens on (the one `--port 0` picked): its
    /// descriptors name socket inodes, and /proc/PID/net/tcp and tcp6 list the listening ones
    /// (state 0A) with their inode and local address.
    private static func listeningPort(pid: Int32) -> Int? {
        let folder = "/proc/\(pid)/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var inodes: Set<Substring> = []
        for descriptor in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(descriptor)"),
                  target.hasPrefix("socket:[") else { continue }
            inodes.insert(Substring(target.dropFirst("socket:[".count).dropLast()))
        }
        for table in ["tcp", "tcp6"] {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A", inodes.contains(fields[9]),
                      let colon = fields[1].lastIndex(of: ":"), let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16)
                else { continue }
                return port
            }
        }
        return nil
    }
    #endif
}
