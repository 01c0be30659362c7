import Foundation
import MockHTTP
import MockApp
import MockKit
import TestSupport
import XCTest

/// The `mock-backend` program as a student, a TA or Docker runs it.
final class CommandLineTests: XCTestCase {
    private var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32?, ChildProcess) {
        let child = try ChildProcess(arguments, environment: environment)
        return (child.waitForExit(), child)
    }

    /// Starts a server on a free loopback port and returns it with its port, read from the banner.
    private func startServer(_ extra: [String] = [], environment: [String: String] = [:],
                             directory: URL? = nil) throws -> (ChildProcess, Int) {
        try ChildProcess.startServer(extra, environment: environment, directory: directory ?? repository)
    }

    func testHelpAndVersion() throws {
        let (helpStatus, help) = try run(["--help"])
        XCTAssertEqual(helpStatus, 0)
        XCTAssertTrue(help.standardOutput.hasPrefix("Usage: mock-backend [options]"))
        XCTAssertTrue(help.standardOutput.contains("--otp-code 123456"))
        let (versionStatus, version) = try run(["--version"])
        XCTAssertEqual(versionStatus, 0)
        XCTAssertEqual(version.standardOutput, "mock-backend 0.1.0\n")
    }

    /// One line says what is wrong (and which flag was meant), one where the usage is: the whole
    /// usage would push the complaint off the screen.
    func testBadFlagsExitTwoWithTheReasonAndNotTheUsage() throws {
        for (arguments, complaint) in [
            (["--bogus"], "unknown argument --bogus\n"),
            (["--prot", "9000"], "unknown argument --prot; did you mean --port?\n"),
            (["--admin-tokn=T"], "unknown argument --admin-tokn=T; did you mean --admin-token?\n"),
            (["-port", "9000"], "unknown argument -port; did you mean --port?\n"),
            (["watch"], "unknown argument watch; did you mean --watch?\n"),
            (["9000"], "unknown argument 9000\n"),
            (["--port", "eighty"], "--port must be a whole number"),
            (["--port"], "--port needs a value"),
            (["--latency", "5-1"], "--latency takes milliseconds"),
            (["--otp-ttl", "0"], "--otp-ttl must be a whole number from 1"),
            (["--otp-code", "12345"], "--otp-code must be six digits"),
            (["--wsuv-tz", "Mars/Olympus_Mons"], "--wsuv-tz: unknown time zone Mars/Olympus_Mons"),
            (["--only", "threads,nope"], "--only: unknown API nope"),
            (["--log-format", "xml"], "--log-format must be text or json"),
            (["--admin-token", ""], "--admin-token must not be empty"),
            (["--admin-token= "], "--admin-token must not be empty"),
        ] {
            let (status, child) = try run(arguments)
            XCTAssertEqual(status, 2, "\(arguments)")
            XCTAssertTrue(child.standardError.hasPrefix("mock-backend: \(complaint)"), child.standardError)
            XCTAssertTrue(child.standardError.hasSuffix("\nmock-backend --help lists every option.\n"), child.standardError)
            XCTAssertEqual(child.standardError.split(separator: "\n").count, 2, child.standardError)
        }
        // The variable set but empty is no more a token than the empty flag (issue 29 item 11).
        for token in ["", " "] {
            let (status, child) = try run([], environment: ["MOCK_ADMIN_TOKEN": token])
            XCTAssertEqual(status, 2, "MOCK_ADMIN_TOKEN=\"\(token)\"")
            XCTAssertTrue(child.standardError.hasPrefix("mock-backend: MOCK_ADMIN_TOKEN must not be empty: an empty token "
                                                        + "would let anyone in (unset it to serve /_mock to loopback callers only)\n"),
                          child.standardError)
        }
        let (status, child) = try run([], environment: ["MOCK_OTP_TTL": "abc"])
        XCTAssertEqual(status, 2)
        XCTAssertTrue(child.standardError.hasPrefix("mock-backend: MOCK_OTP_TTL must be"), "the variable, not the flag, was given")
        let (portStatus, port) = try run([], environment: ["PORT": "abc"])
        XCTAssertEqual(portStatus, 2)
        XCTAssertTrue(port.standardError.hasPrefix("mock-backend: PORT must be a whole number from 0 to 65535, not abc\n"), port.standardError)
        let (flagStatus, flag) = try run(["--port", "x"], environment: ["PORT": "abc"])
        XCTAssertEqual(flagStatus, 2)
        XCTAssertTrue(flag.standardError.hasPrefix("mock-backend: --port must be a whole number from 0 to 65535, not x\n"), flag.standardError)
    }

    /// The README's `--state` recipe, run in a clone, leaves no file git would offer to commit.
    func testTheStateFileOfTheReadmeRecipeIsIgnoredByGit() throws {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let recipe = try XCTUnwrap(readme.range(of: "swift run mock-backend --state "))
        let file = String(readme[recipe.upperBound...].prefix { $0 != "`" && $0 != " " })
        guard FileManager.default.fileExists(atPath: repository.appendingPathComponent(".git").path),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/git") else {
            throw XCTSkip("not a git clone, or no git")
        }
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["-C", repository.path, "check-ignore", "--quiet", "--no-index", file]
        try git.run()
        git.waitUntilExit()
        XCTAssertEqual(git.terminationStatus, 0, "\(file) would be an untracked file in the clone")
    }

    /// A server started with JSON console lines, its port and start event read from its first line.
    private func startJSONServer(_ extra: [String], environment: [String: String] = [:]) throws -> (ChildProcess, Int, [String: Any]) {
        let child = try ChildProcess(["--host", "127.0.0.1", "--port", "0"] + extra, environment: environment, directory: repository)
        XCTAssertTrue(child.waitForOutput("\"event\":\"start\""), child.standardOutput + child.standardError)
        let start = try Self.object(child.standardOutput.split(separator: "\n")[0])
        return (child, try XCTUnwrap(start["port"] as? Int), start)
    }

    private static func object(_ line: Substring) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }

    /// `--log-format json`: every line on standard output is one JSON object, from the start (the
    /// banner as one event) through requests and console messages to the stop.
    func testTheJSONLogFormatWritesOnlyJSONLines() throws {
        let (child, port, start) = try startJSONServer(["--log-format", "json", "--otp-code", "123456"])
        XCTAssertEqual(start["version"] as? String, "0.1.0")
        XCTAssertEqual((start["apis"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, APICatalog.names)
        let threads = try XCTUnwrap((start["apis"] as? [[String: Any]])?.first)
        XCTAssertEqual(threads["base_urls"] as? [String], ["http://localhost:\(port)/api/"])
        XCTAssertEqual((start["addresses"] as? [[String: Any]])?.first?["address"] as? String, "http://localhost:\(port)")
        XCTAssertEqual(try httpRequest(port: port, "GET", "/api/threads").status, 401)
        XCTAssertEqual(try httpRequest(port: port, "POST", "/api/send_verification_code", body: Array(#"{"phone_number":"5305550123"}"#.utf8)).status, 200)
        XCTAssertTrue(child.waitForOutput("otp: code 123456"))
        child.process.terminate()
        XCTAssertEqual(child.waitForExit(), 0)
        let lines = try child.standardOutput.split(separator: "\n").map(Self.object)
        XCTAssertEqual(lines.compactMap { $0["event"] as? String }, ["start", "message", "stopping", "stop"], child.standardOutput)
        XCTAssertEqual(lines.compactMap { $0["path"] as? String }, ["/api/threads", "/api/send_verification_code"])
        XCTAssertEqual(lines[2]["message"] as? String, "otp: code 123456 for +15305550123")
        XCTAssertEqual(lines.last?["answered"] as? Int, 2)
        XCTAssertTrue(lines.allSatisfy { $0["at"] is String })
    }

    func testAMissingSeedFolderIsNamed() throws {
        let (status, child) = try run(["--seed", "/no/such/seed", "--port", "0"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(child.standardError, "mock-backend: --seed /no/such/seed: no such folder\n")
    }

    func testOpenControlSurfaceOnEveryInterfaceIsWarnedAbout() throws {
        let open = try ChildProcess(["--host", "0.0.0.0", "--port", "0", "--quiet"])
        XCTAssertTrue(open.waitForOutput("Ctrl-C stops."), open.standardOutput)
        XCTAssertTrue(open.waitForOutput("warning: no --admin-token while listening on every interface."), open.standardOutput)
        let guarded = try ChildProcess(["--host", "0.0.0.0", "--port", "0", "--quiet", "--admin-token", "s3cret"])
        XCTAssertTrue(guarded.waitForOutput("Ctrl-C stops."), guarded.standardOutput)
        XCTAssertFalse(guarded.standardOutput.contains("warning"), guarded.standardOutput)
    }

    func testBusyPortSaysSoInOneLineAndExitsOne() throws {
        let (first, port) = try startServer()
        let (status, second) = try run(["--host", "127.0.0.1", "--port", String(port)])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(second.standardError,
                       "mock-backend: port \(port) is already in use on 127.0.0.1; stop the other server or choose another port with --port\n")
        // Set by the environment (a Docker -e, a .env file), the advice names the variable.
        let fromEnvironment = try ChildProcess([], environment: ["MOCK_HOST": "127.0.0.1", "PORT": String(port)])
        XCTAssertEqual(fromEnvironment.waitForExit(), 1)
        XCTAssertEqual(fromEnvironment.standardError,
                       "mock-backend: port \(port) is already in use on 127.0.0.1; stop the other server or choose another port with PORT\n")
        first.process.terminate()
        XCTAssertEqual(first.waitForExit(), 0)
    }

    /// Another program holds the port on one address family only (a Vapor app on 127.0.0.1, say).
    /// macOS would let the wildcard socket bind beside it, so the server asks before binding; Linux
    /// would refuse the bind, but name no address ("*").
    func testBusyPortOnOneAddressFamilyNamesThatAddress() throws {
        var holders = [("127.0.0.1", try TestServer(responder: MockApp(apis: [])))]
        if let onIPv6 = try Self.serverOnIPv6OnlyPort() {
            holders.append(("::1", onIPv6))
        } else {
            print("no ::1 on this machine: only the IPv4 case runs")
        }
        // Every interface by default, or one family's wildcard.
        let listeners = [(nil, "127.0.0.1"), (nil, "::1"), ("0.0.0.0", "127.0.0.1"), ("::", "::1")]
        for (host, address) in listeners {
            guard let holder = holders.first(where: { $0.0 == address })?.1 else { continue }
            let (status, child) = try run(["--port", String(holder.port), "--only", "otp"] + (host.map { ["--host", $0] } ?? []))
            XCTAssertEqual(status, 1, "\(host ?? "all") vs \(address)")
            XCTAssertEqual(child.standardError,
                           "mock-backend: port \(holder.port) is already in use on \(address); stop the other server or choose another port with --port\n")
        }
    }

    /// A server on ::1 whose port no program holds on 127.0.0.1 either: the system picks a ::1 port
    /// without looking at IPv4, and another program's IPv4 listener would be named first.
    private static func serverOnIPv6OnlyPort() throws -> TestServer? {
        for _ in 0..<20 {
            guard let onIPv6 = try? TestServer(responder: MockApp(apis: []), configure: { $0.host = "::1" }) else { return nil }
            let port = onIPv6.port
            if (try? TestServer(responder: MockApp(apis: []), configure: { $0.host = "127.0.0.1"; $0.port = port })) != nil {
                return onIPv6
            }
        }
        throw XCTSkip("no ::1 port was free on 127.0.0.1 too in 20 tries")
    }

    /// `--host localhost` listens on 127.0.0.1 and on ::1, whichever of them the hosts file lists.
    func testLocalhostServesIPv4AndIPv6Loopback() throws {
        let child = try ChildProcess(["--host", "localhost", "--port", "0", "--only", "otp"], directory: repository)
        XCTAssertTrue(child.waitForOutput("Ctrl-C stops."), child.standardOutput + child.standardError)
        let marker = try XCTUnwrap(child.standardOutput.range(of: "listening on localhost:"))
        let port = try XCTUnwrap(Int(child.standardOutput[marker.upperBound...].prefix { $0.isNumber }))
        var addresses = ["127.0.0.1"]
        if (try? TestServer(responder: MockApp(apis: []), configure: { $0.host = "::1" })) != nil {
            addresses.append("::1")
        } else {
            print("no ::1 on this machine: only 127.0.0.1 is checked")
        }
        for address in addresses {
            let client = try BlockingClient(host: address, port: port)
            client.send("GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200, address)
        }
        child.process.terminate()
        XCTAssertEqual(child.waitForExit(), 0)
    }

    /// A stop at once after the start (a script that only waits for the banner) is never lost.
    func testSIGTERMRightAfterTheBannerStopsCleanly() throws {
        for round in 0..<5 {
            let (child, _) = try startServer(["--only", "otp", "--quiet"])
            child.process.terminate()
            XCTAssertEqual(child.waitForExit(), 0, "round \(round)")
        }
    }

    func testAConsoleNobodyReadsDoesNotStopTheServer() throws {
        let (server, port) = try startServer()
        server.closeStandardOutput()
        for _ in 0..<3 {
            let response = try httpRequest(port: port, "GET", "/api/threads")
            XCTAssertEqual(response.status, 401, "each request (refused: no token) writes a console line into the closed pipe")
        }
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0, server.standardError)
    }

    /// 3,000 log lines are several times what a pipe holds (64 KiB on Linux, 16 KiB on macOS).
    func testAConsoleNobodyReadsDoesNotHoldUpTheServer() throws {
        let (server, port) = try startServer()
        server.stopReadingStandardOutput()
        let client = try BlockingClient(host: "127.0.0.1", port: port, timeout: 10)
        for round in 0..<3_000 {
            client.send(Array("GET /api/threads HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            let response = try client.readResponse()
            guard response.status == 401 else { return XCTFail("round \(round): \(response.status)") }
        }
        XCTAssertEqual(try httpRequest(port: port, "GET", "/_mock/health").status, 200)
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0, server.standardError)
    }

    /// A body larger than one address may ever hold is the API's 413, not a 503 to retry forever.
    /// The largest body an address can hold with what parsing it makes is answered, one byte more is the API's 413.
    func testABodyOverAQuarterOfTheMemoryBudgetIsTooLarge() throws {
        let (server, port) = try startServer(["--only", "threads", "--memory-budget", "4194304"])
        XCTAssertTrue(server.standardOutput.contains(
            "mock-backend: largest request body lowered to 983040 bytes, about a quarter of --memory-budget "
            + "(a body and what parsing it makes, within what one client address may hold at once)\n"),
            server.standardOutput)
        let largest = "title=" + String(repeating: "t", count: 983_040 - 6)
        let answered = try httpRequest(port: port, "POST", "/api/thread/add",
                                       headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(largest.utf8))
        XCTAssertEqual(answered.status, 401, "read and answered (no token), not refused for memory")
        let client = try BlockingClient(host: "127.0.0.1", port: port, timeout: 10)
        client.send(Array("POST /api/thread/add HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 983041\r\n\r\n".utf8))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.text, #"{"status":"error","message":"Request body is larger than 983040 bytes."}"#)
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0, server.standardError)
    }

    func testPollerFlag() throws {
        let (status, child) = try run(["--poller", "kqueue"])
        XCTAssertEqual(status, 2)
        let offered = PollerKind.available.map(\.rawValue).joined(separator: " or ")
        XCTAssertTrue(child.standardError.hasPrefix("mock-backend: --poller must be \(offered) on this system, not kqueue"),
                      child.standardError)
        for kind in PollerKind.available {
            let (server, port) = try startServer(["--poller", kind.rawValue, "--only", "otp"])
            let client = try BlockingClient(port: port)
            client.send("GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 200, kind.rawValue)
            server.process.terminate()
            XCTAssertEqual(server.waitForExit(), 0)
        }
    }

    func testBadSeedNamesTheFileAndThePlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = #"{"users":[{"user_id":1,"email":7,"password":"p","fname":"A","lname":"B"}],"threads":[],"messages":[]}"#
        try Data(broken.utf8).write(to: folder.appendingPathComponent("threads.json"))
        let (status, child) = try run(["--seed", folder.path, "--only", "threads"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(child.standardError,
                       "mock-backend: bad seed: \(folder.path)/threads.json:1:32: $.users[0].email: expected a string\n")
        try Data("{\"users\":[".utf8).write(to: folder.appendingPathComponent("threads.json"))
        let (again, invalid) = try run(["--seed", folder.path, "--only", "threads"])
        XCTAssertEqual(again, 1)
        XCTAssertTrue(invalid.standardError.contains("threads.json:1:11: not valid JSON"), invalid.standardError)
    }

    /// `--only` reads only the served APIs' seed files: the others' may be broken (or huge), and a
    /// path of theirs is still named as not served.
    func testOnlyReadsNoSeedOfTheAPIsLeftOut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: repository.appendingPathComponent("Seed/threads.json"),
                                         to: folder.appendingPathComponent("threads.json"))
        for name in APICatalog.names where name != "threads" {
            try Data("{\"users\":[".utf8).write(to: folder.appendingPathComponent("\(name).json"))
        }
        let (server, port) = try startServer(["--seed", folder.path, "--only", "threads"])
        let login = try httpRequest(port: port, "GET", "/login?username=admin&password=1234")
        XCTAssertEqual(login.text, #"{"error":"not_found","path":"/login","not_served":"internproducts"}"#)
        XCTAssertTrue(server.waitForOutput("(internproducts is not served (--only threads))"), server.standardOutput)
        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0, server.standardError)
    }

    func testABrokenStubFileStopsStartUpWithItsPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("exercise.json")
        try Data("{\"request\": {\"method\": \"GET\", \"path\": \"/x\"},\n \"response\": {\"status\": 999}}\n".utf8).write(to: file)
        let (status, child) = try run(["--stubs", folder.path, "--only", "threads"])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(child.standardError,
                       "mock-backend: bad stub: \(file.path):2:25: $.response.status: expected an HTTP status from 100 to 599\n")
        let (missing, none) = try run(["--stubs", folder.appendingPathComponent("nope").path])
        XCTAssertEqual(missing, 1)
        XCTAssertTrue(none.standardError.contains("--stubs: no such folder"), none.standardError)
    }

    func testWatchFlagAndVariable() throws {
        for (arguments, environment) in [(["--watch"], [String: String]()), ([], ["MOCK_WATCH": "1"])] {
            let (child, _) = try startServer(["--only", "otp", "-q"] + arguments, environment: environment)
            XCTAssertTrue(child.standardOutput.contains("  watching:          seed and stub files, checked every 1 s (--watch)"),
                          child.standardOutput)
        }
        let (child, _) = try startServer(["--only", "otp", "-q"], environment: ["MOCK_WATCH": "0"])
        XCTAssertFalse(child.standardOutput.contains("watching:"))
    }

    /// The README's stubs recipe, as written.
    func testTheExampleStubsServe() throws {
        let (child, port) = try startServer(["--only", "threads", "--stubs", "docs/stubs-example", "-q"])
        XCTAssertTrue(child.standardOutput.contains("docs/stubs-example (3 matched before the APIs)"), child.standardOutput)
        let server = try BlockingClient(port: port)
        server.send("GET /api/v2/courses/CS%20118/announcements?term=fall HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try server.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertTrue(answer.text.hasPrefix(#"{"course": "CS 118", "term": "fall", "announcements": ["#), answer.text)
    }

    func testAnInstalledProgramRunByNameFindsItsSeed() throws {
        // Installed as bin/mock-backend with share/mock-backend/Seed, found on the PATH, and started
        // from a folder with no Seed/ above it: argv[0] is just "mock-backend", so only the
        // program's own file leads to the seed.
        let temporary = FileManager.default.temporaryDirectory, name = UUID().uuidString
        let install = temporary.appendingPathComponent("mock-install-\(name)")
        let elsewhere = temporary.appendingPathComponent("mock-work-\(name)"), bin = install.appendingPathComponent("bin")
        defer { for folder in [install, elsewhere] { try? FileManager.default.removeItem(at: folder) } }
        for folder in [temporary, temporary.deletingLastPathComponent()]
            where FileManager.default.fileExists(atPath: folder.appendingPathComponent("Seed").path) {
            throw XCTSkip("\(folder.path)/Seed would be found from any folder below it")
        }
        for folder in [bin, elsewhere, install.appendingPathComponent("share/mock-backend")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(at: ChildProcess.executable, to: bin.appendingPathComponent("mock-backend"))
        try FileManager.default.copyItem(at: repository.appendingPathComponent("Seed"),
                                         to: install.appendingPathComponent("share/mock-backend/Seed"))
        // The shell drops the test build's path that ChildProcess puts first, and runs the name.
        let byName = ["/bin/sh", "-c", #"shift; exec mock-backend "$@""#, "sh"]
        let (_, port) = try ChildProcess.startServer(["--only", "threads", "-q"], environment: ["PATH": bin.path + ":/usr/bin:/bin"],
                                                         directory: elsewhere, wrapper: byName)
        let server = try BlockingClient(port: port)
        server.send("GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let health = try server.readResponse()
        XCTAssertEqual(health.status, 200)
        XCTAssertTrue(health.text.contains(#""apis":["threads"]"#), health.text)
    }

    func testServesTheShippedSeedLogsRequestsAndStopsCleanly() throws {
        // Started from a sub-folder: the seed is found in a parent of the working directory.
        let (child, port) = try startServer(directory: repository.appendingPathComponent("Sources"))
        XCTAssertTrue(child.standardOutput.contains("mock-backend 0.1.0"))
        for line in ["threads         UNC Charlotte ITIS/CS 4180 message threads",
                     "    base URL  http://localhost:\(port)/api/",
                     "    account   a@a.com / test123  (Ervin Sondag)",
                     "    account   admin / 1234  (loginToken 668961808.772846)",
                     "    base URL  http://localhost:\(port)/~cs458/cgi-bin/  or  http://localhost:\(port)/~wcochran/cgi-bin/",
                     "    account   night owl / hoot hoot",
                     "    codes are printed on this console and listed at GET /_mock/otp/outbox",
                     "    account   +15305550100  (Alex Rivera, x-authtoken seed_token_alex_rivera_000000001)"] {
            XCTAssertTrue(child.standardOutput.contains(line), line)
        }
        XCTAssertTrue(child.standardOutput.contains("seed:              \(repository.path)/Seed"))

        let client = try BlockingClient(port: port)
        client.send("GET /api/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 404)
        XCTAssertTrue(child.waitForOutput(" 127.0.0.1 GET /api/nothing-here 404 "), child.standardOutput)

        let (healthy, probe) = try run(["--healthcheck", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(healthy, 0, probe.standardOutput)
        XCTAssertTrue(probe.standardOutput.hasPrefix("healthy: {\"status\":\"ok\""))

        child.process.interrupt()
        XCTAssertEqual(child.waitForExit(), 0)
        XCTAssertTrue(child.standardOutput.contains("mock-backend: stopping"))

        let (unhealthy, _) = try run(["--healthcheck", "http://127.0.0.1:\(port)"])
        XCTAssertEqual(unhealthy, 1)
    }

    /// `--state`: kill -9 in the middle of a stream of sign-ups, five times over; every sign-up that
    /// was answered 200 must be there after the next start.
    func testStateSurvivesSIGKILLUnderLoad() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kill-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        var acknowledged: [String] = []
        for round in 0..<5 {
            let (child, port) = try startServer(["--state", file.path, "--only", "threads", "--quiet"])
            let answered = Locked([String]())
            let writers = DispatchGroup()
            for writer in 0..<4 {
                DispatchQueue.global().async(group: writers) {
                    for index in 0... {
                        let email = "r\(round)w\(writer)n\(index)@kill.test"
                        guard let client = try? BlockingClient(port: port, timeout: 5) else { return }
                        client.send("POST /api/signup HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: \(33 + email.utf8.count)\r\n\r\nemail=\(email)&password=p&fname=K&lname=L")
                        guard let response = try? client.readResponse(), response.status == 200 else { return }
                        answered.withLock { $0.append(email) }
                    }
                }
            }
            // Let some sign-ups through, then kill without warning. Writers that all gave up (the
            // server refused them) end the wait too, so a broken server fails the test, not hangs it.
            while answered.withLock({ $0.count }) < 20 * (round + 1),
                  writers.wait(timeout: .now() + 0.01) == .timedOut {}
            kill(child.process.processIdentifier, SIGKILL)
            writers.wait()
            XCTAssertEqual(child.waitForExit(), SIGKILL)
            acknowledged += answered.withLock { $0 }
        }
        let (survivor, port) = try startServer(["--state", file.path, "--only", "threads", "--quiet"])
        let client = try BlockingClient(port: port)
        client.send("GET /_mock/state/threads HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let state = try client.readResponse().text
        let lost = acknowledged.filter { !state.contains("\"email\":\"\($0)\"") }
        XCTAssertEqual(lost, [], "acknowledged sign-ups lost")
        XCTAssertGreaterThanOrEqual(acknowledged.count, 100)
        survivor.process.terminate()
        XCTAssertEqual(survivor.waitForExit(), 0)
    }

    func testFixedOTPCodeIsAnnounced() throws {
        let (child, _) = try startServer(["--otp-code", "123456", "--only", "otp"])
        XCTAssertTrue(child.standardOutput.contains("    every code is 123456 (--otp-code)"), child.standardOutput)
        XCTAssertFalse(child.standardOutput.contains("threads "))
    }

    func testQuietAndJSONLog() throws {
        let (quiet, quietPort) = try startServer(["--quiet"])
        let client = try BlockingClient(port: quietPort)
        client.send("GET /nothing HTTP/1.1\r\nHost: test\r\n\r\n")
        _ = try client.readResponse()
        quiet.process.terminate()
        XCTAssertEqual(quiet.waitForExit(), 0)
        XCTAssertFalse(quiet.standardOutput.contains("/nothing"))

        let (json, jsonPort, _) = try startJSONServer([], environment: ["MOCK_LOG_FORMAT": "json"])
        let second = try BlockingClient(port: jsonPort)
        second.send("GET /nothing HTTP/1.1\r\nHost: test\r\n\r\n")
        _ = try second.readResponse()
        XCTAssertTrue(json.waitForOutput(#""method":"GET","path":"/nothing","status":404,"#), json.standardOutput)
        json.process.terminate()
        XCTAssertEqual(json.waitForExit(), 0)
    }
}
