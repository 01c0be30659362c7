import MockHTTP
import MockKit
import MockSupport

/// The JSON shapes of the OTP API. docs/apis/otp.md#rules-shared-by-the-three-endpoints: keys sorted by code point in every object of the
/// three endpoints, so the properties are declared in that order.

/// The user object (docs/apis/otp.md#endpoints), `tos_accpted` misspelt as the real server spelt it.
struct OTPUserShape: Encodable {
    var accounts: [OTPAccount]?
    var driversLicense = JSONValue.null
    var e164PhoneNumber: String
    var email = JSONValue.null
    var keyfilePassword: String
    var name: String
    var paymentMethods: [JSONValue] = []
    var tosAccpted = 0
    var userID: String

    enum CodingKeys: String, CodingKey {
        case accounts, driversLicense = "drivers_license", e164PhoneNumber = "e164_phone_number", email
        case keyfilePassword = "keyfile_password", name, paymentMethods = "payment_methods"
        case tosAccpted = "tos_accpted", userID = "user_id"
    }

    init(_ user: OTPUser) {
        accounts = user.accounts
        e164PhoneNumber = user.phone
        keyfilePassword = user.keyfilePassword
        name = user.name
        userID = user.userID
    }
}

/// The answer of `/api/user` (the user alone) and of `/api/verify_code` (also the token).
struct OTPUserAnswer: Encodable {
    var authToken: String?
    /// 1 when this verify created the user, else 0: an integer, never a boolean.
    var isNewUser: Int?
    var status = "ok"
    var user: OTPUserShape

    enum CodingKeys: String, CodingKey {
        case authToken = "auth_token", isNewUser = "is_new_user", status, user
    }
}

/// A text "sent", as the outbox keeps it and `GET /_mock/otp/outbox` lists it, keys in
/// docs/admin.md's order.
struct OTPOutboxMessage: Encodable {
    var phone: String
    var code: String
    var sentAt: String
    var expiresAt: String

    enum CodingKeys: String, CodingKey {
        case phone, code, sentAt = "sent_at", expiresAt = "expires_at"
    }
}
