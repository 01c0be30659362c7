/// The tokens an API's logins issued since its state was loaded, oldest first. The real servers'
/// tokens were stateless or never counted, so any number stayed valid; ours are looked up in a
/// table, which without a bound every login would grow for good (memory and the state file). Past
/// `APIOptions.issuedTokenLimit` the oldest issued token ends: a bound for the whole API, so a
/// classroom logging in as the same seeded account never reaches it, and tokens a seed or state
/// document brought are never in it, so the banner's seeded tokens always work.
public struct IssuedTokens {
    private var order: [String] = []
    /// `order[..<head]` have ended already: dropped in one go once they are half of `order`.
    private var head = 0

    public init() {}

    /// Records `token` as the newest; returns the oldest recorded one when more than `limit` are,
    /// which the API then forgets. Amortized O(1).
    public mutating func record(_ token: String, limit: Int) -> String? {
        order.append(token)
        guard order.count - head > limit else { return nil }
        let oldest = order[head]
        head += 1
        if head * 2 >= order.count {
            order.removeFirst(head)
            head = 0
        }
        return oldest
    }
}
