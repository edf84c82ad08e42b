import BrokerCore
import BrokerModel
import Testing

/// `trustedProxies`: parsing addresses and ranges, and resolving a request's client address.
@Suite struct TrustedProxiesTests {
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("2001:DB8:0:0::1", "2001:db8::1"), ("::ffff:192.0.2.7", "192.0.2.7"),
        ("::1", "::1"), ("0.0.0.0", "0.0.0.0"),
    ])
    func addressesParseToOneSpelling(_ text: String, _ canonical: String) throws {
        #expect(try #require(IPAddress(text)).description == canonical)
    }

    @Test(arguments: [
        "", " 192.0.2.1", "192.0.2.1 ", "192.0.2", "192.0.2.256", "localhost", "[::1]", "192.0.2.1:80", "::1%lo",
        "1.2.3.4\u{0}", "unknown",
    ])
    func nonAddressesAreRefused(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: ["10.0.0.0/8", "192.0.2.1", "192.0.2.1/32", "2001:db8::/32", "::1", "0.0.0.0/0", "::/0"])
    func rangesParse(_ text: String) {
        #expect(TrustedProxies.Range(text) != nil)
    }

    @Test(arguments: [
        "10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/08", "10.0.0.0/-1", "2001:db8::/129", "host/8",
        "10.0.0.0/8/8", "",
    ])
    func badRangesAreRefused(_ text: String) {
        #expect(TrustedProxies.Range(text) == nil)
    }

    @Test func rangesContainWhatTheirPrefixCovers() throws {
        let range = try #require(TrustedProxies.Range("10.1.0.0/16"))
        #expect(range.contains(try #require(IPAddress("10.1.255.3"))))
        #expect(!range.contains(try #require(IPAddress("10.2.0.1"))))
        let odd = try #require(TrustedProxies.Range("192.0.2.128/25"))
        #expect(odd.contains(try #require(IPAddress("192.0.2.200"))))
        #expect(!odd.contains(try #require(IPAddress("192.0.2.127"))))
        let v6 = try #require(TrustedProxies.Range("2001:db8::/32"))
        #expect(v6.contains(try #require(IPAddress("2001:db8:ffff::9"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db9::1"))))
        // An IPv4 address matches no IPv6 range, even ::/0, and back.
        #expect(!(try #require(TrustedProxies.Range("::/0"))).contains(try #require(IPAddress("192.0.2.1"))))
        #expect(!(try #require(TrustedProxies.Range("0.0.0.0/0"))).contains(try #require(IPAddress("::2"))))
        // An IPv4-mapped peer is its IPv4 address.
        #expect(range.contains(try #require(IPAddress("::ffff:10.1.0.9"))))
    }

    struct Resolution: Sendable, CustomTestStringConvertible {
        var trusted: [String]
        var peer: String
        var forwardedFor: String?
        var client: String
        var testDescription: String { "\(trusted) peer \(peer) XFF \(forwardedFor ?? "-") -> \(client)" }
    }

    static let resolutions: [Resolution] = [
        // Nobody trusted: the header is ignored.
        Resolution(trusted: [], peer: "203.0.113.9", forwardedFor: "198.51.100.1", client: "203.0.113.9"),
        // An untrusted peer's header is ignored.
        Resolution(trusted: ["10.0.0.0/8"], peer: "203.0.113.9", forwardedFor: "198.51.100.1", client: "203.0.113.9"),
        // A trusted peer: its header names the client.
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "198.51.100.1", client: "198.51.100.1"),
        // The right-most untrusted entry wins; what the client wrote to its left is never believed.
        Resolution(
            trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "1.1.1.1, 198.51.100.1, 10.0.0.7",
            client: "198.51.100.1"),
        // Two header fields arrive joined with a comma.
        Resolution(
            trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "6.6.6.6, 198.51.100.4", client: "198.51.100.4"),
        // A trusted peer with no header is the client.
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: nil, client: "10.0.0.2"),
        // Every entry trusted: the left-most.
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "10.0.0.5, 10.0.0.6", client: "10.0.0.5"),
        // Garbage where the client should be: the nearest trusted hop, never the garbage.
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "unknown", client: "10.0.0.2"),
        Resolution(
            trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "198.51.100.1, evil, 10.0.0.3", client: "10.0.0.3"),
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "", client: "10.0.0.2"),
        // Ports and brackets are understood; the address is what counts.
        Resolution(
            trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "198.51.100.1:4711", client: "198.51.100.1"),
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: "[2001:DB8::5]:443", client: "2001:db8::5"),
        Resolution(trusted: ["10.0.0.0/8"], peer: "10.0.0.2", forwardedFor: " 2001:db8::6 ", client: "2001:db8::6"),
        // IPv6 proxies, and an IPv4-mapped peer.
        Resolution(trusted: ["2001:db8:1::/48"], peer: "2001:db8:1::1", forwardedFor: "192.0.2.9", client: "192.0.2.9"),
        Resolution(trusted: ["127.0.0.1"], peer: "::ffff:127.0.0.1", forwardedFor: "192.0.2.10", client: "192.0.2.10"),
        // An unknown peer (no socket) stays unknown.
        Resolution(trusted: ["10.0.0.0/8"], peer: "", forwardedFor: "192.0.2.1", client: ""),
    ]

    @Test(arguments: resolutions)
    func clientAddressResolution(_ case: Resolution) throws {
        let proxies = try TrustedProxies(parsing: `case`.trusted)
        #expect(proxies.clientAddress(peer: `case`.peer, forwardedFor: `case`.forwardedFor) == `case`.client)
    }

    @Test func onlyTheSixtyFourRightMostEntriesAreRead() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8"])
        let header = (["198.51.100.1"] + Array(repeating: "10.0.0.9", count: 100)).joined(separator: ",")
        #expect(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: header) == "10.0.0.9")
    }

    @Test func aBadEntryIsRefusedNamingItsIndex() {
        #expect(
            throws: ConfigError(
                field: "trustedProxies[1]",
                "must be an IPv4 or IPv6 address or CIDR range (e.g. 10.0.0.0/8), with no bits set past the prefix")
        ) {
            try TrustedProxies(parsing: ["10.0.0.0/8", "proxy.internal"])
        }
    }
}
