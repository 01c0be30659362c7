import Foundation

/// An answer that waits for work off the event loop (the `--state` log's flush to the disk): the
/// loop holds it as it holds a delayed answer, serving its other connections meanwhile (later
/// pipelined requests of its own connection wait behind it), and sends what `complete` gives.
public final class PendingAnswer: @unchecked Sendable {
    /// Turns the held answer (as the responder returned it, `pending` aside) into the one to send;
    /// run on the loop's thread, so it may run a handler again.
    public typealias Finish = (Response) -> Response

    private let lock = NSLock()
    private var finish: Finish?
    private var ready: ((@escaping Finish) -> Void)?

    public init() {}

    /// Called once, from any thread, when the answer may go out.
    public func complete(_ finish: @escaping Finish) {
        lock.lock()
        guard let ready else {
            self.finish = finish
            return lock.unlock()
        }
        self.ready = nil
        lock.unlock()
        ready(finish)
    }

    /// The loop's side: `ready` is called once `complete` was, on the thread that called it.
    func whenComplete(_ ready: @escaping (@escaping Finish) -> Void) {
        lock.lock()
        guard let finish else {
            self.ready = ready
            return lock.unlock()
        }
        self.finish = nil
        lock.unlock()
        ready(finish)
    }
}
