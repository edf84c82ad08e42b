import BrokerModel
import Foundation

/// The `trustedProxies` setting: the addresses and CIDR ranges whose `X-Forwarded-For` is believed
/// (contract section 7), and the resolution of a request's client address through them.
///
/// The client address is the peer's (the TCP connection's) address, unless the peer is a trusted proxy:
/// then it is the right-most `X-Forwarded-For` entry that is not itself a trusted proxy. Entries left of
/// that one were written by the client and are never believed. When every entry is trusted, the left-most
/// one is the client; when the entry to read is not a numeric address (garbage, `unknown`), the nearest
/// trusted hop is, so a forged value can never become the address that limits count.
public struct TrustedProxies: Sendable, Equatable {
    /// One trusted range: `address` with its first `prefixLength` bits significant.
    public struct Range: Sendable, Equatable, CustomStringConvertible {
        /// The range's first address (the bits past the prefix are zero).
        public let network: IPAddress
        /// The number of leading bits that must match (32 for one IPv4 address, 128 for one IPv6).
        public let prefixLength: Int

        /// Parses `192.0.2.1`, `192.0.2.0/24`, `2001:db8::/32`; nil for anything else, including set bits
        /// past the prefix (`10.0.0.1/8` is refused as the likely typo it is).
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(String(parts[0])) else { return nil }
            let width = address.bytes.count * 8
            var length = width
            if parts.count == 2 {
                let digits = parts[1]
                guard (1...3).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                    let parsed = Int(digits), parsed <= width,
                    !(digits.count > 1 && digits.first == "0")
                else { return nil }
                length = parsed
            }
            guard Range.masked(address.bytes, to: length) == address.bytes else { return nil }
            network = address
            prefixLength = length
        }

        /// Whether `address` is in the range (an IPv4 address never matches an IPv6 range, and back).
        public func contains(_ address: IPAddress) -> Bool {
            address.bytes.count == network.bytes.count
                && Range.masked(address.bytes, to: prefixLength) == network.bytes
        }

        /// `network/prefixLength`.
        public var description: String { "\(network)/\(prefixLength)" }

        /// `bytes` with every bit past the first `length` cleared.
        private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
            bytes.enumerated().map { index, byte in
                let kept = min(max(length - index * 8, 0), 8)
                return kept == 8 ? byte : byte & ~(0xFF >> UInt8(kept))
            }
        }
    }

    /// The trusted ranges, in the order configured.
    public let ranges: [Range]

    /// Nobody is trusted: the client address is always the peer's.
    public static let none = TrustedProxies(ranges: [])

    /// Trusts exactly `ranges`.
    public init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses the config's list; an entry that is not an address or CIDR range is refused naming it
    /// (`trustedProxies[2]`). At most 1,000 entries.
    public init(parsing entries: [String], field: String = "trustedProxies") throws {
        guard entries.count <= 1000 else { throw ConfigError(field: field, "must list at most 1000 entries") }
        ranges = try entries.enumerated().map { index, entry in
            guard let range = Range(entry) else {
                throw ConfigError(
                    field: "\(field)[\(index)]",
                    "must be an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.0/8), with no bits set past the prefix")
            }
            return range
        }
    }

    /// Whether `address` is a trusted proxy.
    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Whether the address spelled `text` is a trusted proxy; false for anything that is not an address.
    public func contains(address text: String) -> Bool {
        guard !ranges.isEmpty, let address = IPAddress(text) else { return false }
        return contains(address)
    }

    /// The client address of a request from `peer` (the connection's address, as the server reports it)
    /// carrying `forwardedFor` (every `X-Forwarded-For` field, joined with commas). Looks at no more than
    /// the 64 right-most entries.
    public func clientAddress(peer: String, forwardedFor: String?) -> String {
        guard !ranges.isEmpty, let peerAddress = IPAddress(peer), contains(peerAddress) else { return peer }
        guard let forwardedFor else { return peerAddress.description }
        var nearest = peerAddress
        for entry in forwardedFor.split(separator: ",", omittingEmptySubsequences: false).reversed().prefix(64) {
            guard let hop = TrustedProxies.address(in: entry) else { return nearest.description }
            if !contains(hop) { return hop.description }
            nearest = hop
        }
        return nearest.description
    }

    /// The address of one `X-Forwarded-For` entry: `192.0.2.1`, `192.0.2.1:8080`, `2001:db8::1` or
    /// `[2001:db8::1]:8080`, with optional spaces around it.
    private static func address(in entry: Substring) -> IPAddress? {
        let text = entry.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || TrustedProxies.isPortSuffix(rest) else { return nil }
            return IPAddress(String(text[text.index(after: text.startIndex)..<close]))
        }
        if let direct = IPAddress(text) { return direct }
        // IPv4 with a port: exactly one colon.
        let halves = text.split(separator: ":", omittingEmptySubsequences: false)
        guard halves.count == 2, TrustedProxies.isPortSuffix(":" + halves[1]) else { return nil }
        return IPAddress(String(halves[0])).flatMap { $0.isIPv4 ? $0 : nil }
    }

    /// `:` followed by 1 to 5 digits.
    private static func isPortSuffix<S: StringProtocol>(_ text: S) -> Bool {
        text.first == ":" && (2...6).contains(text.count) && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }
}
