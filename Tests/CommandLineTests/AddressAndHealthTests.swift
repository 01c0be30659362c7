import Foundation
import MockApp
import MockHTTP
import TestSupport
import XCTest

/// What the banner offers as the server's address (`--public-url`, containers, same network) and
/// `--healthcheck` without flags, as Docker runs it: docs/admin.md#addresses, docs/admin.md#health-check.
final class AddressAndHealthTests: XCTestCase {
    private var healthFile: String!

    override func setUp() {
        healthFile = FileManager.default.temporaryDirectory.appendingPathComponent("health-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: healthFile)
    }

    /// The image's environment: `PORT=8080` there, a port nobody listens on here, so that a health
    /// check that took its port from the environment fails.
    private var imageEnvironment: [String: String] { ["PORT": "1", "MOCK_HEALTH_FILE": healthFile] }

    /// `docker run image --port … --admin-token T`: the flags after the image name, no `--host`.
    private func startAsTheImage(_ flags: [String] = ["--admin-token", "T"]) throws -> (ChildProcess, Int) {
        let child = try ChildProcess(["--port", "0", "--quiet"] + flags, environment: imageEnvironment)
        XCTAssertTrue(child.waitForOutput("Ctrl-C stops."), child.standardOutput + child.standardError)
        let marker = try XCTUnwrap(child.standardOutput.range(of: "listening on port "), child.standardOutput)
        return (child, try XCTUnwrap(Int(child.standardOutput[marker.upperBound...].prefix { $0.isNumber })))
    }

    /// `mock-backend --healthcheck`, as the image's HEALTHCHECK runs it: no flags, same environment.
    private func healthcheck(_ extra: [String] = [], environment: [String: String]? = nil) throws -> (Int32?, ChildProcess) {
        let child = try ChildProcess(["--healthcheck"] + extra, environment: environment ?? imageEnvironment)
        return (child.waitForExit(), child)
    }

    func testHealthcheckWithoutFlagsAsksTheServerAsItWasStarted() throws {
        let (server, port) = try startAsTheImage()
        let attributes = try FileManager.default.attributesOfItem(atPath: healthFile)
        XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600, "the file holds the token")
        XCTAssertTrue(try String(contentsOfFile: healthFile, encoding: .utf8).contains("\"port\":\(port)"))

        let (status, probe) = try healthcheck()
        XCTAssertEqual(status, 0, probe.standardOutput + probe.standardError)
        XCTAssertTrue(probe.standardOutput.hasPrefix("healthy: {\"status\":\"ok\""), probe.standardOutput)
        // Flags given to the health check itself still say which server and token to use.
        let (withoutToken, refused) = try healthcheck(["--port", "\(port)"])
        XCTAssertEqual(withoutToken, 1)
        XCTAssertTrue(refused.standardOutput.hasPrefix("unhealthy: HTTP 401"), refused.standardOutput)

        server.process.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: healthFile), "a stopped server takes its file away")
        let (down, probeDown) = try healthcheck()
        XCTAssertEqual(down, 1)
        XCTAssertTrue(probeDown.standardOutput.hasPrefix("unhealthy: 127.0.0.1 port 1: connect failed"), probeDown.standardOutput)
    }

    /// An IPv6 address in the URL is written in brackets; Linux's Foundation keeps them in the host.
    func testHealthcheckOfAnIPv6URL() throws {
        guard let server = try? TestServer(responder: MockApp(apis: []), configure: { $0.host = "::1" }) else {
            throw XCTSkip("no ::1 on this machine")
        }
        let (status, probe) = try healthcheck(["http://[::1]:\(server.port)"])
        XCTAssertEqual(status, 0, probe.standardOutput + probe.standardError)
        XCTAssertTrue(probe.standardOutput.hasPrefix("healthy: {\"status\":\"ok\""), probe.standardOutput)
    }

    func testAKilledServersFileSaysItIsGone() throws {
        let (server, _) = try startAsTheImage()
        kill(server.process.processIdentifier, SIGKILL)
        XCTAssertNotNil(server.waitForExit())
        let (status, probe) = try healthcheck()
        XCTAssertEqual(status, 1)
        XCTAssertEqual(probe.standardOutput, "unhealthy: the server that wrote \(healthFile!) "
                       + "(process \(server.process.processIdentifier)) is not running\n")
    }

    func testAHealthFileOthersCouldReadIsIgnored() throws {
        let (server, _) = try startAsTheImage()
        defer { server.process.terminate() }
        XCTAssertEqual(chmod(healthFile, 0o644), 0)
        let (status, probe) = try healthcheck()
        XCTAssertEqual(status, 1, "back to PORT, where nothing listens")
        XCTAssertEqual(probe.standardError, "mock-backend: --healthcheck: \(healthFile!) ignored: it must belong to "
                       + "this user and be private to it (mode 0600)\n")
    }

    func testInAContainerTheBannerSaysTheHostAddressIsUnknown() throws {
        let (child, port) = try ChildProcess.startServer(["--quiet"], environment: ["MOCK_IN_CONTAINER": "1"])
        let banner = child.standardOutput
        XCTAssertTrue(banner.contains("""
              address:           unknown inside a container: use the Docker host's address and the port published
                                 with -p <host-port>:\(port) (http://localhost:<host-port> on the host itself,
                                 http://10.0.2.2:<host-port> in the Android emulator). To show it here and on the
                                 index page: -e MOCK_PUBLIC_URL=http://<host-ip>:<host-port>

            """), banner)
        XCTAssertTrue(banner.contains("    base URL  http://<host>:<host-port>/api/\n"), banner)
        for guess in ["this machine:", "same network:", "Android emulator:", "localhost:\(port)"] {
            XCTAssertFalse(banner.contains(guess), guess)
        }
    }

    func testThePublicURLIsTheAddressShown() throws {
        let (inside, insidePort) = try ChildProcess.startServer(["--quiet", "--public-url", "HTTP://Classroom.Example:9000/"],
                                                       environment: ["MOCK_IN_CONTAINER": "1"])
        XCTAssertTrue(inside.standardOutput.contains("""
            listening on 127.0.0.1:\(insidePort)
              public URL:        http://classroom.example:9000
              seed:
            """), inside.standardOutput)
        XCTAssertTrue(inside.standardOutput.contains("    base URL  http://classroom.example:9000/api/\n"))
        XCTAssertTrue(inside.standardOutput.contains("  control:           http://classroom.example:9000/  and  "
                                                     + "http://classroom.example:9000/_mock/health\n"))

        let (native, port) = try ChildProcess.startServer(["--quiet"], environment: ["MOCK_PUBLIC_URL": "https://mock.example.edu"])
        XCTAssertTrue(native.standardOutput.contains("""
              this machine:      http://localhost:\(port)
              public URL:        https://mock.example.edu
              Android emulator:  http://10.0.2.2:\(port)

            """), native.standardOutput)
        XCTAssertFalse(native.standardOutput.contains("same network:"), "the public URL replaces the guesses")
    }

    func testMalformedPublicURLsExitTwo() throws {
        for (value, reason) in [
            ("192.168.1.20:8080", "it must start with http:// or https://"),
            ("ftp://a", "it must start with http:// or https://"),
            ("http://", "the host is missing"),
            ("http://:80", "the host is missing"),
            ("http://a/api/", "no path, query or fragment: the apps add their own paths"),
            ("http://a?x", "no path, query or fragment: the apps add their own paths"),
            ("http://a:0", "the port must be a number from 1 to 65535"),
            ("http://a:65536", "the port must be a number from 1 to 65535"),
            ("http://a:", "the port must be a number from 1 to 65535"),
            ("http://u:p@a", "no user name or password"),
            ("http://a b", "the host may hold only letters, digits, dots and hyphens (or be an IPv6 address in brackets)"),
            ("http://[::1", "an IPv6 address needs its closing ]"),
            ("http://[nope]:80", "the IPv6 address in brackets is malformed"),
        ] {
            let child = try ChildProcess(["--public-url", value])
            XCTAssertEqual(child.waitForExit(), 2, value)
            XCTAssertTrue(child.standardError.hasPrefix("mock-backend: --public-url \(value): \(reason) (e.g. http://192.168.1.20:8080)\n"),
                          child.standardError)
            XCTAssertFalse(child.standardError.contains("Usage: mock-backend"))
        }
        let variable = try ChildProcess([], environment: ["MOCK_PUBLIC_URL": "localhost"])
        XCTAssertEqual(variable.waitForExit(), 2)
        XCTAssertTrue(variable.standardError.hasPrefix("mock-backend: MOCK_PUBLIC_URL localhost: it must start with"),
                      variable.standardError)
    }

    /// On this machine's real interfaces: the banner offers exactly what `SameNetwork` picks.
    func testTheBannerOffersOnlyRealSameNetworkAddresses() throws {
        let (child, port) = try ChildProcess.startServer(["--quiet"])
        let offered = child.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  same network:") }
        XCTAssertEqual(offered, SameNetwork.addresses(NetworkInterface.all()).map { "  same network:      http://\($0):\(port)" })
        for line in offered {
            for excluded in ["http://127.", "http://169.254.", "http://["] {
                XCTAssertFalse(line.contains(excluded), String(line))
            }
        }
    }
}
