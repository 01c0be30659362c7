import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// What every course API shares: CORS, faults in its own format, state round trips, reset.
final class AllAPIsTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server = nil
    }

    /// One ordinary request per API, as its clients send it.
    private func sample(_ api: String) throws -> ClientResponse {
        let sample = try XCTUnwrap(sampleRequests[api], "\(api) has no sample request")
        return try server.request(sample.method, sample.target, body: sample.body)
    }

    func testHealthAndResetListEveryAPIInOrder() throws {
        XCTAssertTrue(try server.request("GET", "/_mock/health").text
            .hasSuffix(#""apis":["threads","internproducts","wsuv","cse118","otp"]}"#))
        XCTAssertEqual(try server.request("POST", "/_mock/reset").text,
                       #"{"reset":["threads","internproducts","wsuv","cse118","otp"]}"#)
    }

    func testEveryCourseAnswerAllowsAnyOrigin() throws {
        for api in APICatalog.names {
            XCTAssertEqual(try sample(api).headers["Access-Control-Allow-Origin"], "*", api)
        }
        XCTAssertEqual(try server.request("GET", "/no/such/path").headers["Access-Control-Allow-Origin"], "*")
    }

    func testPreflightOfEveryAPIListsTheMethodsServedThere() throws {
        for (path, methods) in [
            ("/api/threads", "GET, HEAD, OPTIONS"),
            ("/PRODUCTS", "GET, HEAD, OPTIONS"),
            ("/~wcochran/cgi-bin/add-tweet.cgi", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"),
            ("/api/v2/workspace/", "GET, HEAD, POST, OPTIONS"),
            ("/api/v1/workspace/7d3a4c5e-0000-4000-8000-000000000000", "DELETE, OPTIONS"),
            ("/api/verify_code", "POST, OPTIONS"),
        ] {
            let response = try server.request("OPTIONS", path, headers: [("Origin", "http://localhost:3000"),
                                                                         ("Access-Control-Request-Method", "POST")])
            XCTAssertEqual(response.status, 204, path)
            XCTAssertEqual(response.headers["Access-Control-Allow-Origin"], "*", path)
            XCTAssertEqual(response.headers["Access-Control-Allow-Methods"], methods, path)
            XCTAssertEqual(response.headers["Access-Control-Allow-Headers"], "Authorization, Content-Type, x-authtoken", path)
            XCTAssertEqual(response.headers["Access-Control-Max-Age"], "600", path)
            XCTAssertEqual(response.body, [], path)
        }
        let unknown = try server.request("OPTIONS", "/api/nothing")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.text, #"{"error":"not_found","path":"/api/nothing"}"#)
    }

    func testInjectedErrorsSpeakEachAPIsFormat() throws {
        let expected: [String: (status: Int, reason: String, body: String)] = [
            "threads": (503, "Service Unavailable", #"{"status":"error","message":"Service unavailable."}"#),
            "internproducts": (503, "Service Unavailable", #"{"status":"FAILED","message":"Service unavailable"}"#),
            "wsuv": (503, "Database Unavailable", ""),
            "cse118": (503, "Service Unavailable", #"{"message":"Service Unavailable","status":503}"#),
            "otp": (200, "OK", #"{"error_code":"server_error","error_message":"Server error","status":"error"}"#),
        ]
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_rate":1.0}"#).status, 200)
        for api in APICatalog.names {
            let response = try sample(api)
            let want = try XCTUnwrap(expected[api])
            XCTAssertEqual(response.status, want.status, api)
            XCTAssertEqual(response.reason, want.reason, api)
            XCTAssertEqual(response.text, want.body, api)
        }
        _ = try server.request("PUT", "/_mock/faults", body: #"{"error_status":500,"apis":["wsuv"]}"#)
        let wsuv = try sample("wsuv")
        XCTAssertEqual("\(wsuv.status) \(wsuv.reason)", "500 Internal Server Error")
        XCTAssertNotEqual(try sample("threads").status, 503, "only the named APIs fail")
    }

    func testStateRoundTripOfEveryAPIChangesNothing() throws {
        for api in APICatalog.names {
            let exported = try server.request("GET", "/_mock/state/\(api)")
            XCTAssertEqual(exported.status, 200, api)
            let loaded = try server.request("PUT", "/_mock/state/\(api)", body: exported.body)
            XCTAssertEqual(loaded.text, #"{"loaded":"\#(api)"}"#, api)
            XCTAssertEqual(try server.request("GET", "/_mock/state/\(api)").body, exported.body, api)
            let broken = try server.request("PUT", "/_mock/state/\(api)", body: "[]")
            XCTAssertEqual(broken.status, 400, api)
            XCTAssertTrue(broken.text.hasPrefix(#"{"error":"invalid_state","path":"$""#), broken.text)
        }
    }

    func testServingASubsetLeavesTheOthersToTheCommon404() throws {
        let only = try TestServer(apis: ["otp"])
        let response = try only.request("GET", "/api/threads")
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.text, #"{"error":"not_found","path":"/api/threads"}"#, "no served route is close")
        XCTAssertEqual(try only.request("POST", "/_mock/reset/threads").text, #"{"error":"unknown_api","api":"threads"}"#)
    }
}

/// The app refuses route tables that collide, naming both APIs.
final class RouteCollisionTests: XCTestCase {
    func testTheSameAPITwiceStopsStartUp() throws {
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
            + APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        XCTAssertThrowsError(try MockApp(apis: apis)) { error in
            XCTAssertEqual("\(error)", "threads and threads both claim /api/login (POST and POST); requests would reach threads only")
        }
    }
}

/// The banner's and index page's endpoint lists come from the route tables.
final class EndpointListTests: XCTestCase {
    func testTheListIsTheRoutesUnderTheFirstBasePath() throws {
        let apis = try APICatalog.load(["threads", "wsuv"], seed: TestServer.shippedSeed, options: APIOptions())
        XCTAssertEqual(apis[0].endpoints, [
            "POST /api/login", "POST /api/signup", "GET /api/threads", "GET /api/thread", "POST /api/thread/add",
            "GET/POST/DELETE /api/thread/delete/{thread_id}", "GET /api/messages/{thread_id}", "POST /api/message/add",
            "GET/POST/DELETE /api/message/delete/{message_id}",
        ])
        XCTAssertEqual(apis[1].endpoints, ["get-tweets", "register", "login", "add-tweet", "del-tweet"].map { "any /~cs458/cgi-bin/\($0).cgi" })
    }
}
