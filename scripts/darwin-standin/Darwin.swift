// The Swift side of the stand-in Darwin module: what Apple's Darwin overlay adds to the C headers
// and the importer cannot bring in by itself (errno, SIG_IGN, the variadic fcntl and open).
// Only types matter here: scripts/check-darwin.sh type-checks against this module and runs nothing.
@_exported import CDarwin

public var errno: Int32 {
    get { __error().pointee }
    set { __error().pointee = newValue }
}

public var SIG_IGN: sig_t { unsafeBitCast(1, to: sig_t.self) }

public func fcntl(_ fd: Int32, _ cmd: Int32) -> Int32 { fatalError("type-check only") }
public func fcntl(_ fd: Int32, _ cmd: Int32, _ value: Int32) -> Int32 { fatalError("type-check only") }
public func open(_ path: UnsafePointer<CChar>, _ oflag: Int32) -> Int32 { fatalError("type-check only") }
