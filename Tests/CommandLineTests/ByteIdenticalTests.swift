import Foundation
import MockHTTP
import MockSupport
import TestSupport
import XCTest

/// `--clock` and `--random-seed` together: one scripted session through all five APIs answers the
/// same bytes, headers included, in two processes and around a reset (docs/admin.md#the-clock-and-random-values).
final class ByteIdenticalTests: XCTestCase {
    private static let flags = ["--quiet", "--clock", "2024-09-01T10:00:00Z", "--random-seed", "118"]

    /// One exchange on its own connection, every byte of the answer.
    private struct Session {
        let port: Int
        var answers: [[UInt8]] = []

        mutating func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") -> JSONValue? {
            let client: BlockingClient
            do {
                client = try BlockingClient(host: "127.0.0.1", port: port, timeout: 10)
            } catch {
                XCTFail("\(error)")
                return nil
            }
            var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.utf8.count)\r\n\r\n"
            client.send(head + body)
            let answer = client.readToEnd()
            answers.append(answer)
            guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
            return try? JSONParser.parse(Array(answer[end.upperBound...]))
        }

        /// Logs in, posts, lists and deletes in each API; expires an OTP code by moving the clock.
        mutating func run() {
            let threads = send("POST", "/api/login", body: "email=a@a.com&password=test123")?.objectValue?["token"]?.stringValue ?? ""
            let bearer = [("Authorization", "Bearer \(threads)")]
            _ = send("POST", "/api/thread/add", headers: bearer, body: "title=Fixture")
            _ = send("POST", "/api/message/add", headers: bearer, body: "thread_id=1&message=Same+bytes")
            _ = send("GET", "/api/messages/1", headers: bearer)
            _ = send("GET", "/api/threads", headers: bearer)

            _ = send("GET", "/register?username=fixture&password=pw")
            _ = send("GET", "/login?username=fixture&password=pw")

            let cgi = "/~wcochran/cgi-bin/"
            let session = send("POST", cgi + "register.cgi", body: "username=fixture&password=pw")?.objectValue?["session_token"]?.stringValue ?? ""
            _ = send("POST", cgi + "add-tweet.cgi", body: "username=fixture&session_token=\(session)&tweet=Same+bytes")
            _ = send("GET", cgi + "get-tweets.cgi?date=2024-01-01%2000%3A00%3A00")

            let login = send("POST", "/api/v2/login", body: #"{"email":"sslug@ucsc.edu","password":"1234567"}"#)
            let access = [("Authorization", "Bearer \(login?.objectValue?["accessToken"]?.stringValue ?? "")")]
            let workspace = send("POST", "/api/v2/workspace", headers: access, body: #"{"name":"Fixture"}"#)?.objectValue?["id"]?.stringValue ?? ""
            let channel = send("POST", "/api/v2/workspace/\(workspace)/channel", headers: access,
                               body: #"{"name":"general"}"#)?.objectValue?["id"]?.stringValue ?? ""
            _ = send("POST", "/api/v2/channel/\(channel)/message", headers: access, body: #"{"content":"Same bytes"}"#)
            _ = send("GET", "/api/v2/channel/\(channel)/message", headers: access)

            func code() -> String {
                _ = send("POST", "/api/send_verification_code", body: #"{"phone_number":"5305550199"}"#)
                return send("GET", "/_mock/otp/outbox?phone=5305550199")?.arrayValue?.first?.objectValue?["code"]?.stringValue ?? ""
            }
            let expiring = code()
            _ = send("POST", "/_mock/clock", body: #"{"advance_seconds":601}"#)
            _ = send("POST", "/api/verify_code", body: #"{"e164_phone_number":"+15305550199","code":"\#(expiring)"}"#)
            let verified = send("POST", "/api/verify_code", body: #"{"e164_phone_number":"+15305550199","code":"\#(code())"}"#)
            _ = send("POST", "/api/user", headers: [("x-authtoken", verified?.objectValue?["auth_token"]?.stringValue ?? "")])
            _ = send("GET", "/_mock/clock")
        }
    }

    private func session(port: Int) -> [[UInt8]] {
        var session = Session(port: port)
        session.run()
        return session.answers
    }

    private func assertSame(_ first: [[UInt8]], _ second: [[UInt8]], _ what: String) {
        XCTAssertEqual(first.count, second.count, what)
        for (index, (one, other)) in zip(first, second).enumerated() where one != other {
            XCTFail("\(what): answer \(index + 1) differs:\n\(String(decoding: one, as: UTF8.self))\n---\n\(String(decoding: other, as: UTF8.self))")
        }
    }

    func testASessionAnswersTheSameBytesInTwoProcessesAndAroundAReset() throws {
        let (first, firstPort) = try ChildProcess.startServer(Self.flags)
        let once = session(port: firstPort)
        _ = try httpRequest(port: firstPort, "POST", "/_mock/reset")
        let afterReset = session(port: firstPort)
        let (second, secondPort) = try ChildProcess.startServer(Self.flags)
        let otherProcess = session(port: secondPort)
        withExtendedLifetime((first, second)) {}

        XCTAssertEqual(once.count, 24)
        assertSame(once, afterReset, "around a reset")
        assertSame(once, otherProcess, "in another process")
        let text = once.map { String(decoding: $0, as: UTF8.self) }
        XCTAssertTrue(text[0].contains("Date: Sun, 01 Sep 2024 10:00:00 GMT\r\n"), text[0])
        XCTAssertTrue(text[0].contains(#""token":"eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9."#), text[0])
        XCTAssertTrue(text.contains { $0.contains("code_expired") }, "the advanced clock expired the first code")
        XCTAssertTrue(text.last?.hasSuffix(#"{"now":"2024-09-01T10:10:01Z","frozen":true}"#) == true, text.last ?? "")
        // The session did mint: the two codes differ, and a workspace got a version 4 UUID.
        XCTAssertNotNil(text[11].range(of: #""id":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}""#,
                                       options: .regularExpression), text[11])
    }
}
