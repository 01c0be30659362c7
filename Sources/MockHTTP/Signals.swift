import Dispatch

/// Runs `handler` on the main queue for each SIGINT or SIGTERM, instead of the default exit.
/// A C handler writes the signal's number to a pipe and a reader takes it from there, so a signal
/// is never lost once this returns. (A Dispatch signal source needs the signal ignored, and one
/// that comes before the source is armed is dropped: on macOS even while blocked, as xnu discards
/// ignored signals at once.)
public enum TerminationSignals {
    public static func handle(_ handler: @escaping @Sendable (Int32) -> Void) {
        guard let readEnd = Sys.redirectTerminationSignals() else { return }
        DispatchQueue(label: "termination-signals").async {
            while let number = Sys.readByte(readEnd) {
                DispatchQueue.main.async { handler(Int32(number)) }
            }
        }
    }
}
