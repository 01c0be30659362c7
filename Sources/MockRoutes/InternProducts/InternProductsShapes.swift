extension InternProductsAPI {
    /// `/products`' SUCCESS body (docs/apis/internproducts.md#endpoints): `status` first, then each
    /// product in `InternProductsState.Product`'s shape.
    struct ProductList: Encodable {
        var status = "SUCCESS"
        var products: [InternProductsState.Product]
    }
}
