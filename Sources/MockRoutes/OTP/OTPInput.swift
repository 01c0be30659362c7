import MockHTTP
import MockKit
import MockSupport

/// A request body as docs/apis/otp.md#rules-shared-by-the-three-endpoints reads it: JSON whatever `Content-Type` says (the course's client
/// sends none, so URLSession labels it a form); empty or only whitespace is `{}`.
struct OTPInput {
    let object: JSONObject

    init(_ request: Request) throws(OTPError) {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            object = JSONObject()
            return
        }
        guard let parsed = try? JSONParser.parse(request.body, maxValues: JSONParser.requestBodyValueLimit),
              case let .object(members) = parsed else {
            throw .invalidRequest
        }
        object = members
    }

    /// A field that must be a string when given: nil when absent or `null`.
    func optionalString(_ key: String) throws(OTPError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case let .string(text)?: return text
        default: throw .notAString(field: key)
        }
    }
}

/// US phone numbers in the forms of docs/apis/otp.md#phone-numbers, normalised to `+1` and ten digits.
enum PhoneNumber {
    private static let separators: Set<Unicode.Scalar> = [" ", "-", ".", "(", ")"]

    /// `+15305550123` for `(530) 555-0123` and the other accepted forms; nil for anything else.
    static func normalize(_ text: String) -> String? {
        var digits = Array(text.unicodeScalars.filter { !separators.contains($0) })
        if digits.starts(with: ["+", "1"]) {
            digits.removeFirst(2)
        } else if digits.count == 11, digits.first == "1" {
            digits.removeFirst()
        }
        // NANP: neither the area code nor the exchange starts with 0 or 1.
        guard digits.count == 10, digits.allSatisfy({ ("0"..."9").contains($0) }),
              digits[0] >= "2", digits[3] >= "2" else { return nil }
        return "+1" + String(String.UnicodeScalarView(digits))
    }

    /// Whether `text` is a number as `normalize` writes it (`normalize(text) == text`), checked
    /// in place: every seeded number is.
    static func isNormalized(_ text: String) -> Bool {
        guard text.utf8.count == 12, text.utf8.starts(with: "+1".utf8) else { return false }
        let digits = text.utf8.dropFirst(2)
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let areaCode = digits.first, let exchange = digits.dropFirst(3).first else { return false }
        return areaCode >= UInt8(ascii: "2") && exchange >= UInt8(ascii: "2")
    }
}
