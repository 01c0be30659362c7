import Foundation
import MockApp
import MockHTTP
import MockKit
import TestSupport
import XCTest

/// The example API is served, reset, exported and documented like the real five, by the kit alone.
final class ExampleAPITests: XCTestCase {
    private var server: TestServer!
    private var api: ExampleAPI!

    override func setUpWithError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("example-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"notes":[{"note_id":1,"text":"first note"}]}"#.utf8).write(to: folder.appendingPathComponent("example.json"))
        api = try ExampleAPI(seed: SeedDirectory(url: folder), options: APIOptions())
        server = try TestServer(responder: MockApp(apis: [api]))
    }

    override func tearDown() {
        server = nil
    }

    func testServesItsRoutesWithCORSAndItsOwnErrors() throws {
        let list = try server.request("GET", "/notes")
        XCTAssertEqual(list.status, 200)
        XCTAssertEqual(list.text, #"[{"note_id":1,"text":"first note"}]"#)
        XCTAssertEqual(list.headers["Access-Control-Allow-Origin"], "*")
        let added = try server.request("POST", "/notes", body: "milk")
        XCTAssertEqual(added.status, 201)
        XCTAssertEqual(added.text, #"[{"note_id":1,"text":"first note"},{"note_id":2,"text":"milk"}]"#)
        let empty = try server.request("POST", "/notes")
        XCTAssertEqual("\(empty.status) \(empty.text)", #"400 {"error":"emptyNote"}"#)
        let wrongMethod = try server.request("PUT", "/notes", body: "x")
        XCTAssertEqual("\(wrongMethod.status) \(wrongMethod.text)", #"405 {"error":"methodNotAllowed"}"#)
        XCTAssertEqual(wrongMethod.headers["Allow"], "GET, POST, OPTIONS")
    }

    func testResetStateAndHealthGoThroughTheControlSurface() throws {
        XCTAssertEqual(try server.request("GET", "/_mock/health").text.hasSuffix(#""apis":["example"]}"#), true)
        _ = try server.request("POST", "/notes", body: "milk")
        XCTAssertEqual(try server.request("GET", "/_mock/state/example").text,
                       #"{"notes":[{"note_id":1,"text":"first note"},{"note_id":2,"text":"milk"}]}"#)
        XCTAssertEqual(try server.request("POST", "/_mock/reset/example").text, #"{"reset":["example"]}"#)
        XCTAssertEqual(try server.request("GET", "/notes").text, #"[{"note_id":1,"text":"first note"}]"#)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/example", body: #"{"notes":[{"note_id":7,"text":"loaded"}]}"#).text,
                       #"{"loaded":"example"}"#)
        XCTAssertEqual(try server.request("GET", "/notes").text, #"[{"note_id":7,"text":"loaded"}]"#)
        XCTAssertEqual(try server.request("PUT", "/_mock/state/example", body: #"{"notes":[{"note_id":1,"text":1}]}"#).text,
                       #"{"error":"invalid_state","path":"$.notes[0].text","detail":"expected a string"}"#)
    }

    func testInjectedFaultsSpeakItsFormat() throws {
        XCTAssertEqual(try server.request("PUT", "/_mock/faults", body: #"{"error_rate":1.0,"error_status":502}"#).status, 200)
        let fault = try server.request("GET", "/notes")
        XCTAssertEqual("\(fault.status) \(fault.text)", #"502 {"error":"serviceUnavailable"}"#)
    }

    func testOpenAPIDocumentAndEndpointListComeFromTheAPI() throws {
        let document = try server.request("GET", "/_mock/openapi/example.json")
        XCTAssertEqual(document.status, 200)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(document.body)) as? [String: Any])
        XCTAssertEqual((parsed["info"] as? [String: Any])?["title"] as? String, "Example notes")
        XCTAssertEqual((parsed["paths"] as? [String: Any])?.keys.sorted(), ["/notes"])
        XCTAssertEqual(api.endpoints, ["GET /notes", "POST /notes"])
    }

    func testInProcessTheControlSurfaceIsLoopbackOnlyAndTheAPIPublic() throws {
        let app = try MockApp(apis: [api])
        XCTAssertEqual(app.respond("POST", "/notes", body: "from afar", from: "192.0.2.10").status, 201)
        XCTAssertEqual(app.respond("POST", "/_mock/reset/example", from: "192.0.2.10").status, 403)
        XCTAssertEqual(String(decoding: app.respond("POST", "/_mock/reset/example").body, as: UTF8.self), #"{"reset":["example"]}"#)
        XCTAssertEqual(String(decoding: app.respond("GET", "/notes").body, as: UTF8.self), #"[{"note_id":1,"text":"first note"}]"#)
    }
}
