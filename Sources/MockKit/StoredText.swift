import Foundation
import MockHTTP

/// The bytes of client text each API has stored since its last reset or load, charged to the
/// server's memory budget, of which stored text may take half (docs/reliability.md#memory-budget).
/// Freed by a reset or a load, and by a delete for the texts it removes.
public final class StoredText: @unchecked Sendable {
    /// What a row costs beside its texts (its numbers, index entries, the allocator's slack).
    public static let rowOverhead = 256
    private let budget: MemoryBudget
    private let charged = Locked<[String: Int]>([:])

    public init(budget: MemoryBudget) {
        self.budget = budget
    }

    /// Charges `bytes` to `api` when they fit (false, and nothing charged, when they do not); a
    /// negative count gives back at most what `api` was charged (a seed's row is not charged).
    func charge(_ bytes: Int, to api: String) -> Bool {
        charged.withLock { charged in
            if bytes <= 0 {
                let given = min(-bytes, charged[api, default: 0])
                charged[api, default: 0] -= given
                budget.releaseStored(given)
                return true
            }
            guard budget.reserveStored(bytes) else { return false }
            charged[api, default: 0] += bytes
            return true
        }
    }

    /// The bytes `texts` take, and `rows` rows' overhead.
    static func cost(_ texts: [String], rows: Int = 0) -> Int {
        texts.reduce(rows * rowOverhead) { $0 + $1.utf8.count }
    }

    /// Gives back what `api` was charged: its tables went back to a seed or a loaded document.
    func release(_ api: String) {
        charged.withLock { budget.releaseStored($0.removeValue(forKey: api) ?? 0) }
    }
}

extension CourseAPI {
    /// Nil when a client may add a row of `texts` to `table`, which holds `rows`: fewer than
    /// `cap`, and the texts fit in the budget (charged then). Otherwise this API's 503 (its answer
    /// to an unavailable server), with the reason for the console; nothing is charged.
    /// Call it once every other check of the write has passed, just before the row is added.
    public func refusedStoring(_ texts: [String], in table: String, holding rows: Int, cap: Int) -> Response? {
        guard rows < min(cap, context.options.rowLimit ?? cap) else {
            let full = "\(Self.name) holds \(rows) \(table), the most clients may store (docs/apis: size limits); "
            return unavailable(full + "POST /_mock/reset/\(Self.name) empties it")
        }
        return refusedGrowth(by: StoredText.cost(texts, rows: 1))
    }

    /// Nil when a client may change a row's texts from `replaced` to `texts` (OTP's saved
    /// accounts): what the row grows by fits in the budget (charged then; a shrink gives back).
    /// Otherwise the same 503 as `refusedStoring`; nothing is charged.
    public func refusedChanging(_ replaced: [String], to texts: [String]) -> Response? {
        refusedGrowth(by: StoredText.cost(texts) - StoredText.cost(replaced))
    }

    /// Nil once `bytes` more are charged to this API (a negative count gives back), else the 503 of a full share.
    private func refusedGrowth(by bytes: Int) -> Response? {
        guard context.options.storedText?.charge(bytes, to: Self.name) == false else { return nil }
        return unavailable("what clients stored fills its half of --memory-budget; POST /_mock/reset frees it")
    }

    /// This API's 503 (its answer to an unavailable server), with the reason for the console.
    private func unavailable(_ reason: String) -> Response {
        var response = Failure.injectedFault(status: 503)
        response.explanation = reason
        return response
    }

    /// Called by a delete: the texts it removed (and `rows` rows) are charged no more.
    public func releaseStored(_ texts: [String], rows: Int = 1) {
        _ = context.options.storedText?.charge(-StoredText.cost(texts, rows: rows), to: Self.name)
    }

    /// Called when the tables go back to a seed or a document: their client text is charged no more.
    func releaseStoredText() {
        context.options.storedText?.release(Self.name)
    }
}
