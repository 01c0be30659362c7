import Foundation
import MockKit
import Threads
import InternProducts
import WSUVTwitter
import CSE118
import OTP

/// Every API the server knows, in the order of `/_mock/health`, with the seed file each loads.
public enum APICatalog {
    public static let names = ["threads", "internproducts", "wsuv", "cse118", "otp"]

    /// The APIs to serve (all, or those of `--only`), each filled from its seed file.
    public static func load(_ only: [String]? = nil, seed: SeedDirectory, options: APIOptions) throws(SeedError) -> [any MockAPI] {
        var apis: [any MockAPI] = []
        for name in names where only?.contains(name) ?? true {
            if let api = try make(name, seed: seed, options: options) { apis.append(api) }
        }
        return apis
    }

    private static func make(_ name: String, seed: SeedDirectory, options: APIOptions) throws(SeedError) -> (any MockAPI)? {
        let file = "\(name).json"
        do {
            switch name {
            case "threads": return try ThreadsAPI(seed: seed.document(file), options: options)
            case "internproducts": return try InternProductsAPI(seed: seed.document(file), seedFolder: seed.url, options: options)
            case "wsuv": return try WSUVTwitterAPI(seed: seed.document(file), options: options)
            case "cse118": return try CSE118API(seed: seed.document(file), options: options)
            case "otp": return try OTPAPI(seed: seed.document(file), options: options)
            default: return nil
            }
        } catch {
            var located = error
            located.file = located.file ?? seed.url.appendingPathComponent(file).path
            throw located
        }
    }
}
