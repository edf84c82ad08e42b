public import BrokerCore
public import BrokerModel
import Foundation

extension SessionTokens {
    /// The contract's session body, written in one pass: the text `JSONValue.serialized()` makes of the object
    /// of `customToken` (when there is one), `expiresIn`, `idToken`, `isNewUser`, `refreshToken` and `user`.
    public func body(user: Account, isNewUser: Bool) -> JSONText {
        var writer = JSONWriter(capacity: 2048)
        writer.beginObject()
        if let customToken {
            writer.key("customToken")
            writer.string(customToken)
        }
        writer.key("expiresIn")
        writer.int(Int64(expiresIn))
        writer.key("idToken")
        writer.string(idToken)
        writer.key("isNewUser")
        writer.bool(isNewUser)
        writer.key("refreshToken")
        writer.string(refreshToken)
        writer.key("user")
        user.writeJSON(into: &writer)
        writer.endObject()
        return JSONText(writer.bytes)
    }
}
