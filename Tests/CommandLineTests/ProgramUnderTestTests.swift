import Foundation
import TestSupport
import XCTest

/// How the tests find the `mock-backend` program they start, and what they say when it is missing
/// or stale: Xcode's ⌘U builds the tests but not the program (README, "On a Mac").
final class ProgramUnderTestTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("program-under-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/A"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    /// A file in the temporary folder, modified `age` seconds ago.
    private func file(_ path: String, executable: Bool = false, age: TimeInterval) throws -> URL {
        let url = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data("x".utf8)))
        var attributes: [FileAttributeKey: Any] = [.modificationDate: Date().addingTimeInterval(-age)]
        if executable { attributes[.posixPermissions] = 0o755 }
        try FileManager.default.setAttributes(attributes, ofItemAtPath: url.path)
        return url
    }

    func testTheFirstFolderHoldingTheProgramIsChosen() throws {
        let empty = folder.appendingPathComponent("xctest-bundle-folder")
        let notExecutable = try file("running/mock-backend", age: 0).deletingLastPathComponent()
        let built = try file("build/debug/mock-backend", executable: true, age: 0).deletingLastPathComponent()
        XCTAssertEqual(ChildProcess.program(in: [empty, notExecutable, built]).path, built.appendingPathComponent("mock-backend").path)
        XCTAssertEqual(ChildProcess.program(in: [empty, notExecutable]).path, empty.appendingPathComponent("mock-backend").path)
    }

    func testAMissingProgramIsNamedWithHowToBuildIt() {
        let program = folder.appendingPathComponent("mock-backend")
        XCTAssertEqual(ChildProcess.problem(running: program, sources: folder.appendingPathComponent("Sources")),
                       "the mock-backend program is not built (looked for \(program.path)): "
                       + "build it (`swift build`, or the mock-backend scheme in Xcode), then test again")
    }

    func testAProgramOlderThanASourceFileIsNamedStale() throws {
        let program = try file("mock-backend", executable: true, age: 60)
        _ = try file("Sources/A/Old.swift", age: 120)
        XCTAssertNil(ChildProcess.problem(running: program, sources: folder.appendingPathComponent("Sources")))
        let edited = try file("Sources/A/Edited.swift", age: 0)
        XCTAssertEqual(ChildProcess.problem(running: program, sources: folder.appendingPathComponent("Sources")),
                       "\(program.path) is older than \(edited.path): "
                       + "build it (`swift build`, or the mock-backend scheme in Xcode), then test again")
    }
}
