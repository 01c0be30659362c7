import Foundation

/// What the request being answered on this thread wrote to the `--state` log and which of its
/// records it read past, so the answer waits until they are stored (or learns they never will be).
/// A request runs on one event-loop thread from start to end, so a thread-local is its own.
final class RequestWrites {
    /// The first and the last record this request wrote (0: none).
    var firstWrote = 0
    var wrote = 0 {
        didSet { if firstWrote == 0 { firstWrote = wrote } }
    }
    /// The last record of any store this request read (0: none).
    var saw = 0
    /// Set while the log reloads the state: loading is not a change to write.
    var replaying = false

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // Released when its thread ends (Darwin passes the pointer non-optional, Glibc optional).
        pthread_key_create(&key) { RequestWrites.release($0) }
        return key
    }()

    private static func release(_ pointer: UnsafeMutableRawPointer?) {
        if let pointer { Unmanaged<RequestWrites>.fromOpaque(pointer).release() }
    }

    static var current: RequestWrites {
        if let pointer = pthread_getspecific(key) { return Unmanaged<RequestWrites>.fromOpaque(pointer).takeUnretainedValue() }
        let made = RequestWrites()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    func sawRecord(_ number: Int) {
        if number > saw { saw = number }
    }

    func clear() {
        firstWrote = 0
        wrote = 0
        saw = 0
    }
}
