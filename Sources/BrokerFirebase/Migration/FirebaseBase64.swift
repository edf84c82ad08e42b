import BrokerCore
import BrokerCrypto

/// Base64 as Firebase's export files and hash flags carry it: the standard or the URL-safe alphabet,
/// padded or not (contract section 8).
public enum FirebaseBase64 {
    /// The bytes `text` encodes in either alphabet, or nil when it is valid in neither (or mixes them).
    public static func decode(_ text: String) -> [UInt8]? {
        if text.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return nil }
        return Base64.decode(text) ?? Base64URL.decode(text)
    }
}
