import Foundation
import MockHTTP
import MockApp
import MockKit

/// The start-up banner: version, addresses, each API's base URL and its seeded accounts.
enum Banner {
    static func print(server: HTTPServer, apis: [any MockAPI], seed: SeedDirectory, stubs: StubSet, options: Options,
                      addresses: ServerAddresses) {
        let port = server.port
        var lines = ["mock-backend \(MockBackend.version)"]
        if let host = options.host {
            lines.append("listening on \(host):\(port)")
        } else {
            lines.append("listening on port \(port), all interfaces (\(server.isDualStack ? "IPv4 and IPv6" : "IPv4"))")
        }
        let (addressLines, local) = self.addressLines(port: port, addresses)
        lines += addressLines
        lines.append("  seed:              \(seed.url.path)")
        if options.watch {
            lines.append("  watching:          seed and stub files, checked every \(Int(SeedWatcher.defaultInterval)) s (--watch)")
        }
        if let folder = stubs.folder {
            lines.append("  stubs:             \(folder.path) (\(stubs.count) matched before the APIs)")
        }
        lines.append("  control:           \(local)/  and  \(local)/_mock/health")
        lines.append("")
        for api in apis {
            let summary = api.summary
            lines.append("\(api.name.padding(toLength: 15, withPad: " ", startingAt: 0)) \(summary.title)")
            lines.append("    base URL  " + summary.basePaths.map { local + $0 }.joined(separator: "  or  "))
            lines += wrapped(api.endpoints, first: "    endpoints ", rest: "              ")
            if let note = summary.note { lines.append("    \(note)") }
            for account in summary.accounts {
                let login = account.password.map { "\(account.login) / \($0)" } ?? account.login
                lines.append("    account   \(login)" + (account.detail.isEmpty ? "" : "  (\(account.detail))"))
            }
            if summary.unlistedAccounts > 0 { lines.append("    … and \(summary.unlistedAccounts) more accounts in the seed") }
        }
        lines.append("")
        lines.append(options.quiet ? "Request log off (--quiet). Ctrl-C stops." : "One line per request follows. Ctrl-C stops.")
        Console.standard.write(lines.joined(separator: "\n"))
    }

    /// Where clients reach the server, and the origin of every base URL printed after them: the
    /// public URL when given; in a container without one, placeholders, since the host's address
    /// and published port cannot be seen from inside; otherwise this machine's addresses.
    private static func addressLines(port: Int, _ addresses: ServerAddresses) -> (lines: [String], origin: String) {
        let emulator = "  Android emulator:  http://10.0.2.2:\(port)"
        if let publicURL = addresses.publicURL {
            let shown = "  public URL:        \(publicURL.origin)"
            // In a container, localhost and the port are the container's own: only the public URL holds.
            let lines = addresses.inContainer ? [shown] : ["  this machine:      http://localhost:\(port)", shown, emulator]
            return (lines, publicURL.origin)
        }
        if addresses.inContainer {
            return ([
                "  address:           unknown inside a container: use the Docker host's address and the port published",
                "                     with -p <host-port>:\(port) (http://localhost:<host-port> on the host itself,",
                "                     http://10.0.2.2:<host-port> in the Android emulator). To show it here and on the",
                "                     index page: \(ServerAddresses.publicURLAdvice)",
            ], "http://<host>:<host-port>")
        }
        let local = "http://localhost:\(port)"
        let network = addresses.sameNetwork.map { "  same network:      http://\($0):\(port)" }
        return (["  this machine:      \(local)"] + network + [emulator], local)
    }

    /// The items joined by commas in lines of at most 100 characters.
    private static func wrapped(_ items: [String], first: String, rest: String) -> [String] {
        var lines: [String] = []
        var line = first
        for (index, item) in items.enumerated() {
            let piece = item + (index == items.count - 1 ? "" : ",")
            if line != first && line.count + 1 + piece.count > 100 {
                lines.append(line)
                line = rest + piece
            } else {
                line += (line == first ? "" : " ") + piece
            }
        }
        return lines + [line]
    }
}
