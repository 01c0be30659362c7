import MockHTTP
import MockKit

/// The parameters of a request, read from the URL query only (docs/apis/internproducts.md#rules-shared-by-all-three-endpoints): `+` is a space, pairs
/// with a malformed escape or invalid UTF-8 are dropped, and a repeated key keeps its last value.
struct InternProductsInput {
    private let pairs: [(name: String, value: String)]

    init(_ request: Request) {
        pairs = FormDecoding.pairs(Array((request.query ?? "").utf8), malformed: .dropPair)
    }

    /// The value, or `Missing parameter: <name>` when it is absent, empty or was dropped.
    func required(_ name: String) throws(InternProductsError) -> String {
        guard let value = FormDecoding.last(name, in: pairs), !value.isEmpty else { throw .missingParameter(name) }
        return value
    }
}
