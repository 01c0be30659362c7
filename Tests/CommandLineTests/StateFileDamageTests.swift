import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// `--state FILE` when the file, its folder or its disk is damaged or taken away: no acknowledged
/// change is lost, a damaged file is refused and kept, an odd path is refused at once.
extension StateFileTests {
    /// A server that exits 1 at once, with one line on standard error; returns it.
    private func refusedStart(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let child = try ChildProcess(["--port", "0"] + arguments)
        let status = child.waitForExit(timeout: 10)
        if status == nil { child.process.terminate() }
        XCTAssertEqual(status, 1, "exits at once: " + child.standardOutput + child.standardError, file: file, line: line)
        XCTAssertFalse(child.standardOutput.contains("listening on"), file: file, line: line)
        XCTAssertEqual(child.standardError.filter { $0 == "\n" }.count, 1, child.standardError, file: file, line: line)
        return child.standardError
    }

    // MARK: Damage in the middle of the log

    /// 8 sign-ups in 8 records after the snapshot; the file's lines.
    private func logOfEightSignups() throws -> [Data] {
        let (server, port) = try start()
        for index in 1...8 { XCTAssertEqual(try signup("log\(index)@x.com", port: port).status, 200) }
        killHard(server)
        let lines = try Data(contentsOf: state).split(separator: 10, omittingEmptySubsequences: false).map { Data($0) }
        XCTAssertEqual(lines.count, 10, "a snapshot line, 8 records, the empty end")
        return lines
    }

    private func write(_ lines: [Data]) throws -> Data {
        let bytes = Data(lines.joined(separator: [10]))
        try bytes.write(to: state)
        return bytes
    }

