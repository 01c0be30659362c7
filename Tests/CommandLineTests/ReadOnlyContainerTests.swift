import Foundation
import TestSupport
import XCTest

/// `docker run --read-only … mock-backend --port 9000 --admin-token T`, without a Docker engine: the
/// server runs as PID 1 of its own PID and mount namespaces (unshare), as uid 10001, with the root
/// file system read-only, alone or with a tmpfs on /tmp (`--tmpfs /tmp`); the image's HEALTHCHECK
/// is `mock-backend --healthcheck` started in those namespaces (nsenter) with the image's
/// environment and no flags (docs/admin.md#health-check).
final class ReadOnlyContainerTests: XCTestCase {
    private let token = "classroom-token"

    func testTheHealthcheckFindsTheServerOfAReadOnlyContainer() throws {
        try check(tmpfsOnTmp: false)
    }

    func testTheHealthcheckFindsTheServerOfAReadOnlyContainerWithATmpfs() throws {
        try check(tmpfsOnTmp: true)
    }

    private func check(tmpfsOnTmp: Bool) throws {
        let (unshare, nsenter) = ("/usr/bin/unshare", "/usr/bin/nsenter")
        guard getuid() == 0, let user = ChildProcess.ordinaryUserWrapper, !user.isEmpty,
              FileManager.default.isExecutableFile(atPath: unshare), FileManager.default.isExecutableFile(atPath: nsenter) else {
            throw XCTSkip("needs root, unshare, nsenter and setpriv to make a container without Docker")
        }
        var container = "mount --make-rprivate / && mount -o remount,bind,ro /"
        if tmpfsOnTmp {
            // A checkout under /tmp (a clean clone, say) would vanish under the tmpfs: the folders
            // holding the program and the shipped seed are opened first and bound back into it, as an
            // image has them in its own root (not canonicalized: mount(8) would resolve the fd's
            // link to the hidden path).
            let kept = Set([ChildProcess.executable.path, FileManager.default.currentDirectoryPath].compactMap(Self.folderInTmp))
            var (open, bindBack) = ("", "")
            for (number, folder) in kept.sorted().enumerated() {
                open += " && exec \(3 + number)< '\(folder)'"
                bindBack += " && mkdir -p '\(folder)' && mount --no-canonicalize --bind /proc/self/fd/\(3 + number) '\(folder)'"
            }
            container += open + " && mount -t tmpfs -o mode=1777 tmpfs /tmp" + bindBack
        }
        container += " && exec \"$@\""
        // No health file named, as in the image: the default one in /tmp.
        let image = ["PORT": "1", "MOCK_HEALTH_FILE": "", "TMPDIR": ""]
        let server = try ChildProcess(["--port", "0", "--admin-token", token], environment: image,
                                      wrapper: [unshare, "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c",
                                                container, "sh"] + user)
        guard server.waitForOutput("Ctrl-C stops.") else {
            if server.standardError.contains("mount") || server.standardError.contains("unshare") {
                throw XCTSkip("this system does not let the tests make namespaces: \(server.standardError)")
            }
            return XCTFail(server.standardOutput + server.standardError)
        }
        XCTAssertFalse(server.standardOutput.contains("warning"), server.standardOutput)
        // The container's PID 1, as the host numbers it: the one child of unshare.
        let children = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/task/\(server.process.processIdentifier)/children",
                                  encoding: .utf8)
        let pid = try XCTUnwrap(children.split(separator: " ").first.map(String.init), "unshare has no child")
        // unshare ignores SIGTERM while its child runs: the container stops as docker stop stops it.
        defer { kill(pid_t(pid) ?? 0, SIGTERM) }
        // --root: the container's root, as docker exec has it; where the tests run in a chroot,
        // entering the mount namespace alone would leave the probe in the host's root.
        let probe = try ChildProcess(["--healthcheck"], environment: image,
                                     wrapper: [nsenter, "--target", pid, "--mount", "--pid", "--root", "--"] + user)
        XCTAssertEqual(probe.waitForExit(), 0, probe.standardOutput + probe.standardError)
        XCTAssertTrue(probe.standardOutput.hasPrefix("healthy: {\"status\":\"ok\""), probe.standardOutput + probe.standardError)
    }

    /// The folder directly in /tmp that holds `path`, if any.
    private static func folderInTmp(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count >= 2, parts[0] == "tmp" else { return nil }
        return "/tmp/\(parts[1])"
    }
}
