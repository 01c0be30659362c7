import Foundation
import MockHTTP
import MockKit
import MockSupport
import TestSupport
import XCTest

/// Users, numbers and tokens as the directory keeps them: what goes in comes out byte for byte,
/// and lookups stay right as tokens end.
final class OTPDirectoryTests: OTPTestCase {
    /// Every character of the alphabet, in every position a secret has.
    static let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    private func state(_ users: [String]) -> String {
        #"{"users":[\#(users.joined(separator: ","))]}"#
    }

    private func user(id: String, phone: String, name: String = "N", keyfile: String, tokens: [String]) -> String {
        #"{"user_id":"\#(id)","e164_phone_number":"\#(phone)","name":"\#(name)","keyfile_password":"\#(keyfile)","#
            + #""auth_tokens":[\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#
    }

    private func exportedUsers() throws -> [JSONObject] {
        let exported = try server.request("GET", "/_mock/state/otp")
        XCTAssertEqual(exported.status, 200)
        return try XCTUnwrap(JSONParser.parse(exported.body).objectValue?["users"]?.arrayValue).compactMap(\.objectValue)
    }

    func testEveryCharacterOfEverySecretComesBackAsGiven() throws {
        let letters = Array(Self.alphabet)
        // The alphabet rotated by 0 to 63 places: every character in every place of a token; user ids
        // and keyfile passwords take the even and the odd rotations.
        func rotated(by places: Int, length: Int) -> String { String((0..<length).map { letters[($0 + places) % 64] }) }
        let users = (0..<32).map { row in
            user(id: rotated(by: 2 * row, length: 24), phone: "+1530555\(1000 + row)", keyfile: rotated(by: 2 * row + 1, length: 32),
                 tokens: [rotated(by: row, length: 32), rotated(by: row + 32, length: 32)])
        }
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state(users)).status, 200)
        XCTAssertEqual(try server.request("GET", "/_mock/state/otp").text, state(users))
        let token = String(letters[0..<32])
        XCTAssertEqual(try readUser(token).text, #"{"status":"ok","user":{"drivers_license":null,"#
            + #""e164_phone_number":"+15305551000","email":null,"keyfile_password":"\#(rotated(by: 1, length: 32))","#
            + #""name":"N","payment_methods":[],"tos_accpted":0,"user_id":"\#(String(letters[0..<24]))"}}"#)
    }

    func testATokenOneCharacterOffInAnyPlaceIsNotTheUsers() throws {
        let token = String(Self.alphabet.prefix(32))
        let users = [user(id: String(repeating: "u", count: 24), phone: "+15305551000",
                          keyfile: String(repeating: "k", count: 32), tokens: [token])]
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state(users)).status, 200)
        XCTAssertEqual(try object(readUser(token)).user?[string: "name"], "N")
        for place in 0..<32 {
            for replacement in ["_", "A", "a"] {
                var characters = Array(token)
                guard String(characters[place]) != replacement else { continue }
                characters[place] = Character(replacement)
                assertError(try readUser(String(characters)), "invalid_auth_token", "Your auth token is invalid")
            }
        }
    }

    func testEscapedSecretsAndNumbersReadAsTheirCharacters() throws {
        // `\u0041` is A and `\/` is /: escapes spell the same characters as plain text would.
        let escaped = user(id: #"\u0041BCDEFGHIJKLMNOPQRSTUVWX"#, phone: #"+1530555\u00310\u00300"#,
                           keyfile: #"\u0061bcdefghijklmnopqrstuvwxyz012345"#, tokens: [#"ABCDEFGHIJKLMNOPQRSTUVWXYZabcde\u005f"#])
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state([escaped])).status, 200)
        let plain = user(id: "ABCDEFGHIJKLMNOPQRSTUVWX", phone: "+15305551000",
                         keyfile: "abcdefghijklmnopqrstuvwxyz012345", tokens: ["ABCDEFGHIJKLMNOPQRSTUVWXYZabcde_"])
        XCTAssertEqual(try server.request("GET", "/_mock/state/otp").text, state([plain]))
        XCTAssertEqual(try object(readUser("ABCDEFGHIJKLMNOPQRSTUVWXYZabcde_")).user?[string: "e164_phone_number"], "+15305551000")
        // An escape that spells a character no header carries is the usual error, at its place.
        let outside = user(id: "ABCDEFGHIJKLMNOPQRSTUVWX", phone: "+15305551000", keyfile: "abcdefghijklmnopqrstuvwxyz012345",
                           tokens: [#"ABCDEFGHIJKLMNOPQRSTUVWXYZabcde\u0009"#])
        let refused = try server.request("PUT", "/_mock/state/otp", body: state([outside]))
        XCTAssertEqual(refused.text, #"{"error":"invalid_state","path":"$.users[0].auth_tokens[0]","#
            + #""detail":"\#(Self.unsendable)"}"#)
        let duplicate = user(id: "ABCDEFGHIJKLMNOPQRSTUVWX", phone: "+15305551000", keyfile: "abcdefghijklmnopqrstuvwxyz012345",
                             tokens: ["ABCDEFGHIJKLMNOPQRSTUVWXYZabcde_", #"ABCDEFGHIJKLMNOPQRSTUVWXYZabcde\u005f"#])
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state([duplicate])).text,
                       #"{"error":"invalid_state","path":"$.users[0].auth_tokens[1]","#
                       + #""detail":"duplicate token ABCDEFGHIJKLMNOPQRSTUVWXYZabcde_"}"#)
    }

    static let unsendable = "expected a token a client can send in x-authtoken: visible ASCII, spaces only inside"

    /// Clients show user ids and use keyfile passwords as they are, and send tokens back as they
    /// are: any text loads (docs/apis/otp.md#what-the-seed-refuses-and-why). Before, each had to be
    /// 24 or 32 characters of A-Z, a-z, 0-9, - and _.
    func testIDsPasswordsAndTokensAreAnyTextAClientCanUse() throws {
        // Every character outside that alphabet, as JSON writes it, in a keyfile password and a user id.
        let outside = (0x00...0x7F).compactMap(Unicode.Scalar.init).filter { !Self.alphabet.unicodeScalars.contains($0) } + ["é"]
        let written = outside.map { character in
            character.value < 0x20 ? String(format: "\\u%04x", character.value)
                : character == "\"" || character == "\\" ? "\\\(character)" : String(character)
        }.joined()
        let tokens = ["abc", "student 1", "a/b+c=", String(repeating: "t", count: 200)]
        let users = [user(id: written, phone: "+15305551000", keyfile: written, tokens: tokens),
                     user(id: "1", phone: "+15305551001", keyfile: "k", tokens: [])]
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state(users)).text, #"{"loaded":"otp"}"#)
        for token in tokens {
            let answer = try object(readUser(token)).user
            XCTAssertEqual(answer?[string: "keyfile_password"], String(String.UnicodeScalarView(outside)), token)
            XCTAssertEqual(answer?[string: "user_id"], String(String.UnicodeScalarView(outside)), token)
        }
        XCTAssertEqual(try exportedUsers().map { $0[string: "user_id"] }, [String(String.UnicodeScalarView(outside)), "1"])

        // Refused: an empty id or password, and a token no x-authtoken header can carry as it is.
        func refusal(id: String = "u", keyfile: String = "k", token: String = "t") throws -> String? {
            try server.request("PUT", "/_mock/state/otp",
                               body: state([user(id: id, phone: "+15305551000", keyfile: keyfile, tokens: [token])])).text
        }
        func refused(_ field: String, _ detail: String) -> String {
            #"{"error":"invalid_state","path":"$.users[0].\#(field)","detail":"\#(detail)"}"#
        }
        XCTAssertEqual(try refusal(id: ""), refused("user_id", "must not be empty"))
        XCTAssertEqual(try refusal(keyfile: ""), refused("keyfile_password", "must not be empty"))
        for token in ["", " t", "t ", #"a\u0009b"#, #"\u007f"#, "é"] {
            XCTAssertEqual(try refusal(token: token), refused("auth_tokens[0]", Self.unsendable), token)
        }
    }

    func testADuplicateKeyIsTheFirstProblemInReadingOrder() throws {
        func id(_ number: Int) -> String { "user_\(number)".padding(toLength: 24, withPad: "0", startingAt: 0) }
        func token(_ number: Int) -> String { "token_\(number)".padding(toLength: 32, withPad: "0", startingAt: 0) }
        func row(_ number: Int, id userID: String? = nil, phone: String? = nil,
                 keyfile: String = String(repeating: "k", count: 32), token userToken: String? = nil) -> String {
            user(id: userID ?? id(number), phone: phone ?? "+1530555\(1000 + number)", keyfile: keyfile, tokens: [userToken ?? token(number)])
        }
        func refusal(_ users: [String]) throws -> String? {
            try server.request("PUT", "/_mock/state/otp", body: state(users)).text
        }
        func refused(_ path: String, _ detail: String) -> String {
            #"{"error":"invalid_state","path":"$.users[\#(path)","detail":"\#(detail)"}"#
        }
        let rows = (0..<4).map { row($0) }
        XCTAssertEqual(try refusal(rows + [row(4, phone: "+15305551002")]), refused("4].e164_phone_number", "duplicate number +15305551002"))
        XCTAssertEqual(try refusal(rows + [row(4, id: id(3))]), refused("4].user_id", "duplicate user_id \(id(3))"))
        XCTAssertEqual(try refusal(rows + [row(4, token: token(1))]), refused("4].auth_tokens[0]", "duplicate token \(token(1))"))
        // The number is read before the user id, whatever their order in the text.
        XCTAssertEqual(try refusal(rows + [row(4, id: id(0), phone: "+15305551001")]),
                       refused("4].e164_phone_number", "duplicate number +15305551001"))
        // A duplicate before another problem is the one reported, and one after it is not.
        XCTAssertEqual(try refusal(rows + [row(4, phone: "+15305551000"), row(5, keyfile: "")]),
                       refused("4].e164_phone_number", "duplicate number +15305551000"))
        XCTAssertEqual(try refusal([row(0, keyfile: "")] + rows.dropFirst() + [row(4, phone: "+15305551003")]),
                       refused("0].keyfile_password", "must not be empty"))
        // Nothing refused was loaded: the shipped seed still answers, until a good document replaces it.
        XCTAssertEqual(try object(readUser(Self.alexToken))[string: "status"], "ok")
        XCTAssertEqual(try server.request("PUT", "/_mock/state/otp", body: state(rows)).status, 200)
        for number in 0..<4 {
            XCTAssertEqual(try object(readUser(token(number))).user?[string: "user_id"], id(number))
        }
        assertError(try readUser(Self.alexToken), "invalid_auth_token", "Your auth token is invalid")
    }

    func testIssuedTokensEndOldestFirstAcrossUsersAndTheRestKeepWorking() throws {
        try startServer(issuedTokenLimit: 5)
        let phones = ["5305550100", "5305550101", "5305550123", "5305550124"]
        var issued: [(phone: String, token: String)] = []
        // Logins in an uneven order, so ended tokens are first, middle and last of their owners' lists.
        for phone in [0, 0, 1, 2, 0, 3, 3, 1, 0, 2, 2, 3, 0, 1].map({ phones[$0] }) {
            issued.append((phone, try XCTUnwrap(logIn(phone)[string: "auth_token"])))
        }
        let live = issued.suffix(5)
        for (_, token) in issued.dropLast(5) {
            assertError(try readUser(token), "invalid_auth_token", "Your auth token is invalid")
        }
        for (phone, token) in live {
            XCTAssertEqual(try object(readUser(token)).user?[string: "e164_phone_number"], "+1" + phone)
        }
        for token in [Self.alexToken, Self.priyaToken, Self.jordanToken] {
            XCTAssertEqual(try object(readUser(token))[string: "status"], "ok")
        }
        let tokensByPhone = Dictionary(grouping: live, by: { "+1" + $0.phone }).mapValues { $0.map(\.token) }
        let seeded = ["+15305550100": [Self.alexToken], "+15305550101": [Self.priyaToken], "+15305550102": [Self.jordanToken]]
        for user in try exportedUsers() {
            let phone = try XCTUnwrap(user[string: "e164_phone_number"])
            XCTAssertEqual(user["auth_tokens"]?.arrayValue?.compactMap(\.stringValue),
                           (seeded[phone] ?? []) + (tokensByPhone[phone] ?? []), phone)
        }
    }

    func testAfterManyTokensEndedEveryLiveOneIsStillFound() throws {
        // Enough new users and tokens that the tables grow and ended tokens leave gaps among live ones.
        try startServer(issuedTokenLimit: 40)
        let logins = try (0..<300).map { number in
            let phone = "+1530555\(1000 + number)"
            return (phone: phone, token: try XCTUnwrap(logIn(phone)[string: "auth_token"]))
        }
        for (phone, token) in logins.suffix(40) {
            XCTAssertEqual(try object(readUser(token)).user?[string: "e164_phone_number"], phone)
        }
        for (_, token) in logins.prefix(260) {
            assertError(try readUser(token), "invalid_auth_token", "Your auth token is invalid")
        }
        XCTAssertEqual(try exportedUsers().count, 303)
    }
}
