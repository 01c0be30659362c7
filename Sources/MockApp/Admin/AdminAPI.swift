import Foundation
import MockHTTP
import MockKit
import MockSupport

/// The control surface of docs/admin.md (a section there per route below): `/` and `/_mock/…`, for
/// the people who run the mock. Only loopback callers may use `/_mock/…`, or, with `--admin-token`,
/// callers that present the token; the index page is public but shows the last requests only to them.
final class AdminAPI: Sendable {
    static let name = "admin"

    private let apis: [any MockAPI]
    private let settings: AppSettings
    private let journal: Journal
    private let faults: Locked<Faults>
    private let stubs: StubSet
    private let startedAt: Date

    init(apis: [any MockAPI], settings: AppSettings, journal: Journal, faults: Locked<Faults>, stubs: StubSet,
         startedAt: Date) {
        self.apis = apis
        self.settings = settings
        self.journal = journal
        self.faults = faults
        self.stubs = stubs
        self.startedAt = startedAt
    }

    var routes: RouteGroup {
        RouteGroup(name: Self.name, routes: [
            Route([.get, .head], "/", indexPage),
            Route([.get, .head], "/_mock/health", guarded(health)),
            Route(.post, "/_mock/reset", guarded(resetAll)),
            Route(.post, "/_mock/reset/{api}", guarded(resetOne)),
            Route([.get, .head], "/_mock/state/{api}", guarded(exportState)),
            Route(.put, "/_mock/state/{api}", guarded(loadState)),
            Route([.get, .head], "/_mock/requests", guarded(listRequests)),
            Route([.get, .head], "/_mock/requests.har", guarded(exportHAR)),
            Route(.delete, "/_mock/requests", guarded(emptied { [journal] in journal.clear() })),
            Route([.get, .head], "/_mock/faults", guarded(showFaults)),
            Route(.put, "/_mock/faults", guarded(setFaults)),
            Route(.delete, "/_mock/faults", guarded(emptied { [faults] in faults.withLock { $0 = Faults() } })),
            Route([.get, .head], "/_mock/openapi/{file}", guarded(openAPI)),
            Route([.get, .head], "/_mock/stubs", guarded(listStubs)),
            Route(.put, "/_mock/stubs", guarded(addStubs)),
            Route(.delete, "/_mock/stubs", guarded(emptied { [stubs] in stubs.removeAdded() })),
        ] + (ClockEndpoints(clock: settings.clock).routes + apis.flatMap(\.adminRoutes)).map {
            Route($0.methods, $0.pattern, guarded($0.handler))
        },
        methodNotAllowed: { request in
            Response.json(405, ["error": "method_not_allowed", "detail": "\(request.method) is not served here"])
        })
    }

    static let preflightRefused = Response.json(405, ["error": "method_not_allowed", "detail": "no CORS on /_mock"])

    // MARK: Index page

    private func indexPage(_ request: Request) -> Response {
        let requests: IndexPage.Requests
        if Self.refusal(of: request, settings) != nil {
            requests = settings.adminToken != nil ? .needsToken : settings.trustsLoopback ? .loopbackOnly : .closed
        } else if journal.capacity == 0 {
            requests = .off
        } else {
            requests = .shown(journal.entries(limit: IndexPage.requestLimit).entries)
        }
        var page = IndexPage(version: MockBackend.version, uptime: Date().timeIntervalSince(startedAt),
                             authority: IndexPage.Authority(hostHeader: request.headers["Host"]),
                             sameNetworkAddresses: settings.addresses.sameNetwork,
                             publicURL: settings.addresses.publicURL, inContainer: settings.addresses.inContainer,
                             apis: apis, stubs: stubs.all, requests: requests, stateFile: settings.stateLog?.path)
        let clock = settings.clock.reading()
        page.standingClock = clock.standsStill ? clock.now : nil
        return .html(page.html)
    }

    // MARK: Health and reset

    /// 503 while the state file cannot store changes, so Docker's health check flags it; 200 with
    /// `state_file_not_compacting` while changes are stored but the log cannot be compacted.
    private func health(_ request: Request) -> Response {
        let log = settings.stateLog
        let (failure, counts, compactionError) = (log?.failureReason, log?.counts, log?.compactionFailureReason)
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        let status = failure != nil ? "state_file_failing" : compactionError != nil ? "state_file_not_compacting" : "ok"
        writer.member("status", status)
        writer.member("version", MockBackend.version)
        writer.key("uptime_s")
        writer.double((Date().timeIntervalSince(startedAt) * 10).rounded() / 10)
        writer.member("apis", apis.map(\.name))
        if let log, let counts {
            writer.key("state_file")
            writer.beginObject()
            writer.member("path", log.path)
            // False from a failed write until one succeeds.
            writer.member("stored", failure == nil)
            if let failure { writer.member("error", failure) }
            // Since start; fewer flushes than changes when changes came at once (group commit).
            writer.member("changes_stored", counts.records)
            writer.member("flushes", counts.flushes)
            // Why the log could not be compacted (it keeps every change and grows), until it can.
            if let compactionError { writer.member("compaction_error", compactionError) }
            writer.endObject()
        }
        writer.endObject()
        return .json(failure != nil ? 503 : 200, writer.bytes)
    }

