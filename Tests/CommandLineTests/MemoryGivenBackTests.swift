import Foundation
import TestSupport
import XCTest

/// Memory that deleted rows held is given back while the server runs, not only at a reset.
final class MemoryGivenBackTests: XCTestCase {
    /// WSUV keeps each tweet's text as a plain string, which a delete replaces with `[deleted]`: a
    /// client adding and deleting long tweets must not grow the server by each deleted text. Linux only: the
    /// server's resident memory is read from /proc.
    func testDeletedWSUVTweetsGiveTheirTextsMemoryBack() throws {
        #if os(Linux)
        let (child, port) = try ChildProcess.startServer(["--only", "wsuv", "--journal", "0", "--quiet"])
        func residentMiB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(child.process.processIdentifier)/status", encoding: .utf8)
            let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return try XCTUnwrap(Int(line.split(separator: " ")[1])) / 1024
        }
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        let login = try httpRequest(port: port, "POST", "/~cs458/cgi-bin/login.cgi", headers: form,
                                    body: Array("username=alice&password=wonderland".utf8))
        let token = try XCTUnwrap(String(decoding: login.body, as: UTF8.self).split(separator: "\"").dropFirst(3).first)
        let long = String(repeating: "a", count: 1 << 20)
        let seeded = try httpRequest(port: port, "GET", "/~cs458/cgi-bin/get-tweets.cgi").body
        func add(_ text: String) throws {
            let added = try httpRequest(port: port, "POST", "/~cs458/cgi-bin/add-tweet.cgi", headers: form,
                                        body: Array("username=alice&session_token=\(token)&tweet=\(text)".utf8))
            XCTAssertEqual(added.status, 200)
        }
        func delete(_ id: Int) throws {
            let deleted = try httpRequest(port: port, "POST", "/~cs458/cgi-bin/del-tweet.cgi", headers: form,
                                          body: Array("username=alice&session_token=\(token)&tweet_id=\(id)".utf8))
            XCTAssertEqual(deleted.status, 200, String(decoding: deleted.body, as: UTF8.self))
        }
        let before = try residentMiB()
        // Tweet 24 stays, after a deleted text: each copy of the live texts moves it.
        try add(long)
        try add("still here")
        try delete(23)
        // 150 MiB of texts added and deleted: kept, they would be 150 MiB more.
        for id in 25..<175 {
            try add(long)
            try delete(id)
        }
        XCTAssertLessThan(try residentMiB() - before, 64, "resident memory grew by the deleted texts")
        // The live tweets' texts came through the copies unchanged.
        let tweets = String(decoding: try httpRequest(port: port, "GET", "/~cs458/cgi-bin/get-tweets.cgi").body, as: UTF8.self)
        let seededTweets = String(decoding: seeded.dropLast(2), as: UTF8.self)
        XCTAssertTrue(tweets.hasPrefix(seededTweets + #",{"tweet_id":23,"username":"alice","time_stamp":""#), String(tweets.prefix(300)))
        XCTAssertTrue(tweets.contains(#"","tweet":"still here","isdeleted":0},{"tweet_id":25,"#), String(tweets.suffix(300)))
        #else
        throw XCTSkip("resident memory is read from Linux's /proc")
        #endif
    }
}
