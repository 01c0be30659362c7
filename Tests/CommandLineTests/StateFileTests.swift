import Foundation
import MockHTTP
import MockApp
import MockKit
import MockSupport
import TestSupport
import XCTest

/// `--state FILE` as a TA uses it: what is acknowledged is stored, what cannot be stored is
/// refused, a file that cannot be written stops the start, and reset goes to the seed.
final class StateFileTests: XCTestCase {
    var folder: URL!
    var state: URL { folder.appendingPathComponent("state.json") }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func start(_ file: URL? = nil, _ extra: [String] = ["--only", "threads"]) throws -> (ChildProcess, Int) {
        try ChildProcess.startServer(["--state", (file ?? state).path] + extra)
    }

    func signup(_ email: String, port: Int) throws -> ClientResponse {
        try httpRequest(port: port, "POST", "/api/signup", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array("email=\(email)&password=p&fname=K&lname=P".utf8))
    }

    func login(_ email: String, port: Int) throws -> Int {
        try httpRequest(port: port, "POST", "/api/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array("email=\(email)&password=p".utf8)).status
    }

    func killHard(_ child: ChildProcess) {
        kill(child.process.processIdentifier, SIGKILL)
        XCTAssertEqual(child.waitForExit(), SIGKILL)
    }

    // MARK: Stored, reloaded, reset

    func testAcknowledgedChangesSurviveSIGKILLAndResetReturnsToTheSeed() throws {
        var (server, port) = try start()
        XCTAssertTrue(try httpRequest(port: port, "GET", "/").text.contains(
            "<p class=\"meta\">State: every change is stored in <code>\(state.path)</code> before it is answered; "
                + "reset (<code>POST /_mock/reset</code>) returns to the seed files.</p>"), "the index page names the file")
        let seedState = try httpRequest(port: port, "GET", "/_mock/state/threads").text
        XCTAssertEqual(try signup("keep@x.com", port: port).status, 200)
        killHard(server)

        (server, port) = try start()
        XCTAssertEqual(try login("keep@x.com", port: port), 200, "an acknowledged sign-up survives kill -9")
        XCTAssertEqual(try httpRequest(port: port, "POST", "/_mock/reset").text, #"{"reset":["threads"]}"#)
        XCTAssertEqual(try login("keep@x.com", port: port), 401, "reset goes to the seed, not to the state at start")
        killHard(server)

        (server, port) = try start()
        XCTAssertEqual(try login("keep@x.com", port: port), 401, "the reset was stored")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/state/threads").text, seedState)
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
        // Stopped cleanly, the file is one snapshot: plain JSON, which the next run appends to.
        let snapshot = try Data(contentsOf: state)
        XCTAssertNoThrow(try JSONParser.parse(Array(snapshot)))
        (server, port) = try start()
        XCTAssertEqual(try Data(contentsOf: state), snapshot, "a file that is one snapshot is not rewritten at start")
        XCTAssertEqual(try signup("appended@x.com", port: port).status, 200)
        killHard(server)
        (server, port) = try start()
        XCTAssertEqual(try login("appended@x.com", port: port), 200)
        killHard(server)
    }

    func testLoadedStateIsStoredButResetStillGoesToTheSeed() throws {
        var (server, port) = try start()
        let seedState = try httpRequest(port: port, "GET", "/_mock/state/threads").text
        let loaded = seedState.replacingOccurrences(of: #""email":"b@b.com","password":"test123""#,
                                                    with: #""email":"loaded@x.com","password":"p""#)
        XCTAssertNotEqual(loaded, seedState)
        XCTAssertEqual(try httpRequest(port: port, "PUT", "/_mock/state/threads", body: Array(loaded.utf8)).text,
                       #"{"loaded":"threads"}"#)
        killHard(server)

        (server, port) = try start()
        XCTAssertEqual(try login("loaded@x.com", port: port), 200, "the loaded state was stored")
        XCTAssertEqual(try httpRequest(port: port, "POST", "/_mock/reset/threads").status, 200)
        XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/state/threads").text, seedState)
    }

    /// Reads never touch the file; a write adds one record the size of the change, however large
    /// the state.
    func testReadsWriteNothingAndAWriteAppendsOnlyItsChange() throws {
        let (server, port) = try start(nil, [])
        let token = try XCTUnwrap(
            try JSONParser.parse(try signup("size@x.com", port: port).body).objectValue?["token"]?.stringValue)
        let before = try Data(contentsOf: state)
        for _ in 0..<20 {
            XCTAssertEqual(try httpRequest(port: port, "GET", "/api/threads", headers: [("Authorization", "Bearer \(token)")]).status, 200)
            XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/state/otp").status, 200)
        }
        XCTAssertEqual(try Data(contentsOf: state), before, "reads wrote to the state file")

        let added = try httpRequest(port: port, "POST", "/api/message/add",
                                    headers: [("Authorization", "Bearer \(token)"),
                                              ("Content-Type", "application/x-www-form-urlencoded")],
                                    body: Array("thread_id=1&message=short".utf8))
        XCTAssertEqual(added.status, 200)
        let after = try Data(contentsOf: state)
        XCTAssertEqual(after.prefix(before.count), before, "the write only appended")
        XCTAssertGreaterThan(before.count, 100_000, "the snapshot holds every API, product images included")
        XCTAssertLessThan(after.count - before.count, 400, "one message costs one small record")
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
    }

    /// Group commit: requests that change state at the same time share one flush. Each flush is
    /// held a while (`flushHold`), so the sign-ups sent at once on their own connections queue
    /// behind the first flush and go out together in the next. The poll poller hands connections
    /// to the loops in turn: one loop each, so no sign-up waits for another's answer.
    func testConcurrentWritesShareOneFlush() throws {
        let writers = 8
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        let log = StateLog(path: state.path, console: { _ in })
        log.flushHold = 0.5
        try log.open(apis)
        var settings = AppSettings()
        settings.stateLog = log
        let server = try TestServer(responder: MockApp(apis: apis, settings: settings)) {
            $0.threads = writers
            $0.poller = .poll
        }
        try log.beginWriting()
        let port = server.port
        let statuses = Locked([Int]())
        let done = DispatchGroup()
        for index in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                guard let client = try? BlockingClient(port: port) else { return statuses.withLock { $0.append(0) } }
                let body = "email=group\(index)@x.com&password=p&fname=K&lname=P"
                client.send("POST /api/signup HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
                let status = (try? client.readResponse().status) ?? 0
                statuses.withLock { $0.append(status) }
            }
        }
        done.wait()
        XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: writers), "every sign-up acknowledged")
        let health = try JSONParser.parse(try server.request("GET", "/_mock/health").body)
        let stateFile = try XCTUnwrap(health.objectValue?["state_file"]?.objectValue, "\(health)")
        XCTAssertEqual(stateFile["changes_stored"]?.numberText, "\(writers)")
        let flushes = try XCTUnwrap(stateFile["flushes"]?.numberText.flatMap { Int($0) })
        XCTAssertLessThan(flushes, writers, "each write flushed on its own: no group commit")

        let reloaded = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        try StateLog(path: state.path, console: { _ in }).open(reloaded)
        let stored = String(decoding: reloaded[0].exportState(), as: UTF8.self)
        XCTAssertEqual((0..<writers).filter { !stored.contains("\"email\":\"group\($0)@x.com\"") }, [], "not stored")
    }

    /// Every kind of change of every API, replayed from the log after kill -9, gives back the same
    /// state: a change whose rows were not all written would show here.
    func testEveryKindOfChangeReplaysToTheSameState() throws {
        var (server, port) = try start(nil, ["--otp-code", "123456"])
        func call(_ method: String, _ target: String, _ body: String = "", json: Bool = false,
                  headers: [(String, String)] = []) throws -> JSONValue {
            let type = json ? "application/json" : "application/x-www-form-urlencoded"
            let answer = try httpRequest(port: port, method, target, headers: headers + [("Content-Type", type)],
                                         body: Array(body.utf8))
            XCTAssertTrue((200..<300).contains(answer.status), "\(method) \(target): \(answer.status) \(answer.text)")
            return (try? JSONParser.parse(answer.body)) ?? .null
        }
        func text(_ value: JSONValue, _ path: String...) -> String {
            var node = value
            for key in path { node = node.objectValue?[key] ?? .null }
            return node.stringValue ?? node.numberText ?? ""
        }
        // threads
        let threadsToken = text(try call("POST", "/api/signup", "email=all@x.com&password=p&fname=A&lname=L"), "token")
        let bearer = [("Authorization", "Bearer \(threadsToken)")]
        let thread = text(try call("POST", "/api/thread/add", "title=t", headers: bearer), "thread", "thread_id")
        let gone = text(try call("POST", "/api/message/add", "thread_id=\(thread)&message=m1", headers: bearer), "message", "message_id")
        _ = try call("POST", "/api/message/add", "thread_id=\(thread)&message=m2", headers: bearer)
        _ = try call("POST", "/api/message/delete/\(gone)", headers: bearer)
        let doomed = text(try call("POST", "/api/thread/add", "title=doomed", headers: bearer), "thread", "thread_id")
        _ = try call("POST", "/api/message/add", "thread_id=\(doomed)&message=m3", headers: bearer)
        _ = try call("POST", "/api/thread/delete/\(doomed)", headers: bearer)
        _ = try call("GET", "/api/thread", headers: bearer)
        // Seeded rows, which the restart finds in the snapshot's text, not in the log: a message, and
        // a thread with the messages of three users in it.
        let ervin = [("Authorization", "Bearer \(text(try call("POST", "/api/login", "email=a@a.com&password=test123"), "token"))")]
        _ = try call("POST", "/api/message/delete/5", headers: ervin)
        _ = try call("POST", "/api/thread/delete/1", headers: ervin)
        // internproducts
        _ = try call("GET", "/register?username=allx&password=p")
        // wsuv
        let session = text(try call("POST", "/cgi-bin/register.cgi", "username=allx&password=p"), "session_token")
        _ = try call("POST", "/cgi-bin/add-tweet.cgi", "username=allx&session_token=\(session)&tweet=hi")
        _ = try call("POST", "/cgi-bin/add-tweet.cgi", "username=allx&session_token=\(session)&tweet=bye")
        _ = try call("POST", "/cgi-bin/del-tweet.cgi", "username=allx&session_token=\(session)&tweet_id=23")
        _ = try call("POST", "/cgi-bin/login.cgi", "username=allx&password=p&action=logout")
        // A seeded user (keyed by a string) logs in: the snapshot's text holds the row.
        _ = try call("POST", "/cgi-bin/login.cgi", "username=alice&password=wonderland")
        // cse118
        let sammy = text(try call("POST", "/api/v2/login", #"{"email":"sslug@ucsc.edu","password":"1234567"}"#, json: true),
                         "accessToken")
        let auth = [("Authorization", "Bearer \(sammy)")]
        // A seeded channel, in a workspace the snapshot's text holds.
        _ = try call("POST", "/api/v2/channel/ddf421ec-f574-4c8a-a146-2b69e0dd609e/message", #"{"content":"seeded"}"#,
                     json: true, headers: auth)
        // A deleted fixture workspace, which the reset puts back at its place before the others.
        _ = try call("DELETE", "/api/v2/workspace/e9db2d18-0175-48a4-97cb-ba998393ba49", headers: auth)
        _ = try call("PUT", "/api/v2/reset", headers: auth)
        let workspace = text(try call("POST", "/api/v2/workspace", #"{"name":"w"}"#, json: true, headers: auth), "id")
        let channel = text(try call("POST", "/api/v2/workspace/\(workspace)/channel", #"{"name":"c"}"#, json: true, headers: auth), "id")
        let message = text(try call("POST", "/api/v2/channel/\(channel)/message", #"{"content":"x"}"#, json: true, headers: auth), "id")
        _ = try call("POST", "/api/v2/channel/\(channel)/message", #"{"content":"y"}"#, json: true, headers: auth)
        _ = try call("DELETE", "/api/v2/message/\(message)", headers: auth)
        let other = "4b3ed3ff-5cbd-4e96-b3de-e3c6195917fa"
        _ = try call("POST", "/api/v2/workspace/\(workspace)/member?mid=\(other)", headers: auth)
        let spare = text(try call("POST", "/api/v2/workspace/\(workspace)/channel", #"{"name":"d"}"#, json: true, headers: auth), "id")
        _ = try call("DELETE", "/api/v2/channel/\(spare)", headers: auth)
        let second = text(try call("POST", "/api/v2/workspace", #"{"name":"w2"}"#, json: true, headers: auth), "id")
        _ = try call("DELETE", "/api/v2/workspace/\(second)", headers: auth)
        // otp
        _ = try call("POST", "/api/send_verification_code", #"{"phone_number":"5305550177"}"#, json: true)
        let otp = text(try call("POST", "/api/verify_code", #"{"e164_phone_number":"+15305550177","code":"123456"}"#, json: true),
                       "auth_token")
        _ = try call("POST", "/api/user", #"{"name":"N","accounts":[]}"#, json: true, headers: [("x-authtoken", otp)])

        let apis = ["threads", "internproducts", "wsuv", "cse118", "otp"]
        let before = try apis.map { try httpRequest(port: port, "GET", "/_mock/state/\($0)").text }
        killHard(server)
        (server, port) = try start(nil, ["--otp-code", "123456"])
        for (api, state) in zip(apis, before) {
            XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/state/\(api)").text, state, api)
        }
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
    }

    /// After a crash the start appends to the file as it is, a short log included, and the first
    /// write cuts off the record the crash tore.
    func testStartAfterACrashAppendsAfterTheLastWholeRecord() throws {
        var (server, port) = try start()
        XCTAssertEqual(try signup("kept@x.com", port: port).status, 200)
        XCTAssertEqual(try signup("torn@x.com", port: port).status, 200)
        killHard(server)
        let whole = try Data(contentsOf: state)
        let tornStart = try XCTUnwrap(whole.dropLast().lastIndex(of: 10)) + 1
        try whole.dropLast(5).write(to: state)

        (server, port) = try start()
        XCTAssertTrue(server.waitForOutput("state file: dropped \(whole.count - 5 - tornStart) bytes after the last whole change"),
                      server.standardOutput)
        XCTAssertEqual(try Data(contentsOf: state), whole.dropLast(5), "the start rewrote the file")
        XCTAssertEqual(try signup("after@x.com", port: port).status, 200)
        XCTAssertEqual(try Data(contentsOf: state).prefix(tornStart), whole.prefix(tornStart), "not appended")
        killHard(server)

        (server, port) = try start()
        XCTAssertEqual(try login("kept@x.com", port: port), 200)
        XCTAssertEqual(try login("torn@x.com", port: port), 401)
        XCTAssertEqual(try login("after@x.com", port: port), 200)
        killHard(server)
    }

    /// A power loss while the first record was appended can leave zeros after the snapshot.
    func testZerosAfterTheSnapshotAreATornRecord() throws {
        var (server, port) = try start()
        XCTAssertEqual(try signup("kept@x.com", port: port).status, 200)
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0, server.standardError)
        let snapshot = try Data(contentsOf: state)
        XCTAssertEqual(snapshot.last, 10, "a clean stop leaves one snapshot line")
        try (snapshot + Data(count: 4096)).write(to: state)

        (server, port) = try start()
        XCTAssertTrue(server.waitForOutput("state file: dropped 4096 bytes after the last whole change"), server.standardOutput)
        XCTAssertEqual(try signup("after@x.com", port: port).status, 200)
        killHard(server)
        XCTAssertFalse(try Data(contentsOf: state).contains(0), "the zeros were cut before appending")

        (server, port) = try start()
        XCTAssertEqual(try login("kept@x.com", port: port), 200)
        XCTAssertEqual(try login("after@x.com", port: port), 200)
        killHard(server)
    }

    // MARK: Files that cannot be used

    /// The one line a start that cannot write its state file prints.
    /// Each cause gets the fix that fits it (`advice`, a part of the line).
    private func assertStartRefused(_ arguments: [String], cause: String, advice: String, path: String, reading: Bool = false,
                                    wrapper: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let child = try ChildProcess(["--port", "0"] + arguments, wrapper: wrapper)
        XCTAssertEqual(child.waitForExit(timeout: 10), 1, child.standardOutput + child.standardError, file: file, line: line)
        if child.process.isRunning { child.process.terminate() }
        let message = child.standardError
        XCTAssertTrue(message.hasPrefix("mock-backend: cannot \(reading ? "read" : "write") the state file \(path): \(cause); "),
                      message, file: file, line: line)
        XCTAssertTrue(message.contains(advice), message, file: file, line: line)
        XCTAssertEqual(message.filter { $0 == "\n" }.count, 1, "one line", file: file, line: line)
        XCTAssertFalse(child.standardOutput.contains("listening on"), file: file, line: line)
    }

    func testMissingFolderStopsTheStart() throws {
        let missing = folder.appendingPathComponent("no/such/state.json")
        try assertStartRefused(["--state", missing.path], cause: "no such folder",
                               advice: "the folder \(missing.deletingLastPathComponent().path) does not exist. Create it (mkdir -p",
                               path: missing.path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))
    }

    /// A folder the server's user cannot write, as a root-owned host folder is to the image's
    /// uid 10001. As root the server is started as uid 10001 through setpriv.
    func testFolderTheUserCannotWriteStopsTheStart() throws {
        guard let wrapper = ChildProcess.ordinaryUserWrapper else {
            throw XCTSkip("running as root without setpriv: cannot run the server as another user")
        }
        if getuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        let seed = TestServer.shippedSeed.url.path
        try assertStartRefused(["--state", state.path, "--seed", seed], cause: "permission denied",
                               advice: "running as uid 10001, which may not write there. Give --state a file in a folder this user"
                                   + " can write; in Docker, use a named volume (-v mock-data:/data) or a host folder writable by uid 10001",
                               path: state.path, wrapper: wrapper)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    func testReadOnlyFileSystemStopsTheStart() throws {
        let mount = try SmallFileSystem(at: folder, kilobytes: 256)
        defer { mount.remove() }
        try mount.remount(readOnly: true)
        try assertStartRefused(["--state", state.path, "--only", "threads"], cause: "read-only file system",
                               advice: "\(folder.path) is on a read-only file system. Give --state a file on a writable one; in Docker"
                                   + " with --read-only, mount a volume there", path: state.path)
    }

    func testGarbageStateFileStopsTheStartAndIsLeftAsItWas() throws {
        let garbage = Data("this is not JSON {".utf8) + Data((0..<256).map { UInt8($0) })
        try garbage.write(to: state)
        let child = try ChildProcess(["--port", "0", "--state", state.path, "--only", "threads"])
        XCTAssertEqual(child.waitForExit(), 1)
        XCTAssertTrue(child.standardError.hasPrefix("mock-backend: bad state file: \(state.path):1:2: $: not a state file ("),
                      child.standardError)
        XCTAssertTrue(child.standardError.hasSuffix("; move it away or give another --state FILE\n"), child.standardError)
        XCTAssertEqual(try Data(contentsOf: state), garbage)
    }

    /// A start that fails once the state file was read (here: the port is taken) writes nothing:
    /// a new file is not created, an existing one, even one with a log to compact, keeps its bytes,
    /// and no temporary file is left beside it.
    func testFailedStartLeavesTheStateFileAsItWas() throws {
        let holder = try TestServer(responder: MockApp(apis: []))
        func startOnTheBusyPort() {
            let child = try? ChildProcess(["--host", "127.0.0.1", "--port", String(holder.port), "--state", state.path,
                                           "--only", "threads"])
            XCTAssertEqual(child?.waitForExit(), 1)
            XCTAssertEqual(child?.standardError,
                           "mock-backend: port \(holder.port) is already in use on 127.0.0.1; stop the other server or choose another port with --port\n")
        }
        startOnTheBusyPort()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "a new file was written")

        let (server, port) = try start()
        XCTAssertEqual(try signup("logged@x.com", port: port).status, 200)
        killHard(server)
        let logged = try Data(contentsOf: state)
        XCTAssertTrue(String(decoding: logged, as: UTF8.self).contains("\n~"), "the file holds a log")
        // Cut into the last record, as a crash does: a start that went on would cut it off at its
        // first write.
        try logged.dropLast(3).write(to: state)
        startOnTheBusyPort()
        XCTAssertEqual(try Data(contentsOf: state), logged.dropLast(3), "the file was changed")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["state.json"])
    }

    /// Each API reads its part of the snapshot straight from the text: a bad row is named by its
    /// place in the whole file, and a file that is JSON but not an object is not a state file.
    func testBadStateFilesAreNamedAndLeftAsTheyWere() throws {
        let (server, port) = try start()
        XCTAssertEqual(try signup("row@x.com", port: port).status, 200)
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
        let snapshot = String(decoding: try Data(contentsOf: state), as: UTF8.self)
        let cases = [
            (snapshot.replacingOccurrences(of: #""email":"row@x.com""#, with: #""email":5"#),
             "$.threads.users[4].email: expected a string"),
            ("[1,2]\n", "$: not a state file: expected an object with one member per API"),
        ]
        for (text, problem) in cases {
            try Data(text.utf8).write(to: state)
            let child = try ChildProcess(["--port", "0", "--state", state.path, "--only", "threads"])
            XCTAssertEqual(child.waitForExit(), 1)
            XCTAssertEqual(child.standardError, "mock-backend: bad state file: \(state.path): \(problem)\n")
            XCTAssertEqual(String(decoding: try Data(contentsOf: state), as: UTF8.self), text)
        }
    }

    // MARK: A full disk

    /// The disk fills up: the change is refused with the API's own server error and not applied,
    /// health says why, and once there is room again writes succeed without a restart.
    func testFullDiskRefusesTheChangeAndRecoversWithoutARestart() throws {
        let mount = try SmallFileSystem(at: folder, kilobytes: 512)
        defer { mount.remove() }
        let (server, port) = try start()
        XCTAssertEqual(try signup("before@x.com", port: port).status, 200)
        let filler = folder.appendingPathComponent("filler")
        mount.fill(filler)

        // Appends fill the file's last page first; one of the next few needs a page there is no room for.
        var refusedEmail: String?
        for attempt in 0..<40 where refusedEmail == nil {
            let answer = try signup("refused\(attempt)@x.com", port: port)
            if answer.status != 200 {
                XCTAssertEqual(answer.status, 500)
                XCTAssertEqual(answer.text, #"{"status":"error","message":"Service unavailable."}"#)
                refusedEmail = "refused\(attempt)@x.com"
            }
        }
        let refusedOne = try XCTUnwrap(refusedEmail, "no sign-up was refused on a full disk")
        XCTAssertFalse(try httpRequest(port: port, "GET", "/_mock/state/threads").text.contains(refusedOne),
                       "a refused change is not applied")
        let health = try httpRequest(port: port, "GET", "/_mock/health")
        XCTAssertEqual(health.status, 503)
        XCTAssertTrue(health.text.contains(#""status":"state_file_failing""#), health.text)
        XCTAssertTrue(health.text.contains(#""state_file":{"path":"\#(state.path)","stored":false,"error":"\#(state.path): no space left on the device (write)","changes_stored":"#),
                      health.text)
        // The console line is written before the answer, but reaches this process through a pipe.
        XCTAssertTrue(server.waitForOutput("state file: cannot store changes: \(state.path): no space left on the device"),
                      server.standardOutput)

        try FileManager.default.removeItem(at: filler)
        XCTAssertEqual(try signup("after@x.com", port: port).status, 200, "writes succeed again without a restart")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/health").status, 200)
        XCTAssertTrue(server.waitForOutput("state file: changes are stored again"), server.standardOutput)
        killHard(server)

        let (restarted, again) = try start()
        XCTAssertEqual(try login("before@x.com", port: again), 200)
        XCTAssertEqual(try login("after@x.com", port: again), 200)
        XCTAssertEqual(try login(refusedOne, port: again), 401)
        killHard(restarted)
    }

    // MARK: A torn last record

    /// A crash in the middle of appending leaves the last record cut anywhere: every cut starts,
    /// and shows the state before that change or, with the whole record, after it; never half.
    func testTornLastRecordIsDroppedAtEveryByteOffset() throws {
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        var settings = AppSettings()
        settings.stateLog = StateLog(path: state.path, console: { _ in })
        try settings.stateLog!.open(apis)
        let server = try TestServer(responder: MockApp(apis: apis, settings: settings))
        try settings.stateLog!.beginWriting()
        let token = try XCTUnwrap(
            try JSONParser.parse(try signup("torn@x.com", port: server.port).body).objectValue?["token"]?.stringValue)
        let thread = try server.request("POST", "/api/thread/add", headers: [("Authorization", "Bearer \(token)"),
                                                                             ("Content-Type", "application/x-www-form-urlencoded")],
                                        body: "title=torn")
        XCTAssertEqual(thread.status, 200)
        _ = try server.request("POST", "/api/message/add", headers: [("Authorization", "Bearer \(token)"),
                                                                    ("Content-Type", "application/x-www-form-urlencoded")],
                               body: "thread_id=5&message=inside")
        // The last change touches two rows: a thread and its message go together.
        XCTAssertEqual(try server.request("POST", "/api/thread/delete/5", headers: [("Authorization", "Bearer \(token)")]).status, 200)
        let whole = Array(try Data(contentsOf: state))
        let lastRecord = try XCTUnwrap(whole.dropLast().lastIndex(of: 10)) + 1
        XCTAssertEqual(whole[lastRecord], UInt8(ascii: "~"))

        func reopened(_ bytes: ArraySlice<UInt8>) throws -> (state: [UInt8], console: [String]) {
            let copy = folder.appendingPathComponent("cut.json")
            try Data(bytes).write(to: copy)
            let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
            let lines = Locked([String]())
            try StateLog(path: copy.path, console: { line in lines.withLock { $0.append(line) } }).open(apis)
            return (apis[0].exportState(), lines.withLock { $0 })
        }
        let before = try reopened(whole[..<lastRecord])
        let after = try reopened(whole[...])
        XCTAssertEqual(after.console, [])
        XCTAssertTrue(String(decoding: before.state, as: UTF8.self).contains(#""title":"torn""#))
        XCTAssertFalse(String(decoding: after.state, as: UTF8.self).contains(#""title":"torn""#))
        XCTAssertFalse(String(decoding: after.state, as: UTF8.self).contains(#""message":"inside""#))
        for cut in (lastRecord + 1)..<whole.count {
            let reloaded = try reopened(whole[..<cut])
            XCTAssertEqual(reloaded.state, before.state, "cut at \(cut) of \(whole.count)")
            XCTAssertEqual(reloaded.console, ["state file: dropped \(cut - lastRecord) bytes after the last whole change (a write cut short, never acknowledged)"])
        }
    }
}

/// A small tmpfs mounted over a test folder, to fill up or make read-only. Needs root and a
/// kernel that lets it mount; the tests that need one are skipped, saying so, where it cannot.
struct SmallFileSystem {
    let folder: URL

    init(at folder: URL, kilobytes: Int) throws {
        self.folder = folder
        guard getuid() == 0, Self.run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder.path]) == 0 else {
            throw XCTSkip("cannot mount a small tmpfs here (needs root and mount rights)")
        }
    }

    func remount(readOnly: Bool) throws {
        guard Self.run(["mount", "-o", "remount,\(readOnly ? "ro" : "rw")", folder.path]) == 0 else {
            throw XCTSkip("cannot remount the tmpfs read-only")
        }
    }

    /// Writes to `file` until the file system is full.
    func fill(_ file: URL) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else { return }
        let block = Data(count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
        try? handle.close()
    }

    func remove() {
        _ = Self.run(["umount", folder.path])
    }

    private static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
