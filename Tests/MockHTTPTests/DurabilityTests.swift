import Foundation
import MockHTTP
import XCTest

/// `Durability` (fsync on Linux, F_FULLFSYNC on macOS) reports failure instead of hiding it.
final class DurabilityTests: XCTestCase {
    func testSyncsFilesAndFoldersAndSaysWhenItCannot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("state.json")
        try Data("{}".utf8).write(to: file)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        XCTAssertTrue(Durability.sync(handle.fileDescriptor))
        XCTAssertTrue(Durability.syncDirectory(folder.path))
        XCTAssertFalse(Durability.sync(-1))
        XCTAssertFalse(Durability.syncDirectory(folder.appendingPathComponent("missing").path))
    }
}
