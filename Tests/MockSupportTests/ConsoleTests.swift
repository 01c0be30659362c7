import Foundation
@testable import MockSupport
import XCTest

final class ConsoleTests: XCTestCase {
    /// Lines beyond what may wait are dropped while nobody reads; the next line that fits says how many.
    func testLinesThatDoNotFitAreCountedAndTheCountIsSaid() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        // Fill the pipe itself first, so the writer thread blocks and the queue has to hold the rest.
        let filler = [UInt8](repeating: UInt8(ascii: "\n"), count: 4096)
        var flags = fcntl(ends[1], F_GETFL)
        _ = fcntl(ends[1], F_SETFL, flags | O_NONBLOCK)
        while filler.withUnsafeBytes({ write(ends[1], $0.baseAddress!, $0.count) }) > 0 {}
        flags = fcntl(ends[1], F_GETFL)
        _ = fcntl(ends[1], F_SETFL, flags & ~O_NONBLOCK)

        // 7 bytes a line with its newline: the writer's one batch and the queue hold 5 lines each
        // at most, so of 20 lines at least 10 are dropped whenever the writer takes its batch.
        let console = Console(descriptor: ends[1], capacity: 40)
        for number in 1...20 { console.write("line \(number)") }
        var drained = [UInt8](repeating: 0, count: 1 << 16)
        var text = ""
        // Make room: the writer finishes its batch (the first lines) and the queue empties.
        while !text.contains("line 1\n") {
            let count = read(ends[0], &drained, drained.count)
            XCTAssertGreaterThan(count, 0)
            text += String(decoding: drained[0..<count], as: UTF8.self)
        }
        console.write("after")
        console.flush(waiting: 10)
        close(ends[1])
        while true {
            let count = read(ends[0], &drained, drained.count)
            if count <= 0 { break }
            text += String(decoding: drained[0..<count], as: UTF8.self)
        }
        // How many lines the writer took before the pipe stopped it varies; what was dropped is said.
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "line 1")
        XCTAssertEqual(lines.last, "after")
        let notice = try XCTUnwrap(lines.dropLast().last)
        let prefix = "mock-backend: ", suffix = " console lines were dropped: standard output was not being read"
        XCTAssertTrue(notice.hasPrefix(prefix) && notice.hasSuffix(suffix), notice)
        let dropped = try XCTUnwrap(Int(notice.dropFirst(prefix.count).dropLast(suffix.count)), notice)
        let written = lines.filter { $0.hasPrefix("line ") }
        XCTAssertEqual(written, (1...(20 - dropped)).map { "line \($0)" }, "the lines that fit, in order")
    }
}
