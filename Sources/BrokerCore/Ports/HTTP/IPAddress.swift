import Foundation

/// A numeric IPv4 or IPv6 address, parsed and printed by the C library (`inet_pton`, `inet_ntop`).
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports for an IPv4 peer) is
/// the IPv4 address it maps, so one client has one spelling whichever socket it came through.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in network order: 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// Parses a numeric address (`192.0.2.1`, `2001:db8::1`); nil for anything else (host names, ports,
    /// brackets, zone ids, surrounding spaces).
    public init?(_ text: String) {
        // inet_pton reads up to a NUL; a string with one inside is not an address.
        guard !text.isEmpty, text.utf8.count <= 45, !text.utf8.contains(0) else { return nil }
        var storage = [UInt8](repeating: 0, count: 16)
        if storage.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            bytes = Array(storage.prefix(4))
        } else if storage.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 {
            bytes = IPAddress.unmapped(storage)
        } else {
            return nil
        }
    }

    /// An address from its bytes in network order (4 or 16 of them); nil for any other count.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.bytes = bytes
        case 16: self.bytes = IPAddress.unmapped(bytes)
        default: return nil
        }
    }

    /// The C library's canonical spelling (`192.0.2.1`, `2001:db8::1`).
    public var description: String {
        var text = [CChar](repeating: 0, count: 64)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { source in
            text.withUnsafeMutableBufferPointer { inet_ntop(family, source.baseAddress, $0.baseAddress, 64) }
        }
        guard written != nil else { return isIPv4 ? "0.0.0.0" : "::" }  // cannot happen for 4 or 16 bytes
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else `bytes` unchanged.
    private static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes.suffix(4))
        }
        return bytes
    }
}
