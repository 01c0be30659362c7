import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport

/// The start-up banner: version, addresses, each API's base URL and its seeded accounts.
enum Banner {
    /// Where clients reach the server: a name (`this machine`) and an address, or advice.
    private typealias Address = (name: String, value: String)

    static func print(server: HTTPServer, apis: [any MockAPI], seed: SeedDirectory, stubs: StubSet, options: Options,
                      addresses: ServerAddresses) {
        let (shown, origin) = self.addresses(port: server.port, addresses)
        if Console.standard.writesJSONLines {
            Console.standard.writeRecord(startEvent(server: server, apis: apis, seed: seed, stubs: stubs, options: options,
                                                    addresses: shown, origin: origin))
        } else {
            Console.standard.write(text(server: server, apis: apis, seed: seed, stubs: stubs, options: options,
                                        addresses: shown, origin: origin))
        }
    }

    private static func text(server: HTTPServer, apis: [any MockAPI], seed: SeedDirectory, stubs: StubSet, options: Options,
                             addresses: [Address], origin local: String) -> String {
        let port = server.port
        var lines = ["mock-backend \(MockBackend.version)"]
        if let host = options.host {
            lines.append("listening on \(host):\(port)")
        } else {
            lines.append("listening on port \(port), all interfaces (\(families(server)))")
        }
        for address in addresses {
            let label = "  " + (address.name + ":").padding(toLength: 19, withPad: " ", startingAt: 0)
            lines.append(label + address.value.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: label.count)))
        }
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
        return lines.joined(separator: "\n")
    }

    /// The banner as one `{"event":"start",…}` line (`--log-format json`), for a program to read.
    private static func startEvent(server: HTTPServer, apis: [any MockAPI], seed: SeedDirectory, stubs: StubSet,
                                   options: Options, addresses: [Address], origin: String) -> String {
        var event = ConsoleEvent("start")
        event.string("version", MockBackend.version)
        event.string("host", options.host)
        event.int("port", server.port)
        if options.host == nil { event.string("families", families(server)) }
        var shown = JSONWriter(escapeSlash: false)
        shown.beginArray()
        for address in addresses {
            let value = address.value.replacingOccurrences(of: "\n", with: " ")
            shown.object([("name", address.name), ("address", value)])
        }
        shown.endArray()
        event.raw("addresses", shown.bytes)
        event.string("seed", seed.url.path)
        event.bool("watching", options.watch)
        event.string("stubs", stubs.folder?.path)
        event.string("control", origin + "/")
        var listed = JSONWriter(escapeSlash: false)
        listed.beginArray()
        for api in apis {
            let summary = api.summary
            listed.beginObject()
            listed.member("name", api.name)
            listed.member("title", summary.title)
            listed.member("base_urls", summary.basePaths.map { origin + $0 })
            listed.member("endpoints", api.endpoints)
            if let note = summary.note { listed.member("note", note) }
            listed.key("accounts"); listed.beginArray()
            for account in summary.accounts {
                listed.beginObject()
                listed.member("login", account.login)
                if let password = account.password { listed.member("password", password) }
                if !account.detail.isEmpty { listed.member("detail", account.detail) }
                listed.endObject()
            }
            listed.endArray()
            listed.member("more_accounts", summary.unlistedAccounts)
            listed.endObject()
        }
        listed.endArray()
        event.raw("apis", listed.bytes)
        event.bool("request_log", !options.quiet)
        return event.line
    }

    private static func families(_ server: HTTPServer) -> String {
        server.isDualStack ? "IPv4 and IPv6" : "IPv4"
    }

    /// Where clients reach the server, and the origin of every base URL printed after them; in a
    /// container without a public URL, placeholders: the host's address and port cannot be seen.
    private static func addresses(port: Int, _ addresses: ServerAddresses) -> (addresses: [Address], origin: String) {
        let emulator: Address = ("Android emulator", "http://10.0.2.2:\(port)")
        if let publicURL = addresses.publicURL {
            let shown: Address = ("public URL", publicURL.origin)
            // In a container, localhost and the port are the container's own: only the public URL holds.
            let all: [Address] = addresses.inContainer ? [shown] : [("this machine", "http://localhost:\(port)"), shown, emulator]
            return (all, publicURL.origin)
        }
        if addresses.inContainer {
            let advice = "unknown inside a container: use the Docker host's address and the port published\n"
                + "with -p <host-port>:\(port) (http://localhost:<host-port> on the host itself,\n"
                + "http://10.0.2.2:<host-port> in the Android emulator). To show it here and on the\n"
                + "index page: \(ServerAddresses.publicURLAdvice)"
            return ([("address", advice)], "http://<host>:<host-port>")
        }
        let local = "http://localhost:\(port)"
        var all: [Address] = [("this machine", local)]
        for address in addresses.sameNetwork { all.append(("same network", "http://\(address):\(port)")) }
        all.append(emulator)
        return (all, local)
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
