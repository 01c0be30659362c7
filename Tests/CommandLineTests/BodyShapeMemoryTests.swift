import Foundation
import MockHTTP
import TestSupport
import XCTest

/// A request body within --max-body costs about its own size while it is read, whatever its
/// shape: millions of tiny form pairs, multipart parts or JSON values are not each built
/// (docs/apis/<api>.md, body reading). Linux only: the peak is read from /proc.
final class BodyShapeMemoryTests: XCTestCase {
    private let form = ("Content-Type", "application/x-www-form-urlencoded")
    private let json = ("Content-Type", "application/json")

    /// 4 MiB of `[[0],[0],…]`: a million arrays, some 100 MB if each were built.
    private let nestedArrays = Array(("[" + String(repeating: "[0],", count: 1 << 20) + "[0]]").utf8)
    /// 4 MiB of `[0,0,…]`: two million numbers.
    private let flatNumbers = Array(("[" + String(repeating: "0,", count: 2 << 20) + "0]").utf8)
    /// The same values in an object, which the reason for a refused body also reads (ErrorReason).
    private var inObject: [[UInt8]] {
        [nestedArrays, flatNumbers].map { Array(#"{"a":"#.utf8) + $0 + Array("}".utf8) }
    }
    /// 4 MiB of `a&a&…`: two million pairs.
    private let tinyPairs = Array(String(repeating: "a&", count: 2 << 20).utf8)

    /// Sends each body on a fresh server of `api` and checks the answer and that the server's
    /// peak resident memory grew by less than 64 MiB (the body itself and a copy or two).
    private func assertBounded(_ api: String, _ method: String, _ target: String, headers: [(String, String)],
                               bodies: [[UInt8]], answer: String, file: StaticString = #filePath, line: UInt = #line) throws {
        #if os(Linux)
        for body in bodies {
            let (child, port) = try ChildProcess.startServer(["--only", api, "--quiet", "--journal", "0"])
            let before = try peakMiB(child)
            let response = try httpRequest(port: port, method, target, headers: headers, body: body, waitingWhile: working(child))
            XCTAssertEqual(response.text, answer, file: file, line: line)
            let grown = try peakMiB(child) - before
            XCTAssertLessThan(grown, 64, "\(api): \(body.count) bytes of \(String(decoding: body.prefix(12), as: UTF8.self))… "
                              + "peaked \(grown) MiB above the idle server", file: file, line: line)
        }
        #else
        throw XCTSkip("peak memory is read from Linux's /proc")
        #endif
    }

    /// True while the server works on the request: its CPU time grew in the last 10 s. What these
    /// tests measure is memory; the time a debug server takes for millions of tiny pieces on a
    /// busy machine (10-40 s seen) is no failure, a server that stopped working without an answer is.
    private func working(_ child: ChildProcess) -> () -> Bool {
        var (ticks, grewAt) = (cpuTicks(child), Date())
        return { [self] in
            let now = cpuTicks(child)
            if now != ticks { (ticks, grewAt) = (now, Date()) }
            return Date().timeIntervalSince(grewAt) < 10
        }
    }

    /// User and system CPU time of the process, in clock ticks (fields 14 and 15 of /proc/PID/stat,
    /// counted after the command name, which may hold spaces).
    private func cpuTicks(_ child: ChildProcess) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(child.process.processIdentifier)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")") else { return -1 }
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return -1 }
        return user + system
    }

    private func peakMiB(_ child: ChildProcess) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(child.process.processIdentifier)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try XCTUnwrap(Int(line.split(separator: " ")[1])) / 1024
    }

    /// A 16 MiB form body of `a&` under 1 GiB of address space, the envelope
    /// scripts/attack-big-bodies.py runs the server in: WSUV kept an array per piece (~1 GB), and
    /// one request ended the process ("Fatal error: failed to allocate …"; session-6 hunt).
    func testOneFormBodyAtTheBodyLimitDoesNotEndTheServer() throws {
        #if os(Linux)
        let limit = ["/bin/sh", "-c", "ulimit -v 1048576 && exec \"$@\"", "sh"]
        let (child, port) = try ChildProcess.startServer(["--only", "wsuv", "--quiet", "--journal", "0"], wrapper: limit)
        let body = Array(String(repeating: "a&", count: (8 << 20) - 8).utf8)
        _ = try? httpRequest(port: port, "POST", "/cgi-bin/login.cgi", headers: [form], body: body)
        let health = try? httpRequest(port: port, "GET", "/_mock/health")
        let crash = child.standardError.split(separator: "\n").first { $0.contains("Fatal error") || $0.contains("Crash") }
        XCTAssertEqual(health?.status, 200, "the server ended: \(crash ?? child.standardError.suffix(300))")
        #else
        throw XCTSkip("the address space limit is set with Linux's ulimit -v")
        #endif
    }

    func testWSUVFormBodyOfManyPairsStaysNearItsSize() throws {
        try assertBounded("wsuv", "POST", "/cgi-bin/login.cgi", headers: [form], bodies: [tinyPairs], answer: "")
    }

    func testThreadsFormBodyOfManyPairsStaysNearItsSize() throws {
        try assertBounded("threads", "POST", "/api/login", headers: [form], bodies: [tinyPairs],
                          answer: #"{"status":"error","message":"Email is required."}"#)
    }

    /// CSE118 and OTP read a body as JSON whatever its type (sent here without one, as the OTP
    /// course client did); past 100,000 values it is refused unbuilt.
    func testCSE118AndOTPJSONBodiesOfManyValuesStayNearTheirSize() throws {
        try assertBounded("cse118", "POST", "/api/v2/login", headers: [], bodies: [nestedArrays, flatNumbers],
                          answer: #"{"message":"Request body is not valid JSON","status":400}"#)
        try assertBounded("otp", "POST", "/api/verify_code", headers: [], bodies: [nestedArrays, flatNumbers],
                          answer: #"{"error_code":"invalid_request","error_message":"The request body must be a JSON object","status":"error"}"#)
    }

    /// An object of many values is refused unbuilt by every API that reads JSON, and the console's
    /// reason for the answer names its fields without building it either.
    func testJSONObjectsOfManyValuesStayNearTheirSize() throws {
        try assertBounded("threads", "POST", "/api/login", headers: [json], bodies: inObject,
                          answer: #"{"status":"error","message":"Invalid JSON body."}"#)
        try assertBounded("cse118", "POST", "/api/v2/login", headers: [json], bodies: inObject,
                          answer: #"{"message":"Request body is not valid JSON","status":400}"#)
        try assertBounded("otp", "POST", "/api/verify_code", headers: [], bodies: inObject,
                          answer: #"{"error_code":"invalid_request","error_message":"The request body must be a JSON object","status":"error"}"#)
        try assertBounded("internproducts", "GET", "/login?password=1", headers: [json], bodies: inObject,
                          answer: #"{"status":"FAILED","message":"Missing parameter: username"}"#)
    }

    /// InternProducts reads only the query, but the reason for a missing parameter names the
    /// fields the body brought.
    func testInternProductsFormBodyOfManyPairsStaysNearItsSize() throws {
        try assertBounded("internproducts", "GET", "/login?password=1", headers: [form], bodies: [tinyPairs],
                          answer: #"{"status":"FAILED","message":"Missing parameter: username"}"#)
    }

    /// 4 MiB of the smallest multipart parts WSUV's CGI.pm reading and threads' reading accept.
    func testMultipartBodiesOfManyPartsStayNearTheirSize() throws {
        let part = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\r\n"
        let body = Array((String(repeating: part, count: (4 << 20) / part.utf8.count) + "--b--\r\n").utf8)
        let multipart = ("Content-Type", "multipart/form-data; boundary=b")
        try assertBounded("wsuv", "POST", "/cgi-bin/login.cgi", headers: [multipart], bodies: [body], answer: "")
        try assertBounded("threads", "POST", "/api/login", headers: [multipart], bodies: [body],
                          answer: #"{"status":"error","message":"Email is required."}"#)
    }

    /// A JSON body is built for at most 100,000 values (docs/apis/threads.md#how-requests-are-read).
    func testThreadsReadsAJSONBodyOfAtMostAHundredThousandValues() throws {
        let (_, port) = try ChildProcess.startServer(["--only", "threads", "--quiet"])
        // The object, two strings and the array are four values.
        func login(zeros: Int) throws -> ClientResponse {
            let body = #"{"email":"b@b.com","password":"test123","x":["# + String(repeating: "0,", count: zeros - 1) + "0]}"
            return try httpRequest(port: port, "POST", "/api/login", headers: [json], body: Array(body.utf8))
        }
        XCTAssertEqual(try login(zeros: 99_996).status, 200)
        XCTAssertEqual(try login(zeros: 99_997).text, #"{"status":"error","message":"Invalid JSON body."}"#)
    }

    /// PHP read the first 1000 variables of a form or multipart body (`max_input_vars`) and
    /// ignored the rest (docs/apis/threads.md#how-requests-are-read).
    func testThreadsReadsTheFirstThousandFieldsOfABody() throws {
        let (_, port) = try ChildProcess.startServer(["--only", "threads", "--quiet"])
        let fields = [("email", "b@b.com"), ("password", "test123"), ("x", "2")]
        func login(_ fields: [(String, String)], multipart: Bool) throws -> ClientResponse {
            let fields = Array(repeating: ("x", "1"), count: 998) + fields
            if !multipart {
                let body = fields.map { "\($0)=\($1.replacingOccurrences(of: "@", with: "%40"))" }.joined(separator: "&")
                return try httpRequest(port: port, "POST", "/api/login", headers: [form], body: Array(body.utf8))
            }
            let body = fields.map { "--b\r\nContent-Disposition: form-data; name=\"\($0)\"\r\n\r\n\($1)\r\n" }.joined() + "--b--\r\n"
            return try httpRequest(port: port, "POST", "/api/login", headers: [("Content-Type", "multipart/form-data; boundary=b")],
                                   body: Array(body.utf8))
        }
        for multipart in [false, true] {
            XCTAssertEqual(try login(fields, multipart: multipart).status, 200, "multipart: \(multipart)")
            XCTAssertEqual(try login([fields[2], fields[0], fields[1]], multipart: multipart).text,
                           #"{"status":"error","message":"Password is required."}"#, "multipart: \(multipart)")
        }
    }
}
