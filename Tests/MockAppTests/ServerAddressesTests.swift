import Foundation
import MockApp
import MockHTTP
import MockKit
import TestSupport
import XCTest

/// `--public-url`, container detection, and the addresses the index page offers
/// (docs/admin.md#addresses).
final class ServerAddressesTests: XCTestCase {
    func testPublicURLsAreNormalisedToAnOrigin() throws {
        for (text, origin) in [("http://192.168.1.20:9000", "http://192.168.1.20:9000"), ("HTTPS://Mock.Example.EDU/", "https://mock.example.edu"),
                               ("http://[FD00::2]:8080", "http://[fd00::2]:8080"), ("http://host-1.local:08080", "http://host-1.local:8080")] {
            XCTAssertEqual(try PublicURL(parsing: text).origin, origin, text)
        }
        XCTAssertTrue(try PublicURL(parsing: "https://a").isHTTPS)
        XCTAssertFalse(try PublicURL(parsing: "http://a").isHTTPS)
        XCTAssertThrowsError(try PublicURL(parsing: "http://a//"))
        XCTAssertThrowsError(try PublicURL(parsing: "http://-a"))
        XCTAssertThrowsError(try PublicURL(parsing: "http://[]"))
        XCTAssertThrowsError(try PublicURL(parsing: "http://[::1]x"))
    }

    func testContainerDetection() {
        func detect(_ environment: [String: String] = [:], files: Set<String> = [], cgroup: String? = nil) -> Bool {
            ContainerDetection.isContainer(environment: environment, fileExists: { files.contains($0) }, readFile: { _ in cgroup })
        }
        XCTAssertFalse(detect())
        XCTAssertTrue(detect(files: ["/.dockerenv"]))
        XCTAssertTrue(detect(files: ["/run/.containerenv"]))
        XCTAssertTrue(detect(["container": "podman"]))
        XCTAssertTrue(detect(["KUBERNETES_SERVICE_HOST": "10.96.0.1"]))
        XCTAssertTrue(detect(cgroup: "12:pids:/docker/3f2a9c1d7e4b\n"))
        XCTAssertTrue(detect(cgroup: "1:name=systemd:/kubepods/besteffort/pod1\n"))
        XCTAssertFalse(detect(cgroup: "0::/init.scope\n"), "cgroup v2 on a plain machine")
        XCTAssertFalse(detect(["container": ""]), "an empty variable says nothing")
        // The override wins both ways.
        XCTAssertFalse(detect(["MOCK_IN_CONTAINER": "0"], files: ["/.dockerenv"]))
        XCTAssertFalse(detect(["MOCK_IN_CONTAINER": "false"], files: ["/.dockerenv"]))
        XCTAssertTrue(detect(["MOCK_IN_CONTAINER": "1"]))
        XCTAssertTrue(detect(["MOCK_IN_CONTAINER": "yes"]))
    }

    // MARK: The index page, over a real socket

    /// A phone's Wi-Fi address, Docker's bridges and link-local addresses, as `getifaddrs` lists them.
    private static let interfaces = [
        ("lo", "127.0.0.1"), ("lo", "::1"), ("wlan0", "192.168.1.20"), ("wlan0", "fe80::1c2:3ff:fe45:6789"),
        ("docker0", "172.17.0.1"), ("br-3f2a9c1d7e4b", "172.18.0.1"), ("veth1a2b3c", "169.254.7.7"), ("eth1", "169.254.3.4"),
    ].map { NetworkInterface(name: $0.0, address: $0.1) }

    private func page(_ addresses: ServerAddresses, host: String = "localhost:9000") throws -> String {
        var settings = AppSettings()
        settings.addresses = addresses
        let server = try TestServer(apis: ["threads"], settings: settings)
        let client = try server.connect()
        client.send(rawRequest(["GET / HTTP/1.1", "Host: \(host)", "Connection: close"]))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        return response.text
    }

    private func row(_ label: String, _ origin: String) -> String {
        "<tr><th>\(label)</th><td><code><span>\(origin)</span><wbr><span>/api/</span></code></td></tr>"
    }

    func testOnlyTheRealSameNetworkAddressIsOffered() throws {
        let html = try page(ServerAddresses(interfaces: { Self.interfaces }))
        XCTAssertTrue(html.contains("<table class=\"urls\">" + row("this browser", "http://localhost:9000")
                                    + row("same network", "http://192.168.1.20:9000")
                                    + row("Android emulator", "http://10.0.2.2:9000") + "</table>"), html)
        XCTAssertTrue(html.contains("<p class=\"meta\">On a phone or another computer: <code>http://192.168.1.20:9000/</code></p>"))
        for hidden in ["172.17.0.1", "172.18.0.1", "169.254.", "fe80", "127.0.0.1", "::1"] {
            XCTAssertFalse(html.contains(hidden), hidden)
        }
    }

    func testInAContainerThePageSaysTheHostAddressIsUnknown() throws {
        let html = try page(ServerAddresses(inContainer: true, interfaces: { Self.interfaces }))
        XCTAssertTrue(html.contains("<table class=\"urls\">" + row("this browser", "http://localhost:9000")
                                    + row("Android emulator", "http://10.0.2.2:9000") + "</table>"), html)
        XCTAssertTrue(html.contains("""
            <p class="meta">In a container: this server cannot see the host's address or the port published for it. \
            On a phone or another computer use the host's address and that port; start the container with \
            <code>-e MOCK_PUBLIC_URL=http://&lt;host-ip&gt;:&lt;host-port&gt;</code> to show it here.</p>
            """), html)
        XCTAssertFalse(html.contains("192.168.1.20"), "the container's own addresses are no use to anyone")
    }

    func testThePublicURLIsOffered() throws {
        let publicURL = try PublicURL(parsing: "http://192.168.1.20:9000")
        let html = try page(ServerAddresses(publicURL: publicURL, inContainer: true, interfaces: { Self.interfaces }))
        XCTAssertTrue(html.contains("<table class=\"urls\">" + row("this browser", "http://localhost:9000")
                                    + row("public URL", "http://192.168.1.20:9000")
                                    + row("Android emulator", "http://10.0.2.2:9000") + "</table>"), html)
        XCTAssertTrue(html.contains("<p class=\"meta\">On a phone or another computer: <code>http://192.168.1.20:9000/</code></p>"))
        XCTAssertFalse(html.contains("In a container"))
        // The browser that used the public URL sees it once.
        let fromPhone = try page(ServerAddresses(publicURL: publicURL, interfaces: { Self.interfaces }), host: "192.168.1.20:9000")
        XCTAssertTrue(fromPhone.contains("<table class=\"urls\">" + row("public URL", "http://192.168.1.20:9000")
                                         + row("Android emulator", "http://10.0.2.2:9000") + "</table>"), fromPhone)
    }
}
