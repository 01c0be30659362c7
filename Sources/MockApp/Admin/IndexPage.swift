import Foundation
import MockHTTP
import MockKit

/// The HTML page at `/`, for a projector or a phone: self-contained (inline CSS and script) and
/// public, but the last requests (tokens, passwords) only for callers who may use `/_mock/…`.
/// Everything shown is gathered into this value first, so rendering is a plain function of it.
struct IndexPage {
    /// What the caller may see of the request journal.
    enum Requests {
        case shown([Journal.Entry])
        /// The journal is off (`--journal 0`).
        case off
        /// The caller may not use `/_mock/…` without the admin token, which the page asks for.
        case needsToken
        /// Only loopback callers may use `/_mock/…`, and this one is not.
        case loopbackOnly
        /// `--admin-require-token` without a token: nobody may.
        case closed
    }

    /// The `host[:port]` the browser used, from the `Host` header.
    struct Authority: Equatable {
        /// As sent (checked to hold only host-name characters), e.g. `192.168.1.20:8080` or `[::1]:8080`.
        var text: String
        /// The host without brackets or port, to recognise a LAN address the browser already used.
        var host: String
        /// `:8080`, or empty when the browser used the scheme's default port.
        var portSuffix: String

        init(hostHeader: String?) {
            let value = (hostHeader ?? "").trimmingCharacters(in: .whitespaces)
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_:[]"))
            let usable = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.isASCII && allowed.contains($0) }
            let text = usable ? value : "localhost:8080"
            let portStart: String.Index?
            if text.hasPrefix("[") {
                let close = text.firstIndex(of: "]") ?? text.endIndex
                host = String(text[text.index(after: text.startIndex)..<close])
                portStart = text[close...].hasPrefix("]:") ? text.index(after: close) : nil
            } else {
                portStart = text.firstIndex(of: ":")
                host = String(text[..<(portStart ?? text.endIndex)])
            }
            self.text = text
            portSuffix = portStart.map { String(text[$0...]) } ?? ""
        }
    }

    static let requestLimit = 20

    var version: String
    var uptime: TimeInterval
    var authority: Authority
    /// `ServerAddresses.sameNetwork`: none in a container or beside a public URL.
    var sameNetworkAddresses: [String]
    var publicURL: PublicURL?
    var inContainer = false
    var apis: [any MockAPI]
    var stubs: [Stub] = []
    var requests: Requests
    /// The `--state` file in use, nil when the state lives in memory only.
    var stateFile: String?
    /// The instant the clock stands at (`--clock`, `POST /_mock/clock`); nil while the wall clock runs.
    var standingClock: Date?
    var timeZone = TimeZone.current

    // MARK: Page

    /// The empty `data:` icon keeps browsers from asking for `/favicon.ico`, a 404 row in the journal.
    var html: String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>mock-backend \(escape(version))</title>
        <link rel="icon" href="data:,">
        <style>\(Self.style)</style>
        </head>
        <body>
        <main>
        \(header)
        \(apis.map(apiSection).joined(separator: "\n"))
        \(stubsSection)
        \(requestsSection)
        \(footer)
        </main>
        </body>
        </html>

        """
    }

    private var header: String {
        """
        <header>
        <h1>mock-backend</h1>
        <p class="meta">version <strong>\(escape(version))</strong> · up <strong>\(Self.duration(uptime))</strong> · \
        \(apis.count) API\(apis.count == 1 ? "" : "s") served · <a href="/">refresh</a></p>
        \(stateLine)
        \(clockLine)
        \(otherDevices)
        </header>
        """
    }

    /// Where changes are kept, and what reset returns to.
    private var stateLine: String {
        let kept = stateFile.map { "every change is stored in <code>\(escape($0))</code> before it is answered" }
            ?? "changes are kept in memory only (<code>--state FILE</code> keeps them across restarts)"
        return "<p class=\"meta\">State: \(kept); reset (<code>POST /_mock/reset</code>) returns to the seed files.</p>"
    }

    /// The clock when it stands still: every stamp, expiry and `Date` header reads it.
    private var clockLine: String {
        guard let standingClock else { return "" }
        return "<p class=\"meta\">Clock: stands still at <strong>\(ServerClock.text(standingClock))</strong> "
            + "(<code>POST /_mock/clock</code> moves it, <code>DELETE /_mock/clock</code> lets it run).</p>"
    }

    /// This page's address for a phone on the same network, when the browser used another one; in a
    /// container without a public URL, the admission that it is unknown here and how to make it known.
    private var otherDevices: String {
        if inContainer && publicURL == nil {
            return """
            <p class="meta">In a container: this server cannot see the host's address or the port published for it. \
            On a phone or another computer use the host's address and that port; start the container with \
            <code>\(escape(ServerAddresses.publicURLAdvice))</code> to show it here.</p>
            """
        }
        let origins = (publicURL.map { [$0.origin] } ?? lanOrigins).map { "<code>\(escape($0))/</code>" }
        guard !origins.isEmpty else { return "" }
        return "<p class=\"meta\">On a phone or another computer: \(origins.joined(separator: " or "))</p>"
    }

    // MARK: One API

    private func apiSection(_ api: any MockAPI) -> String {
        let summary = api.summary
        return """
        <section class="card api" id="\(escape(api.name))">
        <h2>\(escape(summary.title)) <span class="tag">\(escape(api.name))</span></h2>
        <div class="columns">
        <div>
        <h3>Base URL</h3>
        \(baseURLs(summary.basePaths))
        <p class="endpoints">\(escape(api.endpoints.joined(separator: ", ")))</p>
        \(summary.note.map { "<p class=\"note\">\(escape($0))</p>" } ?? "")
        \(api.openAPIDocument == nil ? "" : "<p><a href=\"/_mock/openapi/\(escape(api.name)).json\">OpenAPI document</a></p>")
        </div>
        <div>
        <h3>Accounts</h3>
        \(accountsTable(summary.accounts))\(summary.unlistedAccounts > 0 ? "\n<p class=\"muted\">… and \(summary.unlistedAccounts) more accounts in the seed.</p>" : "")
        </div>
        </div>
        </section>
        """
    }

    /// The usual base path at every address, then the other paths the API also answers on.
    private func baseURLs(_ paths: [String]) -> String {
        guard let usual = paths.first else { return "" }
        // The line may break between address and path, never inside either.
        let rows = servers.map { server in
            "<tr><th>\(escape(server.label))</th><td><code><span>\(escape(server.origin))</span><wbr>"
                + "<span>\(escape(usual))</span></code></td></tr>"
        }
        let others = paths.dropFirst().map { "<code>\(escape($0))</code>" }
        return """
        <table class="urls">\(rows.joined())</table>
        \(others.isEmpty ? "" : "<p class=\"also\">also answers under \(others.joined(separator: ", "))</p>")
        """
    }

    private func accountsTable(_ accounts: [APISummary.Account]) -> String {
        guard !accounts.isEmpty else { return "<p class=\"muted\">No accounts in the seed.</p>" }
        // Columns no account fills are left out (one-time codes have no password, WSUV no details).
        let hasPasswords = accounts.contains { $0.password != nil }
        let hasDetails = accounts.contains { !$0.detail.isEmpty }
        let rows = accounts.map { account in
            "<tr><td><code>\(escape(account.login))</code></td>"
                + (hasPasswords ? "<td><code>\(escape(account.password ?? "—"))</code></td>" : "")
                + (hasDetails ? "<td class=\"detail\">\(escape(account.detail))</td>" : "") + "</tr>"
        }
        return """
        <div class="scroll"><table class="grid accounts">
        <thead><tr><th>login</th>\(hasPasswords ? "<th>password</th>" : "")\(hasDetails ? "<th class=\"detail\">details</th>" : "")</tr></thead>
        <tbody>\(rows.joined(separator: "\n"))</tbody>
        </table></div>
        """
    }

    // MARK: Stubs

    /// Only when there are stubs; each one that answers in place of a course route says so.
    private var stubsSection: String {
        guard !stubs.isEmpty else { return "" }
        let rows = stubs.map { stub in
            let overrides = stub.overrides.isEmpty ? ""
                : "<br><span class=\"override\">overrides \(stub.overrides.map { "<code>\(escape($0))</code>" }.joined(separator: ", "))</span>"
            return "<tr><td><code>\(escape(stub.route.text))</code>\(overrides)</td><td>\(escape(stub.statusesText))</td>"
                + "<td class=\"detail\">\(escape(stub.source))</td></tr>"
        }
        return """
        <section class="card" id="stubs">
        <h2>Stubs <span class="tag">\(StubSet.name)</span></h2>
        <p class="note">Matched before every course API, first match wins. \
        <a href="/_mock/openapi/\(StubSet.name).json">OpenAPI document</a></p>
        <div class="scroll"><table class="grid">
        <thead><tr><th>route</th><th>status</th><th class="detail">from</th></tr></thead>
        <tbody>\(rows.joined(separator: "\n"))</tbody>
        </table></div>
        </section>
        """
    }

    private var footer: String {
        """
        <footer>
        <p>Every API's rules and how they differ from the original server: <code>docs/apis/&lt;api&gt;.md</code> \
        in the mock-backend repository. Control endpoints (reset, state, faults, journal) are under \
        <code>/_mock/</code>; start with <a href="/_mock/health">/_mock/health</a>.</p>
        </footer>
        """
    }

    // MARK: Helpers

    /// The browser's own address, the public URL or the machine's LAN addresses, the Android
    /// emulator's alias of the host.
    private var servers: [(label: String, origin: String)] {
        let browser = "http://\(authority.text)"
        var servers: [(label: String, origin: String)] = publicURL?.origin == browser.lowercased() ? [] : [("this browser", browser)]
        if let publicURL { servers.append(("public URL", publicURL.origin)) }
        servers += lanOrigins.map { ("same network", $0) }
        servers.append(("Android emulator", "http://10.0.2.2\(authority.portSuffix)"))
        return servers
    }

    /// The LAN addresses with the browser's port, except one the browser already used.
    private var lanOrigins: [String] {
        sameNetworkAddresses.filter { $0 != authority.host }.map { "http://\($0)\(authority.portSuffix)" }
    }

    /// `42 s`, `5 min 3 s`, `2 h 10 min`, `3 d 4 h`.
    static func duration(_ interval: TimeInterval) -> String {
        let seconds = max(0, Int(interval))
        let (days, hours, minutes) = (seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(seconds % 60) s" }
        return "\(seconds) s"
    }
}

/// Text made safe for HTML content and quoted attribute values.
enum HTML {
    static func escape(_ text: String) -> String {
        // By scalar, not Character: `<` followed by a combining mark is one Character but still a `<`.
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let entity = entities[scalar] { escaped += entity.unicodeScalars } else { escaped.append(scalar) }
        }
        return String(escaped)
    }

    private static let entities: [Unicode.Scalar: String] = [
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;",
    ]
}

private func escape(_ text: String) -> String { HTML.escape(text) }
