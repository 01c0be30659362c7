import Foundation
import MockHTTP
import MockKit
import MockSupport

/// `/_mock/clock` (docs/admin.md#the-clock-and-random-values), under the admin access rule.
struct ClockEndpoints {
    let clock: ServerClock

    var routes: [Route] {
        [
            Route([.get, .head], "/_mock/clock", { [clock] _ in Self.shown(clock) }),
            Route(.post, "/_mock/clock", { [clock] request in Self.move(clock, request) }),
            Route(.delete, "/_mock/clock", { [clock] _ in
                clock.runWithWallClock()
                return Self.shown(clock)
            }),
        ]
    }

    /// `{"now":"2024-09-01T10:00:00Z","frozen":true}`
    private static func shown(_ clock: ServerClock) -> Response {
        let reading = clock.reading()
        var writer = JSONWriter(escapeSlash: false)
        writer.beginObject()
        writer.member("now", ServerClock.text(reading.now))
        writer.member("frozen", reading.standsStill)
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `{"advance_seconds":601}` or `{"set":"2025-01-01T00:00:00Z"}`: one of them.
    private static func move(_ clock: ServerClock, _ request: Request) -> Response {
        let usage = #"send {"advance_seconds":601} or {"set":"2025-01-01T00:00:00Z"}"#
        guard let document = try? JSONParser.parse(request.body), let object = document.objectValue else {
            return refused("the body must be a JSON object: " + usage)
        }
        if let unknown = object.keys.first(where: { $0 != "advance_seconds" && $0 != "set" }) {
            return refused("unknown field \(unknown): " + usage)
        }
        do throws(ServerClock.MoveError) {
            switch (object["advance_seconds"], object["set"]) {
            case let (seconds?, nil):
                guard let seconds = seconds.doubleValue else { return refused("advance_seconds must be a number") }
                try clock.advance(by: seconds)
            case let (nil, instant?):
                guard let text = instant.stringValue, let date = ServerClock.instant(text) else {
                    return refused("set must be an RFC 3339 instant such as 2025-01-01T00:00:00Z")
                }
                try clock.set(to: date)
            default:
                return refused(usage)
            }
        } catch {
            return refused(error.detail)
        }
        return shown(clock)
    }

    private static func refused(_ detail: String) -> Response {
        Response.json(400, ["error": "invalid_clock", "detail": detail])
    }
}
