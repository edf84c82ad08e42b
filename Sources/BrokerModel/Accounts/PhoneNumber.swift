/// The phone numbers an account may hold: E.164, `+` then 2 to 15 digits, the first not 0 (`+15551234567`).
/// Stored exactly as given; at most one account holds a number.
public enum PhoneNumber {
    /// The longest E.164 number, its `+` included.
    public static let maximumLength = 16

    /// Whether `text` is an E.164 phone number.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...maximumLength).contains(bytes.count), bytes[0] == UInt8(ascii: "+"),
            bytes[1] != UInt8(ascii: "0")
        else { return false }
        return bytes.dropFirst().allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
