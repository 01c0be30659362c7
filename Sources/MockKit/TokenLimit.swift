/// How many live tokens one owner (a user, a member) may hold. The real servers' tokens were
/// stateless or never counted, so any number stayed valid; ours are looked up in a table, which
/// without a limit every login would grow for good (memory and the state file). An app holds one
/// token per login, and ten covers a student running the iOS, Android and web clients with a few
/// test runs each. Each API keeps an owner's tokens oldest first and forgets in its own index the
/// token `append` ends.
public enum TokenLimit {
    public static let perOwner = 10

    /// Adds `token` as the owner's newest (once: a token issued again moves there); returns the
    /// oldest ones past the limit, which no longer work.
    public static func append(_ token: String, to tokens: inout [String]) -> ArraySlice<String> {
        tokens.removeAll { $0.hasSameBytes(as: token) }
        tokens.append(token)
        let ended = tokens.dropLast(perOwner)
        tokens.removeFirst(ended.count)
        return ended
    }
}
