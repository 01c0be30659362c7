import Foundation
import MockHTTP
import MockSupport

/// The index page's "Last requests": rendered with the page, then kept live by a small inline
/// script that asks `/_mock/requests?after=ID` every second (docs/admin.md#the-live-journal).
/// Where the admin token is needed the script asks for it; the page itself never holds it.
extension IndexPage {
    /// How often the script asks for new entries, and how long it waits after a failure.
    static let pollMilliseconds = 1000
    static let retryMilliseconds = 3000

    var requestsSection: String {
        guard let mode = liveMode else {
            return """
            <section class="card" id="requests">
            <h2>Last requests</h2>
            \(requestsBody)
            </section>
            """
        }
        return """
        <section class="card" id="requests" data-journal="\(mode)" data-limit="\(Self.requestLimit)" \
        data-poll-ms="\(Self.pollMilliseconds)" data-retry-ms="\(Self.retryMilliseconds)">
        <h2>Last requests <span class="tag live" id="journal-live" hidden>live</span></h2>
        <form id="journal-token" class="controls" hidden>
        <label>admin token <input name="token" type="password" autocomplete="off" spellcheck="false" required></label>
        <button type="submit">show the requests</button>
        <p class="problem" id="journal-problem" role="alert"></p>
        </form>
        \(filterForm)
        <div id="journal-rows">
        \(requestsBody)
        </div>
        <p class="muted" id="journal-note"\(mode == "token" ? " hidden" : "")>Newest first, the last \(Self.requestLimit) at \
        most, new ones as they come; all of them, with headers and bodies, at <a href="/_mock/requests">/_mock/requests</a>. \
        <span id="journal-state"></span></p>
        </section>
        <script>\(Self.journalScript)</script>
        """
    }

    /// `live` when the caller may read the journal as it is, `token` when the admin token would let it;
    /// nil when the script has nothing to do.
    private var liveMode: String? {
        switch requests {
        case .shown: "live"
        case .needsToken: "token"
        case .off, .loopbackOnly, .closed: nil
        }
    }

    /// The journal's own filters (`api`, `method`, `path`, `status`), named as its query parameters.
    private var filterForm: String {
        let apiNames = apis.map(\.name) + (stubs.isEmpty ? [] : [StubSet.name])
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TLS"]
        func select(_ label: String, _ name: String, _ values: [String]) -> String {
            let options = values.map { "<option>\(HTML.escape($0))</option>" }.joined()
            return "<label>\(label) <select name=\"\(name)\"><option value=\"\">any</option>\(options)</select></label>"
        }
        return """
        <form id="journal-filters" class="controls" hidden>
        \(select("API", "api", apiNames))
        \(select("method", "method", methods))
        <label>path starts with <input name="path" type="search" placeholder="/api/" autocomplete="off" spellcheck="false"></label>
        \(select("status", "status", ["2xx", "3xx", "4xx", "5xx"]))
        <button type="button" id="journal-forget" hidden>forget the token</button>
        </form>
        """
    }

    private var requestsBody: String {
        switch requests {
        case .off:
            return "<p class=\"muted\">The request journal is off (<code>--journal 0</code>).</p>"
        case .needsToken:
            return """
            <p class="muted">Requests carry tokens and passwords, so they are shown only with the admin token the \
            server was started with (<code>--admin-token</code>, <code>MOCK_ADMIN_TOKEN</code>): type it once above; \
            this browser tab keeps it until it is closed. Tools ask <code>/_mock/requests</code> with \
            <code>Authorization: Bearer &lt;token&gt;</code>.</p>
            """
        case .loopbackOnly:
            return """
            <p class="muted">Shown only on the machine that runs the server (open this page there as \
            <code>http://localhost\(HTML.escape(authority.portSuffix))/</code>), because requests carry tokens and passwords.</p>
            """
        case .closed:
            return """
            <p class="muted">Shown to nobody: the server was started with <code>--admin-require-token</code> and no \
            <code>--admin-token</code>.</p>
            """
        case .shown(let entries) where entries.isEmpty:
            return "<p class=\"muted\">No requests yet. Point an app at a base URL above; its requests appear here.</p>"
        case .shown(let entries):
            return """
            <div class="scroll"><table class="grid requests">
            <thead><tr><th>time (\(HTML.escape(zoneName)))</th><th>method</th><th>path</th><th>status</th><th>API</th>\
            <th>reason</th></tr></thead>
            <tbody>\(entries.map(requestRow).joined(separator: "\n"))</tbody>
            </table></div>
            """
        }
    }

    /// One row; the script builds the same cells for the entries that come later.
    private func requestRow(_ entry: Journal.Entry) -> String {
        let target = entry.query.isEmpty ? entry.path : entry.path + "?" + entry.query
        return "<tr class=\"entry \(Self.outcome(status: entry.status, reason: entry.reason))\"><td>\(clockTime(entry.at))</td>"
            + "<td>\(HTML.escape(entry.method))</td>"
            + "<td class=\"path\"><code>\(HTML.escape(target))</code></td>"
            + "<td class=\"status s\((entry.status ?? 500) / 100)\">\(entry.status.map(String.init) ?? "none")</td>"
            + "<td>\(HTML.escape(entry.api ?? "—"))</td><td class=\"reason\">\(HTML.escape(entry.reason ?? ""))</td></tr>"
    }

    /// A row's colour: `error` for a status of 400 or more, no answer, or an API's error answered
    /// with 200 (its reason gives it away; a stub sequence's note does not); `fault` for a fault
    /// injected into an answer that is no error; else `ok`. The script's `outcome` is the same rule.
    static func outcome(status: Int?, reason: String?) -> String {
        guard let status, status < 400 else { return "error" }
        guard let reason, !reason.hasPrefix(StubMatch.sequenceNote) else { return "ok" }
        return reason.hasPrefix("injected fault") ? "fault" : "error"
    }

    private var zoneName: String {
        timeZone.secondsFromGMT() == 0 ? "UTC" : timeZone.abbreviation() ?? timeZone.identifier
    }

    /// `14:03:27` in the server's time zone.
    private func clockTime(_ date: Date) -> String {
        let local = CivilTime(unixSeconds: Int(date.timeIntervalSince1970) + timeZone.secondsFromGMT(for: date))
        return String(format: "%02d:%02d:%02d", local.hour, local.minute, local.second)
    }
}
