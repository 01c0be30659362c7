import Dispatch

/// SIGINT and SIGTERM, instead of the default exit: `first` runs on the main queue for the first
/// of them; `again` runs for each later one on a queue of its own, so it runs while `first` is
/// still busy (a second Ctrl-C during the drain). A C handler writes the signal's number to a pipe
/// and a reader takes it from there, so a signal is never lost once this returns. (A Dispatch
/// signal source needs the signal ignored, and one that comes before the source is armed is
/// dropped: on macOS even while blocked, as xnu discards ignored signals at once.)
public enum TerminationSignals {
    public static func handle(first: @escaping @Sendable (Int32) -> Void, again: @escaping @Sendable (Int32) -> Void) {
        guard let readEnd = Sys.redirectTerminationSignals() else { return }
        DispatchQueue(label: "termination-signals").async {
            var received = 0
            while let number = Sys.readByte(readEnd) {
                received += 1
                if received == 1 {
                    DispatchQueue.main.async { first(Int32(number)) }
                } else {
                    again(Int32(number))
                }
            }
        }
    }
}
