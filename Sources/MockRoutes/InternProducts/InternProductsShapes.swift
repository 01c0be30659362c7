/// The JSON shapes of the InternProducts API (docs/apis/internproducts.md#endpoints), keys in declaration order;
/// `status` always comes first.
extension InternProductsAPI {
    struct ProductShape: Encodable {
        var tags: [String]
        var title: String
        /// Standard base64 of the picture file.
        var image: String
        var description: String
        /// UNIX seconds.
        var date: Int
    }

    struct ProductList: Encodable {
        var status = "SUCCESS"
        var products: [ProductShape]
    }
}
