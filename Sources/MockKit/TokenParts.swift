import Foundation

/// The pieces of the JWT-shaped bearer tokens several courses issue: the tokens are opaque to this
/// server (looked up whole), so only their look needs to match, not a signature.
public enum TokenParts {
    /// Base64url without padding, as JWT segments are written.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A JWT-shaped token: the given header, the payload in base64url, and 32 random bytes as the signature.
    public static func jwt(header: String, payload: [UInt8], random: RandomStream) -> String {
        header + "." + base64URL(payload) + "." + base64URL(random.bytes(32))
    }
}