    /// Stubs added at run time go too, and the clock reads as at the start.
    private func resetAll(_ request: Request) -> Response {
        stubs.reset()
        settings.clock.restart()
        return reset(apis)
    }

    private func resetOne(_ request: Request) -> Response {
        if request[parameter: "api"] == StubSet.name {
            stubs.reset()
            return .json(200, OrderedJSON.encode(["reset": [StubSet.name]], escapeSlash: false))
        }
        guard let api = api(request) else { return unknownAPI(request) }
        return reset([api])
    }

    private func reset(_ selected: [any MockAPI]) -> Response {
        for api in selected {
            settings.randomness.restart(api.name)
            api.reset()
        }
        return .json(200, OrderedJSON.encode(["reset": selected.map(\.name)], escapeSlash: false))
    }

    // MARK: State

    private func exportState(_ request: Request) -> Response {
        guard let api = api(request) else { return unknownAPI(request) }
        return .json(200, api.exportState())
    }

    private func loadState(_ request: Request) -> Response {
        guard let api = api(request) else { return unknownAPI(request) }
        do throws(SeedError) {
            try api.loadState(SeedJSON(request.body, maxDepth: 64))
        } catch {
            let detail = error.syntaxError == nil ? error.problem : "the body is not valid JSON"
            return Response.json(400, ["error": "invalid_state", "path": error.path, "detail": detail])
        }
        return Response.json(200, ["loaded": api.name])
    }

    // MARK: Journal

    private func listRequests(_ request: Request) -> Response {
        answerJournalQuery(request) { found in
            var response = Response.json(200, Journal.json(found.entries))
            // The array stays what it was; the count of every matching entry rides in a header.
            response.headers.add("X-Total-Count", String(found.matching))
            response.headers.add("X-Mock-Journal-Run", journal.run)
            return response
        }
    }

    /// The same entries as an HTTP Archive, oldest first (docs/admin.md#the-journal-as-har).
    private func exportHAR(_ request: Request) -> Response {
        answerJournalQuery(request) { found in
            var response = Response.json(200, HAR.document(found.entries, version: MockBackend.version))
            response.headers.add("Content-Disposition", #"attachment; filename="mock-backend.har""#)
            response.headers.add("X-Total-Count", String(found.matching))
            return response
        }
    }

    /// `answer` for the entries `limit`, the filters and `after` in the query select, or the 400 for a bad one.
    private func answerJournalQuery(_ request: Request,
                                    _ answer: ((entries: [Journal.Entry], matching: Int)) -> Response) -> Response {
        func refusal(_ error: String, _ detail: String) -> Response {
            Response.json(400, ["error": error, "detail": detail])
        }
        let query = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)
        var limit = 100
        if let text = FormDecoding.last("limit", in: query) {
            guard let number = Int(text), number >= 0 else { return refusal("invalid_limit", "limit must be a whole number, 0 or more") }
            limit = number
        }
        guard let filter = Journal.Filter(query: query) else {
            return refusal("invalid_status", "status must be a class such as 4xx or a status such as 404")
        }
        var after = 0
        if let text = FormDecoding.last("after", in: query) {
            guard let id = Int(text), id >= 0 else { return refusal("invalid_after", "after must be the id of an entry (0 or more)") }
            after = id
        }
        return answer(journal.entries(limit: limit, matching: filter, after: after))
    }

