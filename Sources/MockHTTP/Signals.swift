#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#else
#error("mock-backend builds on macOS (Darwin) and Linux (Glibc) only")
#endif
import Dispatch

/// Runs `handler` on the main queue for each SIGINT or SIGTERM, instead of the default exit.
/// A C handler writes the signal's number to a pipe and a reader thread takes it from there, so a
/// signal is never lost once this returns. (A Dispatch signal source needs the signal ignored, and
/// one that comes before the source is armed is dropped: on macOS even while blocked, as xnu
/// discards ignored signals at once.)
public enum TerminationSignals {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    public static func handle(_ handler: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        DispatchQueue(label: "termination-signals").async {
            var number: UInt8 = 0
            while read(readEnd, &number, 1) == 1 {
                let signal = Int32(number)
                DispatchQueue.main.async { handler(signal) }
            }
        }
        for number in [SIGINT, SIGTERM] {
            // Only async-signal-safe work here: one write.
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(TerminationSignals.pipeWriteEnd, &byte, 1)
            }
        }
    }
}
