import MockHTTP
import XCTest

/// Which interface addresses are offered to "a phone on the same network" (docs/admin.md#addresses).
final class SameNetworkTests: XCTestCase {
    private func offered(_ pairs: [(String, String)]) -> [String] {
        SameNetwork.addresses(pairs.map { NetworkInterface(name: $0.0, address: $0.1) })
    }

    func testRealInterfacesAreOfferedInTheSystemsOrderOnce() {
        XCTAssertEqual(offered([("en0", "192.168.1.20"), ("wlan0", "10.0.0.7"), ("en0", "192.168.1.20"), ("eth1", "172.17.5.9")]),
                       ["192.168.1.20", "10.0.0.7", "172.17.5.9"], "an address is judged by its interface, not its range")
    }

    func testLoopbackLinkLocalAndIPv6AreNotOffered() {
        XCTAssertEqual(offered([("lo", "127.0.0.1"), ("lo0", "127.0.1.1"), ("en0", "169.254.12.7"), ("en0", "fe80::1c2:3ff:fe45:6789"),
                                ("en0", "fd00::2"), ("en0", "2001:db8::5"), ("lo", "::1"), ("eth0", "0.0.0.0"), ("en0", "192.168.1.20")]),
                       ["192.168.1.20"])
    }

    func testContainerAndVirtualMachineBridgesAreNotOffered() {
        let virtual = [("docker0", "172.17.0.1"), ("br-3f2a9c1d7e4b", "172.18.0.1"), ("veth1a2b3c", "10.200.0.1"),
                       ("podman0", "10.88.0.1"), ("cni0", "10.244.0.1"), ("virbr0", "192.168.122.1"), ("lxdbr0", "10.10.10.1"),
                       ("lxcbr0", "10.0.3.1"), ("vboxnet0", "192.168.56.1"), ("vmnet8", "172.16.1.1"), ("bridge100", "192.168.64.1"),
                       ("flannel.1", "10.244.0.0"), ("cali12ab", "10.1.2.3")]
        XCTAssertEqual(offered(virtual + [("eth0", "192.168.1.20")]), ["192.168.1.20"])
        XCTAssertEqual(offered(virtual), [], "nothing to offer rather than a wrong address")
        XCTAssertEqual(offered([("bridge101", "192.168.65.1"), ("vmenet0", "192.168.64.2")]), [])
    }

    /// A Mac sharing its connection over Wi-Fi: the phone joined the bridge's network, the only one it can use.
    func testInternetSharingsBridgeIsOffered() {
        XCTAssertEqual(offered([("en0", "10.20.30.40"), ("bridge100", "192.168.2.1"), ("bridge101", "192.168.64.1")]),
                       ["10.20.30.40", "192.168.2.1"])
        XCTAssertEqual(offered([("bridge100", "192.168.64.1"), ("bridge101", "192.168.2.1")]), ["192.168.2.1"],
                       "a virtual machine took bridge100 first")
    }

    func testOnlyDottedQuadsCountAsIPv4() {
        XCTAssertEqual(offered([("en0", "192.168.1"), ("en0", "192.168.1.256"), ("en0", "1.2.3.4.5"), ("en0", "a.b.c.d"),
                                ("en0", "192.168.001.2x"), ("en0", "10.1.2.3")]),
                       ["10.1.2.3"])
    }
}