    /// A read of what came after an entry: the index page sends one every second while it is open.
    static func isJournalPoll(_ request: Request) -> Bool {
        request.method == "GET" && request.path == "/_mock/requests"
            && FormDecoding.last("after", in: FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .keepLiteral)) != nil
    }

    // MARK: Faults

    private func showFaults(_ request: Request) -> Response {
        .json(200, faults.withLock { $0 }.json)
    }

    private func setFaults(_ request: Request) -> Response {
        do throws(Faults.Invalid) {
            guard let document = try? JSONParser.parse(request.body) else {
                throw Faults.Invalid(detail: "the body must be a JSON object or an array of them")
            }
            let parsed = try Faults(document: document, served: apis.map(\.name) + [StubSet.name])
            faults.withLock { $0 = parsed }
            return .json(200, parsed.json)
        } catch {
            return Response.json(400, ["error": "invalid_faults", "detail": error.detail])
        }
    }

    // MARK: Stubs

    private func listStubs(_ request: Request) -> Response {
        .json(200, stubs.json(stubs.all))
    }

    private func addStubs(_ request: Request) -> Response {
        do throws(SeedError) {
            guard let document = try? JSONParser.parse(request.body, maxDepth: 64) else {
                throw SeedError(path: "$", problem: "the body is not valid JSON")
            }
            return .json(200, stubs.json(try stubs.add(document)))
        } catch {
            return Response.json(400, ["error": "invalid_stub", "path": error.path, "detail": error.problem])
        }
    }

    // MARK: OpenAPI

    private func openAPI(_ request: Request) -> Response {
        let file = request[parameter: "file"] ?? ""
        let name = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
        if name == StubSet.name { return .json(200, stubs.openAPIDocument) }
        guard let document = apis.first(where: { $0.name == name })?.openAPIDocument else {
            return Response.json(404, ["error": "unknown_api", "api": name])
        }
        return .json(200, document)
    }

    // MARK: Access and helpers

    private func api(_ request: Request) -> (any MockAPI)? {
        let name = request[parameter: "api"] ?? ""
        return apis.first { $0.name == name }
    }

    private func unknownAPI(_ request: Request) -> Response {
        Response.json(404, ["error": "unknown_api", "api": request[parameter: "api"] ?? ""])
    }

    /// The `DELETE` of the journal, the faults or the added stubs: 204 once `clear` has run.
    private func emptied(_ clear: @escaping @Sendable () -> Void) -> Handler {
        { _ in
            clear()
            return Response(status: 204)
        }
    }

    /// Loopback only, unless a token is configured: then the token, from anywhere.
    private func guarded(_ handler: @escaping @Sendable (Request) -> Response) -> Handler {
        { [settings] request in Self.refusal(of: request, settings) ?? handler(request) }
    }

    private static func forbidden(_ detail: String, explanation: String? = nil) -> Response {
        var response = Response.json(403, ["error": "forbidden", "detail": detail])
        response.explanation = explanation
        return response
    }

    /// Headers that proxies add (nginx, Apache, Caddy, Traefik, Envoy, Squid, standard RFC 7239):
    /// one of them on a loopback request means the real client is elsewhere.
    static let forwardingHeaders = ["Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-IP", "Via"]

    /// The 401 or 403 of a caller who may not use `/_mock/…`; nil for a loopback caller that is no
    /// proxy, without a configured token (unless loopback is not trusted), or any caller presenting
    /// the token. Behind a proxy every caller is loopback (docs/admin.md#who-may-call-it).
    static func refusal(of request: Request, _ settings: AppSettings) -> Response? {
        guard let adminToken = settings.adminToken else {
            guard settings.trustsLoopback else {
                return forbidden("/_mock is closed: --admin-require-token is set and no --admin-token")
            }
            guard request.peer.isLoopback else {
                return forbidden("/_mock is served to loopback clients only; start the server with --admin-token to allow others")
            }
            if let header = forwardingHeaders.first(where: request.headers.contains) {
                return forbidden("/_mock serves loopback callers only, and a request a proxy forwarded is not one (behind a "
                                     + "proxy every caller looks local); start the server with --admin-token and send the token",
                                 explanation: "the request carries \(header): a proxy forwarded it, so its loopback address "
                                     + "proves nothing")
            }
            return browserRefusal(of: request, publicURL: settings.addresses.publicURL)
        }
        if request.headers["X-Mock-Admin-Token"] == adminToken { return nil }
        if let value = request.headers["Authorization"], value.count > 7, value.prefix(7).lowercased() == "bearer ",
           value.dropFirst(7).trimmingCharacters(in: .whitespaces) == adminToken {
            return nil
        }
        return Response.json(401, ["error": "unauthorized",
                                   "detail": "send Authorization: Bearer <admin token> or X-Mock-Admin-Token"])
    }

    /// A browser on this machine is a loopback caller for every site it shows. A page of another site
    /// may send a form here (its `Origin` tells), or, once its name resolves to 127.0.0.1, read this
    /// port as its own (DNS rebinding: its name is in `Host`). Tools send no `Origin` and either no
    /// name or one a page cannot own.
    static func browserRefusal(of request: Request, publicURL: PublicURL?) -> Response? {
        let refused = "/_mock serves loopback callers only at localhost, an IP address or the --public-url host, and never "
            + "for web pages of other sites; start the server with --admin-token to allow others"
        let host = request.headers["Host"]?.lowercased()
        if let host, !isOwnHostName(hostName(of: Substring(host)), publicURL: publicURL) {
            return forbidden(refused, explanation: "Host \(host.prefix(100)) is not localhost, an IP address or the --public-url "
                                 + "host: perhaps a web page's own name made to point at this machine (DNS rebinding)")
        }
        if let origin = request.headers["Origin"],
           origin.lowercased() != host.map({ "http://" + $0 }) && origin.lowercased() != publicURL?.origin {
            return forbidden(refused,
                             explanation: "Origin \(origin.prefix(100)) is not this server's: a web page of another site sent it")
        }
        return nil
    }

    /// `localhost`, an IP address (`127.0.0.1`, `[::1]`) or the public URL's host: names no web page can own.
    private static func isOwnHostName(_ name: Substring, publicURL: PublicURL?) -> Bool {
        if name == "localhost" || name == publicURL.map({ hostName(of: $0.origin.drop { $0 != "/" }.dropFirst(2)) }) {
            return true
        }
        if name.hasPrefix("[") {
            // Only an IPv6 address goes in brackets.
            return name.hasSuffix("]") && name.count > 2 && name.dropFirst().dropLast().allSatisfy { $0.isHexDigit || ":.".contains($0) }
        }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }

    /// `host:port` or `[v6]:port` without the port.
    private static func hostName(of text: Substring) -> Substring {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return text[...close] }
        return text.prefix { $0 != ":" }
    }
}
