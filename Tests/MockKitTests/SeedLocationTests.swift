import Foundation
@testable import MockKit
import XCTest

/// The walk from the working directory up to `/` that `SeedDirectory.locate` looks for `Seed/` in.
final class SeedLocationTests: XCTestCase {
    func testTheWalkEndsAtTheRoot() {
        XCTAssertEqual(SeedDirectory.foldersUp(from: URL(fileURLWithPath: "/tmp/a/../b")).map(\.path), ["/tmp/b", "/tmp", "/"])
        XCTAssertEqual(SeedDirectory.foldersUp(from: URL(fileURLWithPath: "/")).map(\.path), ["/"])
    }

    /// macOS 13 and 14's Foundation: the parent of `/` is `/..`, whose parent is `/../..`, and so on.
    /// After 100 steps the stand-in gives the folder back, so that a walk without an end of its own
    /// stops and fails here instead of hanging.
    func testTheWalkEndsAtTheRootWhereTheParentOfTheRootIsDotDot() {
        var steps = 0
        let oldFoundation: (URL) -> URL = { folder in
            steps += 1
            guard steps <= 100 else { return folder }
            if folder.path == "/" || folder.lastPathComponent == ".." { return folder.appendingPathComponent("..") }
            return folder.deletingLastPathComponent()
        }
        let walk = SeedDirectory.foldersUp(from: URL(fileURLWithPath: "/tmp/a"), parent: oldFoundation)
        XCTAssertEqual(walk.map(\.path), ["/tmp/a", "/tmp", "/"])
    }
}
