extension String {
    /// The text `bytes` spell as UTF-8, or nil when they are not valid UTF-8 (overlong forms,
    /// surrogates, stray continuation bytes, truncated sequences). The standard library's
    /// validating initializer (`validating:as:`) does the same but needs macOS 15; our floor is macOS 13.
    /// Inlinable, so that callers in other modules get it specialized for their collection (the
    /// request parser checks every request's target with it; unspecialized, that cost about 2 % of
    /// the threads list's CPU).
    @inlinable public init?<Bytes: Collection>(validUTF8 bytes: Bytes) where Bytes.Element == UInt8 {
        if !bytes.allSatisfy({ $0 < 0x80 }) {
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: break decoding
                case .error: return nil
                }
            }
        }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
