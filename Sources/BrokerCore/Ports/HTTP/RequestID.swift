import BrokerCrypto

/// The request id every response carries as `X-Request-Id` and every log line names: the client's own
/// when it is short and plain, else a new random one. The app and the server driver's own answers (413,
/// 400 for ambiguous framing, 503 while draining) share this rule.
public enum RequestID {
    /// The client's `X-Request-Id` when it is 1 to 64 characters of `A-Z a-z 0-9 - _ .`, else 16 new
    /// random hex digits.
    public static func from(header: String?) -> String {
        if let header, (1...64).contains(header.utf8.count),
            header.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || $0 == 0x2E || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        {
            return header
        }
        return Hex.encode(SecureRandom.bytes(8))
    }
}
