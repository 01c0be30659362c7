import Foundation
import MockSupport

/// A response as bytes on the wire: status line, headers, `Date`, `Content-Length`, `Connection`
/// and the body. What changes the bytes of every answer (compression, ETag) belongs here.
/// One per event loop: the `Date` line it caches is not shared between threads.
final class ResponseEncoder {
    private let now: @Sendable () -> Date
    /// The `Date: …` header line, formatted once per second of `now`.
    private var dateLine: [UInt8] = []
    private var dateLineSecond = Int.min

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    struct Encoded {
        /// Status line and headers, with the body packed in when it is small.
        var head: [UInt8]
        /// A large body, queued after the head without a copy.
        var separateBody: [UInt8]?
        /// Where the body starts: the status line and headers alone (for truncated and slow answers).
        var headLength: Int

        var count: Int { head.count + (separateBody?.count ?? 0) }
    }

    /// `keepAlive` false adds `Connection: close`; a HEAD answer and 1xx, 204 and 304 carry no body.
    func encode(_ response: Response, isHead: Bool, keepAlive: Bool, versionMinor: Int) -> Encoded {
        let hasBody = response.status >= 200 && response.status != 204 && response.status != 304
        let sendsBody = hasBody && !isHead && !response.body.isEmpty
        let packsBody = sendsBody && response.body.count < OutputQueue.packLimit
        var head: [UInt8] = []
        head.reserveCapacity(256 + (packsBody ? response.body.count : 0))
        // Piece by piece: an interpolated line would be one more String allocation per answer.
        head.append(contentsOf: "HTTP/1.1 ".utf8)
        head.append(contentsOf: String(response.status).utf8)
        head.append(32)
        head.append(contentsOf: response.reasonPhrase.utf8)
        head.append(13)
        head.append(10)
        for field in response.headers {
            head.append(contentsOf: field.name.utf8)
            head.append(58)
            head.append(32)
            head.append(contentsOf: field.value.utf8)
            head.append(13)
            head.append(10)
        }
        head.append(contentsOf: currentDateLine())
        if hasBody {
            head.append(contentsOf: "Content-Length: ".utf8)
            head.append(contentsOf: String(response.body.count).utf8)
            head.append(13)
            head.append(10)
        }
        if !keepAlive {
            head.append(contentsOf: "Connection: close\r\n".utf8)
        } else if versionMinor == 0 {
            head.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        head.append(13)
        head.append(10)
        let headLength = head.count
        if packsBody { head.append(contentsOf: response.body) }
        return Encoded(head: head, separateBody: sendsBody && !packsBody ? response.body : nil, headLength: headLength)
    }

    private func currentDateLine() -> [UInt8] {
        let seconds = Int(now().timeIntervalSince1970.rounded(.down))
        if seconds != dateLineSecond {
            dateLineSecond = seconds
            dateLine = Array("Date: \(Self.format(seconds))\r\n".utf8)
        }
        return dateLine
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ unixSeconds: Int) -> String {
        let time = CivilTime(unixSeconds: unixSeconds)
        return "\(days[time.weekday]), \(zeroPadded(time.day)) \(months[time.month - 1]) \(time.year) "
            + "\(zeroPadded(time.hour)):\(zeroPadded(time.minute)):\(zeroPadded(time.second)) GMT"
    }
}