    /// One changed byte, one changed checksum digit, a deleted line, two swapped lines: whole
    /// records follow the damage, so the start is refused, naming the record, and the file is
    /// kept. Before: the start dropped the damaged record and every one after it as a torn write.
    func testDamageInTheMiddleOfTheLogStopsTheStartAndKeepsTheFile() throws {
        let lines = try logOfEightSignups()
        func changed(_ line: Data, at offset: Int, to byte: UInt8) -> Data {
            var line = line
            line[line.startIndex + offset] = byte
            return line
        }
        // Record 4 is line 5 (the snapshot is line 1).
        var byte = lines
        byte[4] = changed(lines[4], at: 40, to: lines[4][lines[4].startIndex + 40] ^ 1)
        var digit = lines
        digit[4] = changed(lines[4], at: 3, to: lines[4][lines[4].startIndex + 3] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        var deleted = lines
        deleted.remove(at: 4)
        var swapped = lines
        swapped.swapAt(4, 5)
        for (name, damaged) in [("a changed byte", byte), ("a changed checksum digit", digit), ("a deleted line", deleted),
                                ("two swapped lines", swapped)] {
            let bytes = try write(damaged)
            let message = try refusedStart(["--state", state.path, "--only", "threads"])
            XCTAssertTrue(message.hasPrefix("mock-backend: bad state file: \(state.path):5: $: record 4 of the log (line 5) is damaged:"
                                            + " it does not check against the record before it, yet whole records follow it"),
                          "\(name): \(message)")
            XCTAssertTrue(message.contains("The file is left as it is"), message)
            XCTAssertEqual(try Data(contentsOf: state), bytes, "\(name): the file is kept as it was")
        }
    }

    /// Damage in the last record is what a crash leaves: the start drops it, as before.
    func testDamageInTheLastRecordIsATornWrite() throws {
        var lines = try logOfEightSignups()
        lines[8][lines[8].startIndex + 40] ^= 1
        _ = try write(lines)
        let (server, port) = try start()
        XCTAssertTrue(server.waitForOutput("state file: dropped \(lines[8].count + 1) bytes after the last whole change"),
                      server.standardOutput)
        XCTAssertEqual(try login("log7@x.com", port: port), 200)
        XCTAssertEqual(try login("log8@x.com", port: port), 401)
        killHard(server)
    }

    // MARK: Paths that are not state files

    /// A FIFO used to block the start (> 20 s) and `/dev/zero` to end it allocating gigabytes;
    /// each is refused at once, as is a folder, a file larger than the memory budget (sparse: no
    /// disk used) and an empty file, which this server never leaves.
    func testOddPathsAreRefusedAtOnce() throws {
        let fifo = folder.appendingPathComponent("fifo")
        XCTAssertEqual(mkfifo(fifo.path, 0o644), 0)
        var message = try refusedStart(["--state", fifo.path])
        XCTAssertEqual(message, "mock-backend: cannot read the state file \(fifo.path): it is a named pipe (FIFO), not a file;"
                       + " Give --state a regular file (mock-backend writes it itself)\n")

        message = try refusedStart(["--state", "/dev/zero"])
        XCTAssertEqual(message, "mock-backend: cannot read the state file /dev/zero: it is a device, not a file;"
                       + " Give --state a regular file (mock-backend writes it itself)\n")

        message = try refusedStart(["--state", folder.path])
        XCTAssertEqual(message, "mock-backend: cannot read the state file \(folder.path): it is a folder; \(folder.path) is a folder."
                       + " Give --state a file, e.g. --state \(folder.appendingPathComponent("state.json").path)\n")

        let large = folder.appendingPathComponent("large.json")
        XCTAssertTrue(FileManager.default.createFile(atPath: large.path, contents: nil))
        XCTAssertEqual(truncate(large.path, 3 << 20), 0)
        message = try refusedStart(["--state", large.path, "--memory-budget", "2097152"])
        XCTAssertEqual(message, "mock-backend: cannot read the state file \(large.path): it holds 3145728 bytes, more than the memory"
                       + " budget (2097152 bytes, --memory-budget) that would hold it; Raise --memory-budget if it really is a state"
                       + " file, or move it away\n")

        for content in ["", " \n"] {
            try Data(content.utf8).write(to: state)
            message = try refusedStart(["--state", state.path])
            XCTAssertTrue(message.hasPrefix("mock-backend: bad state file: \(state.path): $: the file is empty; mock-backend never"
                                            + " leaves an empty state file"), message)
            XCTAssertEqual(try Data(contentsOf: state), Data(content.utf8), "kept")
        }
    }

    // MARK: The file or its folder taken away

    /// The folder deleted under a running server: the next write is refused (threads' own 500),
    /// health is 503 naming the cause, the console says so once; once the folder is back the
    /// server writes the whole state there by itself and writes succeed. Before: writes were
    /// appended to the deleted file and acknowledged, all lost, and health said ok.
    func testDeletedFolderRefusesWritesUntilItIsBack() throws {
        let inner = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        let file = inner.appendingPathComponent("state.json")
        var (server, port) = try start(file)
        XCTAssertEqual(try signup("before@x.com", port: port).status, 200)
        try FileManager.default.removeItem(at: inner)

        for attempt in 0..<3 {
            let refused = try signup("gone\(attempt)@x.com", port: port)
            XCTAssertEqual(refused.status, 500, "attempt \(attempt)")
            XCTAssertEqual(refused.text, #"{"status":"error","message":"Service unavailable."}"#)
        }
        let health = try httpRequest(port: port, "GET", "/_mock/health")
        XCTAssertEqual(health.status, 503)
        // The first cause, then why the server cannot write a new file there.
        XCTAssertTrue(health.text.contains(#""stored":false,"error":"\#(file.path): no such folder (create)""#), health.text)
        XCTAssertTrue(server.waitForOutput("state file: cannot store changes: \(file.path): the file was deleted"), server.standardOutput)
        XCTAssertEqual(server.standardOutput.components(separatedBy: "state file: cannot store changes").count, 2, "one console line")
        // Reads only: a login writes its token, refused too.
        let kept = try httpRequest(port: port, "GET", "/_mock/state/threads").text
        XCTAssertTrue(kept.contains(#""email":"before@x.com""#), "what was stored before stays")
        XCTAssertFalse(kept.contains("gone0@x.com"), "a refused change is withdrawn")

        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        XCTAssertTrue(server.waitForOutput("state file: changes are stored again", timeout: 10), server.standardOutput)
        XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/health").status, 200)
        XCTAssertTrue(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains(#""email":"before@x.com""#),
                      "the whole state is written anew")
        XCTAssertEqual(try signup("after@x.com", port: port).status, 200)
        killHard(server)

        (server, port) = try start(file)
        XCTAssertEqual(try login("before@x.com", port: port), 200)
        XCTAssertEqual(try login("after@x.com", port: port), 200)
        XCTAssertEqual(try login("gone1@x.com", port: port), 401)
        killHard(server)
    }

    /// Another file moved over the state file: the next write is refused, and the server puts its
    /// own whole state back at the path (no write is acknowledged into a file no one will read).
    func testReplacedFileIsNoticed() throws {
        var (server, port) = try start()
        XCTAssertEqual(try signup("before@x.com", port: port).status, 200)
        let other = folder.appendingPathComponent("other.json")
        try FileManager.default.copyItem(at: state, to: other)
        XCTAssertEqual(rename(other.path, state.path), 0)

        XCTAssertEqual(try signup("replaced@x.com", port: port).status, 500)
        XCTAssertTrue(server.waitForOutput("state file: cannot store changes: \(state.path): the file was replaced or moved while the server ran"),
                      server.standardOutput)
        XCTAssertTrue(server.waitForOutput("state file: changes are stored again", timeout: 10), server.standardOutput)
        XCTAssertEqual(try signup("after@x.com", port: port).status, 200)
        killHard(server)

        (server, port) = try start()
        XCTAssertEqual(try login("before@x.com", port: port), 200)
        XCTAssertEqual(try login("replaced@x.com", port: port), 401)
        XCTAssertEqual(try login("after@x.com", port: port), 200)
        killHard(server)
    }

    // MARK: A full disk

    /// The log grows on a nearly full disk until it is due for compaction, which finds no room:
    /// the log is kept, writes go on, health says so (200). After kill -9 with the disk full to
    /// the last byte the server starts in place. Before: compaction failed silently, and the
    /// start needed room for a second copy (or one byte beside the file) and was refused.
    func testFullDiskKeepsTheLogAndStartsInPlace() throws {
        let mount = try SmallFileSystem(at: folder, kilobytes: 1024)
        defer { mount.remove() }
        var (server, port) = try start()
        // Room for the log to pass the 64 KiB at which compaction is due, not for a copy beside it.
        let free = try XCTUnwrap(FileManager.default.attributesOfFileSystem(forPath: folder.path)[.systemFreeSize] as? Int)
        let filler = folder.appendingPathComponent("filler")
        try Data(count: free - 96 * 1024).write(to: filler)
        var acknowledged: [String] = []
        var index = 0
        while !server.standardOutput.contains("state file: cannot compact the log") && index < 600 {
            index += 1
            if try signup("grow\(index)@x.com", port: port).status == 200 { acknowledged.append("grow\(index)@x.com") }
        }
        XCTAssertTrue(server.waitForOutput("state file: cannot compact the log (\(state.path): no space left on the device"),
                      server.standardOutput)
        let health = try httpRequest(port: port, "GET", "/_mock/health")
        XCTAssertEqual(health.status, 200, health.text)
        XCTAssertTrue(health.text.hasPrefix(#"{"status":"state_file_not_compacting""#), health.text)
        XCTAssertTrue(health.text.contains(#""stored":true,"#), health.text)
        XCTAssertTrue(health.text.contains(#""compaction_error":"\#(state.path): no space left on the device"#), health.text)
        killHard(server)
        mount.fill(folder.appendingPathComponent("filler2"))

        (server, port) = try start()
        // Read, not logged in: a login stores its token, for which there is no room.
        let stored = try httpRequest(port: port, "GET", "/_mock/state/threads").text
        XCTAssertEqual(acknowledged.filter { !stored.contains(#""email":"\#($0)""#) }, [], "every acknowledged sign-up is there")
        XCTAssertGreaterThan(acknowledged.count, 50)
        XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/health").status, 200)
        killHard(server)
    }

    /// A new state file on a full disk: the start says so, and how much the state needs.
    func testStartOnAFullDiskSaysHowMuchTheStateNeeds() throws {
        let mount = try SmallFileSystem(at: folder, kilobytes: 256)
        defer { mount.remove() }
        mount.fill(folder.appendingPathComponent("filler"))
        let message = try refusedStart(["--state", state.path, "--only", "threads"])
        XCTAssertTrue(message.hasPrefix("mock-backend: cannot write the state file \(state.path): no space left on the device;"
                                        + " the disk holding \(folder.path) is full (0 bytes free); the state needs "), message)
        XCTAssertTrue(message.hasSuffix(" bytes. Free space there, or give --state a file on another disk\n"), message)
        let needed = Int(message.components(separatedBy: "the state needs ")[1].prefix { $0.isNumber }) ?? 0
        XCTAssertGreaterThan(needed, 2000, "the threads seed's snapshot")
    }

    // MARK: Flushes off the event loop

    /// One event loop; a sign-up whose flush is held 0.3 s, then a request on another connection
    /// that reads nothing the sign-up changed (health): it is answered first. Before: the flush
    /// ran on the loop, so the other request waited for it. (A read of the threads the sign-up
    /// changed waits for its record, by design.)
    func testSlowFlushDoesNotHoldTheEventLoop() throws {
        let apis = try APICatalog.load(["threads"], seed: TestServer.shippedSeed, options: APIOptions())
        let log = StateLog(path: state.path, console: { _ in })
        log.flushHold = 0.3
        try log.open(apis)
        var settings = AppSettings()
        settings.stateLog = log
        let server = try TestServer(responder: MockApp(apis: apis, settings: settings)) { $0.threads = 1 }
        try log.beginWriting()
        let order = Locked([String]())
        let port = server.port
        let (sent, written) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            defer { written.signal() }
            guard let writer = try? BlockingClient(port: port) else {
                sent.signal()
                return
            }
            let body = "email=slow@x.com&password=p&fname=K&lname=P"
            writer.send("POST /api/signup HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
            sent.signal()
            let status = (try? writer.readResponse().status) ?? 0
            order.withLock { $0.append("write \(status)") }
        }
        sent.wait()
        Thread.sleep(forTimeInterval: 0.05)
        let read = try server.request("GET", "/_mock/health")
        order.withLock { $0.append("read \(read.status)") }
        written.wait()
        XCTAssertEqual(order.withLock { $0 }, ["read 200", "write 200"])
    }
}
