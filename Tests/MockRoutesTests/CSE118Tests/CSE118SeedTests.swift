import Foundation
import MockApp
import MockHTTP
import MockKit
import MockSupport
import TestSupport
import XCTest

/// How the cse118 API reads ids and `posted` times from seed and state documents, and that its
/// lists keep their order however rows come and go.
final class CSE118SeedTests: XCTestCase {
    private var server: TestServer!
    private var client: CSE118Client!

    private static let member = "aaaaaaaa-0000-4000-8000-000000000001"
    private static let other = "aaaaaaaa-0000-4000-8000-000000000002"
    private static let workspace = "bbbbbbbb-0000-4000-8000-000000000001"
    private static let channel = "cccccccc-0000-4000-8000-000000000001"

    override func setUpWithError() throws {
        let api = try XCTUnwrap(APICatalog.load(["cse118"], seed: TestServer.shippedSeed, options: cse118Options()).first)
        server = try TestServer(responder: MockApp(apis: [api]))
        client = CSE118Client(server: server)
    }

    override func tearDown() {
        server = nil
        client = nil
    }

    /// A document of two members and one workspace of one channel holding `messages`; `change`
    /// rewrites its text.
    private static func document(messages: [String], change: (String) -> String = { $0 }) -> String {
        change(#"{"members":[{"id":"\#(member)","name":"Ann","email":"ann@x.com","password":"pw"},"#
            + #"{"id":"\#(other)","name":"Bob","email":"bob@x.com","password":"pw"}],"#
            + #""workspaces":[{"id":"\#(workspace)","name":"W","owner":"\#(member)","members":["\#(other)"],"#
            + #""channels":[{"id":"\#(channel)","name":"C","messages":[\#(messages.joined(separator: ","))]}]}]}"#)
    }

    private static func message(_ id: String, member: String = member, posted: String) -> String {
        #"{"id":"\#(id)","member":"\#(member)","posted":"\#(posted)","content":"m"}"#
    }

    private func refusal(_ path: String, _ detail: String) -> String {
        #"{"error":"invalid_state","path":"\#(path)","detail":"\#(detail)"}"#
    }

    func testBadIdsAndTimesAreRefusedWithTheirPlace() throws {
        let message = "dddddddd-0000-4000-8000-000000000001"
        let posted = "$.workspaces[0].channels[0].messages[0].posted"
        let cases: [(document: String, path: String, detail: String)] = [
            (Self.document(messages: []) { $0.replacingOccurrences(of: "aaaaaaaa-0000-4000-8000-000000000001\",\"name\":\"Ann", with: "AAAAAAAA-0000-4000-8000-000000000001\",\"name\":\"Ann") },
             "$.members[0].id", "expected a lowercase UUID, got AAAAAAAA-0000-4000-8000-000000000001"),
            (Self.document(messages: []) { $0.replacingOccurrences(of: "\"aaaaaaaa-0000-4000-8000-000000000002\",\"name\"", with: "\"\\u0041aaaaaaa-0000-4000-8000-000000000002\",\"name\"") },
             "$.members[1].id", "expected a lowercase UUID, got Aaaaaaaa-0000-4000-8000-000000000002"),
            (Self.document(messages: []) { $0.replacingOccurrences(of: Self.workspace, with: "bbbbbbbb-0000-4000-8000-00000000001") },
             "$.workspaces[0].id", "expected a lowercase UUID, got bbbbbbbb-0000-4000-8000-00000000001"),
            (Self.document(messages: []) { $0.replacingOccurrences(of: Self.workspace, with: "bbbbbbbb-0000-4000-8000-00000000000g") },
             "$.workspaces[0].id", "expected a lowercase UUID, got bbbbbbbb-0000-4000-8000-00000000000g"),
            (Self.document(messages: []) { $0.replacingOccurrences(of: Self.workspace, with: "bbbbbbbb0-000-4000-8000-000000000001") },
             "$.workspaces[0].id", "expected a lowercase UUID, got bbbbbbbb0-000-4000-8000-000000000001"),
            (Self.document(messages: []) { $0.replacingOccurrences(of: "\"\(Self.workspace)\"", with: "7") },
             "$.workspaces[0].id", "expected a string"),
            (Self.document(messages: [Self.message(message, posted: "2024-02-03T18:04:05.125Z"), Self.message(message, posted: "2024-02-03T18:04:05.125Z")]),
             "$.workspaces[0].channels[0].messages[1].id", "duplicate id \(message)"),
            (Self.document(messages: [Self.message(message, member: Self.member.uppercased(), posted: "2024-02-03T18:04:05.125Z")]),
             "$.workspaces[0].channels[0].messages[0].member", "\(Self.member.uppercased()) is not the id of a member"),
            (Self.document(messages: [Self.message(message, member: Self.channel, posted: "2024-02-03T18:04:05.125Z")]),
             "$.workspaces[0].channels[0].messages[0].member", "\(Self.channel) is not the id of a member"),
            (Self.document(messages: []) { $0.replacingOccurrences(of: "\"owner\":\"\(Self.member)\"", with: "\"owner\":\"nobody\"") },
             "$.workspaces[0].owner", "nobody is not the id of a member"),
        ] + [
            "2023-02-29T12:00:00.000Z", "2024-02-30T12:00:00.000Z", "2024-04-31T12:00:00.000Z", "2024-00-10T12:00:00.000Z",
            "2024-13-10T12:00:00.000Z", "2024-01-00T12:00:00.000Z", "2024-01-10T24:00:00.000Z", "2024-01-10T12:60:00.000Z",
            "2024-01-10T12:00:60.000Z", "2024-01-10 12:00:00.000Z", "2024-01-10T12:00:00Z", "2024-01-10T12:00:00.00aZ",
            "2024-01-10T12:00:00.000z", "2024-01-10T12:00:00.0000Z", "+024-01-10T12:00:00.000Z", "2024-01-10T12:00:00.000Z ",
        ].map { text in
            (Self.document(messages: [Self.message(message, posted: text)]), posted, "expected YYYY-MM-DDTHH:MM:SS.mmmZ, got \(text)")
        } + [
            (Self.document(messages: [Self.message(message, posted: "2024-01-10T12:00:00.000Z")]) { $0.replacingOccurrences(of: "\"2024-01-10T12:00:00.000Z\"", with: "20240110") },
             posted, "expected a string"),
        ]
        for (document, path, detail) in cases {
            let answer = try server.request("PUT", "/_mock/state/cse118", body: document)
            XCTAssertEqual(answer.status, 400, document)
            XCTAssertEqual(answer.text, refusal(path, detail), document)
        }
        // Ids are unique among the rows of one kind, as the real server's tables kept them: a
        // channel may share a member's id, a message a workspace's (docs/apis/cse118.md).
        let shared = Self.document(messages: [Self.message(Self.workspace, posted: "2024-02-03T18:04:05.125Z")]) {
            $0.replacingOccurrences(of: Self.channel, with: Self.other)
        }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: shared).status, 200)
        let token = try client.login(("ann@x.com", "pw"))
        assertCSE118(try client.call("GET", "/channel/\(Self.other)/message", token: token), 200,
                     #"[{"id":"\#(Self.workspace)","member":"\#(Self.member)","posted":"2024-02-03T18:04:05.125Z","content":"m"}]"#)
        XCTAssertEqual(try client.call("DELETE", "/message/\(Self.workspace)", token: token).status, 200)
        XCTAssertEqual(try client.call("GET", "/workspace/\(Self.workspace)/channel", token: token).text,
                       #"[{"id":"\#(Self.other)","name":"C","messages":0}]"#)
    }

    func testTheFirstProblemInTheDocumentIsReportedWhenAnIdRepeats() throws {
        let messages = (1...3000).map { Self.message(String(format: "dddddddd-0000-4000-8000-%012x", $0 * 7919), posted: "2024-02-03T18:04:05.125Z") }
        let first = "dddddddd-0000-4000-8000-000000001eef"
        let cases: [(document: String, path: String, detail: String)] = [
            // Members repeat ids before a later problem in the members and one in the workspaces.
            (Self.document(messages: []) {
                $0.replacingOccurrences(of: Self.other, with: Self.member).replacingOccurrences(of: "bob@x.com", with: "ann@x.com")
                    .replacingOccurrences(of: "\"owner\":\"\(Self.member)\"", with: "\"owner\":\"nobody\"")
            }, "$.members[1].id", "duplicate id \(Self.member)"),
            // A message repeats another's id, before a bad time further on.
            (Self.document(messages: [Self.message(first, posted: "2024-02-03T18:04:05.125Z"), Self.message(first, posted: "2024-02-03T18:04:05.125Z"),
                                      Self.message(Self.other, posted: "2024-02-30T00:00:00.000Z")]),
             "$.workspaces[0].channels[0].messages[1].id", "duplicate id \(first)"),
            // The last of thousands of messages repeats the first, after a member with no such id.
            (Self.document(messages: messages + [Self.message(first, posted: "2024-02-03T18:04:05.125Z")]) {
                $0.replacingOccurrences(of: "\"members\":[\"\(Self.other)\"]", with: "\"members\":[\"\(Self.other)\",\"\(first)\"]")
            }, "$.workspaces[0].members[1]", "\(first) is not the id of a member"),
            (Self.document(messages: messages + [Self.message(first, posted: "2024-02-03T18:04:05.125Z")]),
             "$.workspaces[0].channels[0].messages[3000].id", "duplicate id \(first)"),
        ]
        for (document, path, detail) in cases {
            let answer = try server.request("PUT", "/_mock/state/cse118", body: document)
            XCTAssertEqual(answer.status, 400)
            XCTAssertEqual(answer.text, refusal(path, detail))
        }
        // Without the repeat, all of them load.
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: messages)).status, 200)
        let token = try client.login(("ann@x.com", "pw"))
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/channel/\(Self.channel)/message", token: token)).count, 3000)
        XCTAssertEqual(try client.call("DELETE", "/message/\(first)", token: token).status, 200)
    }

    func testEmailsAreUniqueAndFoundWhateverTheirLetterCase() throws {
        let others = (3..<3000).map {
            #"{"id":"\#(String(format: "aaaaaaaa-0000-4000-8000-%012x", $0))","name":"M","email":"member.number.\#($0)@x.com","password":"pw"}"#
        }
        func document(ann: String, bob: String, more: [String] = []) -> String {
            Self.document(messages: []) {
                $0.replacingOccurrences(of: "ann@x.com", with: ann).replacingOccurrences(of: "bob@x.com", with: bob)
                    .replacingOccurrences(of: "\"password\":\"pw\"}],", with: "\"password\":\"pw\"}\(more.map { "," + $0 }.joined())],")
            }
        }
        let refused: [(document: String, path: String, detail: String)] = [
            (document(ann: "ann@x.com", bob: "ANN@x.com"), "$.members[1]", "duplicate email ANN@x.com"),
            (document(ann: "Ébé@x.com", bob: "éBÉ@X.COM"), "$.members[1]", "duplicate email éBÉ@X.COM"),
            (document(ann: "ann@x.com", bob: "bob@x.com", more: others + [others[5].replacingOccurrences(of: "8000-000000000008", with: "8000-00000000ffff").replacingOccurrences(of: "member.number", with: "Member.Number")]),
             "$.members[2999]", "duplicate email Member.Number.8@x.com"),
            // The repeat is reported before a problem further on.
            (document(ann: "ann@x.com", bob: "Ann@x.com").replacingOccurrences(of: "\"owner\":\"\(Self.member)\"", with: "\"owner\":\"nobody\""),
             "$.members[1]", "duplicate email Ann@x.com"),
        ]
        for (document, path, detail) in refused {
            let answer = try server.request("PUT", "/_mock/state/cse118", body: document)
            XCTAssertEqual(answer.status, 400)
            XCTAssertEqual(answer.text, refusal(path, detail))
        }

        // Lowered on both sides, then compared byte for byte: a precomposed é is not e and U+0301.
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: document(ann: "Ébé@x.com", bob: "bob.has.a.long.address@x.com", more: others)).status, 200)
        for email in ["ébé@x.com", "ÉBÉ@X.COM", "Bob.Has.A.Long.Address@X.com", "member.number.2999@x.com", "MEMBER.NUMBER.3@X.COM"] {
            XCTAssertEqual(try client.call("POST", "/login", body: #"{"email":"\#(email)","password":"pw"}"#).status, 200, email)
        }
        for email in ["e\u{301}be\u{301}@x.com", "ébé@x.co", "bob.has.a.long.address@x.com ", "member.number.3000@x.com"] {
            XCTAssertEqual(try client.call("POST", "/login", body: #"{"email":"\#(email)","password":"pw"}"#).status, 401, email)
        }
    }

    func testEmailsComeBackAsReadWhateverTheirSpelling() throws {
        // Escaped, past ASCII, long or short: each is the text the document spelled.
        let spelled = [#"bob\u0040x.com"#: "bob@x.com", #"b\"o\\b@x.com"#: #"b"o\b@x.com"#, "b@x": "b@x", "Ébé.has.a.long.address@x.com": "Ébé.has.a.long.address@x.com"]
        for (spelling, email) in spelled {
            let document = Self.document(messages: []).replacingOccurrences(of: "bob@x.com", with: spelling)
            XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: document).status, 200, spelling)
            let body = try JSONSerialization.data(withJSONObject: ["email": email.uppercased(), "password": "pw"])
            let login = try client.call("POST", "/login", body: String(decoding: body, as: UTF8.self))
            XCTAssertEqual(login.status, 200, spelling)
            let token = try XCTUnwrap(client.json(login)["accessToken"] as? String)
            let payload = try XCTUnwrap(Data(base64Encoded: token.split(separator: ".")[1].padding(toLength: 4 * ((token.split(separator: ".")[1].count + 3) / 4), withPad: "=", startingAt: 0)))
            let quoted = email.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            XCTAssertEqual(String(decoding: payload, as: UTF8.self), #"{"id":"\#(Self.other)","email":"\#(quoted)","iat":1706983445}"#, spelling)
            let exported = try JSONParser.parse(server.request("GET", "/_mock/state/cse118").body)
            XCTAssertEqual(exported.objectValue?["members"]?.arrayValue?[1].objectValue?["email"]?.stringValue, email, spelling)
        }
    }

    func testIdDigitsAndMonthLengthsAtTheirEdges() throws {
        // Bytes on either side of 0-9, a-f and A-F are no digits; upper case is for requests only.
        for digit in ["/", ":", "@", "G", "`", "g", "\u{7f}", "A", "F", "\u{e9}"] {
            let bad = "bbbbbbbb-0000-4000-8000-0000000000" + (digit == "\u{e9}" ? "" : "0") + digit
            let document = Self.document(messages: []).replacingOccurrences(of: Self.workspace, with: bad)
            let answer = try server.request("PUT", "/_mock/state/cse118", body: document)
            XCTAssertEqual(answer.text, refusal("$.workspaces[0].id", "expected a lowercase UUID, got \(bad)"), digit)
        }
        let message = "dddddddd-0000-4000-8000-000000000001"
        for day in ["1900-02-29", "2100-02-29", "2023-06-31", "2023-09-31", "2023-11-31", "2023-12-32"] {
            let posted = day + "T00:00:00.000Z"
            let answer = try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: [Self.message(message, posted: posted)]))
            XCTAssertEqual(answer.text, refusal("$.workspaces[0].channels[0].messages[0].posted", "expected YYYY-MM-DDTHH:MM:SS.mmmZ, got \(posted)"))
        }
        let ann = "aaaaaaaa-0000-4000-8000-000000000001"
        for day in ["0000-02-29", "2400-02-29", "2023-01-31", "2023-03-31", "2023-05-31", "2023-07-31", "2023-08-31", "2023-10-31", "2023-12-31", "2023-04-30"] {
            XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: [Self.message(message, posted: day + "T23:59:59.999Z")])).status, 200, day)
            let token = try client.login(("ann@x.com", "pw"))
            assertCSE118(try client.call("GET", "/channel/\(Self.channel)/message", token: token), 200,
                         #"[{"id":"\#(message)","member":"\#(ann)","posted":"\#(day)T23:59:59.999Z","content":"m"}]"#)
        }
        // Every digit in every place comes back as written, and requests name ids in any letter case.
        for id in ["01234567-89ab-cdef-0123-456789abcdef", "fedcba98-7654-3210-fedc-ba9876543210", "a0b1c2d3-e4f5-a6b7-c8d9-e0f1a2b3c4d5"] {
            XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: []).replacingOccurrences(of: Self.workspace, with: id)).status, 200)
            let token = try client.login(("ann@x.com", "pw"))
            XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: token)).compactMap { $0["id"] as? String }, [id])
            XCTAssertEqual(try client.call("GET", "/workspace/\(id.uppercased())/channel", token: token).status, 200)
        }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: [Self.message(message, posted: "2023-04-30T23:59:59.999Z")])).status, 200)
        let token = try client.login(("ann@x.com", "pw"))
        XCTAssertEqual(try client.call("DELETE", "/message/\(message.uppercased())", token: token).status, 200)
        XCTAssertEqual(try client.call("GET", "/channel/\(Self.channel.uppercased())/message", token: token).text, "[]")
    }

    func testMessagesKeepTheirMembersWhoeverPostedBefore() throws {
        let third = "aaaaaaaa-0000-4000-8000-000000000003"
        let posters = [Self.other, Self.other, third, Self.member, third, Self.other, Self.member, Self.member]
        let messages = posters.enumerated().map {
            Self.message(String(format: "dddddddd-0000-4000-8000-%012x", $0.offset), member: $0.element, posted: "2024-02-03T18:04:05.125Z")
        }
        func document(_ messages: [String]) -> String {
            Self.document(messages: messages) {
                $0.replacingOccurrences(of: "\"password\":\"pw\"}],", with: #""password":"pw"},{"id":"\#(third)","name":"Cid","email":"cid@x.com","password":"pw"}],"#)
                    .replacingOccurrences(of: "\"members\":[\"\(Self.other)\"]", with: "\"members\":[\"\(third)\"]")
            }
        }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: document(messages)).status, 200)
        let token = try client.login(("cid@x.com", "pw"))
        let listed = try client.jsonArray(client.call("GET", "/channel/\(Self.channel)/message", token: token))
        XCTAssertEqual(listed.compactMap { $0["member"] as? String }, posters)
        // The workspace's member is Cid, listed after the owner Ann, not Bob who comes between them.
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: token)).count, 1)
        XCTAssertEqual(try client.call("GET", "/workspace", token: client.login(("bob@x.com", "pw"))).text, "[]")
        // Right after a member's id, ids that are not a member's are still refused.
        let stranger = Self.message("dddddddd-0000-4000-8000-0000000000ff", member: Self.workspace, posted: "2024-02-03T18:04:05.125Z")
        let answer = try server.request("PUT", "/_mock/state/cse118", body: document(Array(messages.prefix(3)) + [stranger]))
        XCTAssertEqual(answer.text, refusal("$.workspaces[0].channels[0].messages[3].member", "\(Self.workspace) is not the id of a member"))
    }

    func testIdsAndTimesComeBackAsTheDocumentSpelledThem() throws {
        // Escaped characters are read as what they stand for; times sort as times, ties in document order.
        let times = ["2024-02-29T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
                     "1969-12-31T23:59:59.999Z", "2000-02-29T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z"]
        let ids = (1...times.count).map { "dddddddd-0000-4000-8000-00000000000\($0)" }
        let document = Self.document(messages: zip(ids, times).map { Self.message($0, posted: $1) }) {
            $0.replacingOccurrences(of: "\"id\":\"dddddddd-0000-4000-8000-000000000001\"", with: #""id":"\u0064ddddddd-0000-4000-8000-000000000001""#)
                .replacingOccurrences(of: "\"1970-01-01T00:00:00.000Z\"", with: #""1970-01-01T00:00:00.00\u0030Z""#)
        }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: document).status, 200)
        let token = try client.login(("ann@x.com", "pw"))
        let sorted = [1, 3, 5, 4, 0, 6, 2].map { #"{"id":"\#(ids[$0])","member":"\#(Self.member)","posted":"\#(times[$0])","content":"m"}"# }
        assertCSE118(try client.call("GET", "/channel/\(Self.channel)/message", token: token), 200, "[\(sorted.joined(separator: ","))]")
        let exported = try server.request("GET", "/_mock/state/cse118").text
        let plain = Self.document(messages: zip(ids, times).map { Self.message($0, posted: $1) })
        let expected = plain.replacingOccurrences(of: #""owner":"\#(Self.member)","#, with: #""owner":"\#(Self.member)","fixtureOf":null,"#)
            .dropLast() + #","tokens":[{"token":"\#(token)","member":"\#(Self.member)"}]}"#
        XCTAssertEqual(exported, String(expected))
        // A message posted now prints the server clock's time the same way.
        let posted = try client.json(client.call("POST", "/channel/\(Self.channel.uppercased())/message", token: token, body: #"{"content":"now"}"#))
        XCTAssertEqual(posted["posted"] as? String, "2024-02-03T18:04:05.125Z")
        XCTAssertEqual(posted["member"] as? String, Self.member)
    }

    func testListsKeepTheirOrderWhenRowsComeAndGo() throws {
        let now = "2024-02-03T18:04:05.125Z"
        let messages = (1...3).map { Self.message("dddddddd-0000-4000-8000-00000000000\($0)", posted: now) }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: messages)).status, 200)
        let ann = try client.login(("ann@x.com", "pw"))
        func names(_ path: String, _ field: String) throws -> [String] {
            try client.jsonArray(client.call("GET", path, token: ann)).compactMap { $0[field] as? String }
        }
        func create(_ path: String, _ body: String) throws -> String {
            let answer = try client.call("POST", path, token: ann, body: body)
            XCTAssertEqual(answer.status, 201, answer.text)
            return try XCTUnwrap(client.json(answer)["id"] as? String)
        }

        // Channels: the first one goes, those made next come after the others.
        let second = try create("/workspace/\(Self.workspace)/channel", #"{"name":"C2"}"#)
        XCTAssertEqual(try client.call("DELETE", "/channel/\(Self.channel)", token: ann).status, 200)
        _ = try create("/workspace/\(Self.workspace)/channel", #"{"name":"C3"}"#)
        _ = try create("/workspace/\(Self.workspace)/channel", #"{"name":"C4"}"#)
        XCTAssertEqual(try names("/workspace/\(Self.workspace)/channel", "name"), ["C2", "C3", "C4"])
        XCTAssertEqual(try client.call("GET", "/channel/\(Self.channel)/message", token: ann).status, 404)
        XCTAssertEqual(try client.call("DELETE", "/message/dddddddd-0000-4000-8000-000000000002", token: ann).status, 404)

        // Messages posted at the same time: in the order they were posted, however slots were freed.
        for content in ["a", "b", "c"] { _ = try create("/channel/\(second)/message", #"{"content":"\#(content)"}"#) }
        let first = try client.jsonArray(client.call("GET", "/channel/\(second)/message", token: ann))[0]["id"] as? String
        XCTAssertEqual(try client.call("DELETE", "/message/\(try XCTUnwrap(first))", token: ann).status, 200)
        _ = try create("/channel/\(second)/message", #"{"content":"d"}"#)
        XCTAssertEqual(try names("/channel/\(second)/message", "content"), ["b", "c", "d"])

        // Workspaces: a new one is listed last; the member list follows additions and removals.
        let gone = try create("/workspace", #"{"name":"Gone"}"#)
        _ = try create("/workspace", #"{"name":"Kept"}"#)
        XCTAssertEqual(try client.call("DELETE", "/workspace/\(gone)", token: ann).status, 200)
        let last = try create("/workspace", #"{"name":"Last"}"#)
        XCTAssertEqual(try names("/workspace", "name"), ["W", "Kept", "Last"])
        XCTAssertEqual(try client.call("POST", "/workspace/\(last)/member?mid=\(Self.other)", token: ann).status, 201)
        XCTAssertEqual(try client.call("DELETE", "/workspace/\(Self.workspace)/member?mid=\(Self.other)", token: ann).status, 200)
        let bob = try client.login(("bob@x.com", "pw"))
        XCTAssertEqual(try client.jsonArray(client.call("GET", "/workspace", token: bob)).compactMap { $0["name"] as? String }, ["Last"])
        assertCSE118(try client.call("GET", "/workspace/\(last)/member", token: bob), 200,
                     #"[{"id":"\#(Self.other)","name":"Bob"}]"#)
    }

    func testRowsDeletedAmongThousandsComeAndGo() throws {
        // Thousands of messages, some deleted near the middle and both ends, then new ones posted.
        let ids = (0..<4100).map { String(format: "dddddddd-0000-4000-8000-%012x", $0 * 7919) }
        let messages = ids.map { Self.message($0, posted: "2024-02-03T18:04:05.125Z") }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: messages)).status, 200)
        let ann = try client.login(("ann@x.com", "pw"))
        func listed() throws -> [(id: String, content: String)] {
            try client.jsonArray(client.call("GET", "/channel/\(Self.channel)/message", token: ann)).map {
                (try XCTUnwrap($0["id"] as? String), try XCTUnwrap($0["content"] as? String))
            }
        }
        for gone in [4095, 4096, 0] {
            XCTAssertEqual(try client.call("DELETE", "/message/\(ids[gone])", token: ann).status, 200)
        }
        // New rows take the freed slots, and come after the others all the same.
        var added: [String] = []
        for content in ["a", "b", "c"] {
            let answer = try client.call("POST", "/channel/\(Self.channel)/message", token: ann, body: #"{"content":"\#(content)"}"#)
            added.append(try XCTUnwrap(client.json(answer)["id"] as? String))
        }
        let kept = ids.enumerated().filter { ![0, 4095, 4096].contains($0.offset) }.map(\.element)
        let list = try listed()
        XCTAssertEqual(list.map(\.id), kept + added)
        XCTAssertEqual(list.suffix(4).map(\.content), ["m", "a", "b", "c"])
        for id in added + [ids[4097], ids[4094]] {
            XCTAssertEqual(try client.call("DELETE", "/message/\(id)", token: ann).status, 200, id)
            XCTAssertEqual(try client.call("DELETE", "/message/\(id)", token: ann).status, 404, id)
        }
        XCTAssertEqual(try listed().map(\.id), kept.filter { $0 != ids[4097] && $0 != ids[4094] })
    }

    func testEveryRowIsFoundByIdAsOthersAreDeleted() throws {
        // Enough ids that the index grows several times and deletions leave holes among neighbours.
        let ids = (0..<600).map { String(format: "dddddddd-0000-4000-8000-%012x", $0 * 7919) }
        let messages = ids.map { Self.message($0, posted: "2024-02-03T18:04:05.125Z") }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/cse118", body: Self.document(messages: messages)).status, 200)
        let ann = try client.login(("ann@x.com", "pw"))
        for (number, id) in ids.enumerated() where number % 2 == 0 {
            XCTAssertEqual(try client.call("DELETE", "/message/\(id)", token: ann).status, 200, id)
        }
        let left = try client.jsonArray(client.call("GET", "/channel/\(Self.channel)/message", token: ann)).compactMap { $0["id"] as? String }
        XCTAssertEqual(left, ids.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
        for id in left { XCTAssertEqual(try client.call("DELETE", "/message/\(id)", token: ann).status, 200, id) }
        assertCSE118(try client.call("DELETE", "/message/\(ids[0])", token: ann), 404, #"{"message":"Message not found","status":404}"#)
        assertCSE118(try client.call("GET", "/channel/\(Self.channel)/message", token: ann), 200, "[]")
    }
}
