/// One address of one network interface, as the system lists it (`en0`, `192.168.1.20`).
public struct NetworkInterface: Equatable, Sendable {
    public var name: String
    public var address: String

    public init(name: String, address: String) {
        self.name = name
        self.address = address
    }

    /// This machine's interfaces, read anew on each call (Wi-Fi comes and goes).
    public static func all() -> [NetworkInterface] {
        Sys.interfaceAddresses().map { NetworkInterface(name: $0.name, address: $0.address) }
    }
}

/// The addresses offered to "a phone or another computer on the same network" (banner, index page).
public enum SameNetwork {
    /// Interfaces that reach only this machine's own containers and virtual machines: Docker
    /// (`docker0`, `br-<id>` networks, `veth…` pairs), Podman, libvirt, LXC/LXD, VirtualBox, VMware,
    /// Kubernetes network plugins, and macOS's `bridge…` and `vmenet…` of virtual machines (whose
    /// shared network is 192.168.64.x by default). A phone on the Wi-Fi cannot reach their addresses.
    static let virtualInterfacePrefixes = [
        "docker", "br-", "veth", "podman", "cni", "virbr", "lxcbr", "lxdbr", "vboxnet", "vmnet", "flannel", "cali",
        "bridge", "vmenet",
    ]

    /// macOS Internet Sharing serves the network it shares (the Wi-Fi a phone joins where campus
    /// Wi-Fi keeps clients apart) on a `bridge…` interface too, `bridge100` or, after a virtual
    /// machine took that, a later one; only its address tells: 192.168.2.x unless changed.
    static func isInternetSharing(_ interface: NetworkInterface, octets: [Int]) -> Bool {
        interface.name.hasPrefix("bridge") && octets[0] == 192 && octets[1] == 168 && octets[2] == 2
    }

    /// The IPv4 addresses of real interfaces, without duplicates, in the system's order. Left out:
    /// loopback, link-local (169.254/16: no DHCP answered, not routable), container and VM bridges
    /// (but Internet Sharing's), and IPv6 altogether (link-local fe80::/10 is unusable in a URL
    /// without its zone, and global ones are often temporary; a phone on the same Wi-Fi reaches the IPv4 address).
    public static func addresses(_ interfaces: [NetworkInterface]) -> [String] {
        var offered: [String] = []
        for interface in interfaces where isOffered(interface) && !offered.contains(interface.address) {
            offered.append(interface.address)
        }
        return offered
    }

    static func isOffered(_ interface: NetworkInterface) -> Bool {
        guard let octets = ipv4Octets(interface.address) else { return false }
        let isLoopback = octets[0] == 127
        let isLinkLocal = octets[0] == 169 && octets[1] == 254
        let isUnspecified = octets == [0, 0, 0, 0]
        let isVirtual = virtualInterfacePrefixes.contains { interface.name.hasPrefix($0) }
            && !isInternetSharing(interface, octets: octets)
        return !(isLoopback || isLinkLocal || isUnspecified || isVirtual)
    }

    /// The four numbers of a dotted IPv4 address, nil for anything else (IPv6 included).
    static func ipv4Octets(_ address: String) -> [Int]? {
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        let octets = parts.compactMap { part in
            part.count <= 3 && part.allSatisfy(\.isASCII) ? Int(part).flatMap { (0...255).contains($0) ? $0 : nil } : nil
        }
        return parts.count == 4 && octets.count == 4 ? octets : nil
    }
}
