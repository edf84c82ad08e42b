import BrokerCore
public import BrokerIdentity
public import BrokerModel
/// What `broker admin import firebase` is told beyond the file: the hash flags, `--map-provider` and
/// `--link-uid-prefix` (contract section 8). Built once; a flag that cannot be used is an error before any
/// user is read (exit status 2).
public struct FirebaseImportOptions: Sendable, Equatable {
    /// The password-hash flags, nil without `--hash-algo` (then only `$argon2id$` hashes can be imported).
    public var hash: FirebaseHashOptions?
    /// Firebase provider id -> the broker's provider: the configured providers Firebase knows by a name of its
    /// own (``wellKnownProviders(_:)``), and each `--map-provider FIREBASE_ID=PROVIDER`.
    public var providerMap: [String: ProviderID]
    /// Each `--link-uid-prefix PREFIX=PROVIDER`, in the order given: a uid `PREFIX<id>` gets the identity
    /// (PROVIDER, `<id>`).
    public var uidPrefixLinks: [UIDPrefixLink]

    /// One `--link-uid-prefix`.
    public struct UIDPrefixLink: Sendable, Equatable {
        /// The uid prefix, such as `line:` for uids `line:<id>`.
        public var prefix: String
        /// The provider the rest of the uid is a subject of.
        public var provider: ProviderID

        /// A link of uids `prefix<id>` to (provider, `<id>`).
        public init(prefix: String, provider: ProviderID) {
            self.prefix = prefix
            self.provider = provider
        }
    }

    /// The Firebase provider ids the import maps without being told: those of `registry`'s providers that
    /// Firebase names itself (``IdentityProvider/domainID``, a domain), not the `oidc.<id>` or `<id>` it
    /// gives the others (``ProviderRegistry/firebaseID(of:kind:)-swift.type.method``), which only `--map-provider`
    /// maps.
    public static func wellKnownProviders(_ registry: ProviderRegistry) -> [String: ProviderID] {
        var map: [String: ProviderID] = [:]
        for id in registry.enabled {
            guard let provider = registry.provider(id) else { continue }
            if let firebaseID = provider.domainID { map[firebaseID] = id }
        }
        return map
    }

    /// Options from parsed flags: `providers` maps Firebase provider ids without being told (usually
    /// ``wellKnownProviders(_:)``); `mapProvider` and `linkUIDPrefix` hold each repeated flag's `A=B` text.
    /// Throws ``ImportedHashError`` (`parameterOutOfRange`) for a pair that is not `A=B`, a provider name
    /// that is not 1-32 of `a-z 0-9 - _`, `password` as a Firebase id, or the same Firebase id or prefix twice.
    public init(
        hash: FirebaseHashOptions?, providers: [String: ProviderID] = [:], mapProvider: [String] = [],
        linkUIDPrefix: [String] = []
    ) throws {
        self.hash = hash
        var map = providers
        var mapped: Set<String> = []
        for text in mapProvider {
            let (firebaseID, provider) = try Self.pair(text, flag: "--map-provider")
            guard firebaseID != "password", firebaseID.utf8.count <= 128, mapped.insert(firebaseID).inserted else {
                throw ImportedHashError(.parameterOutOfRange, "--map-provider: bad or repeated Firebase provider id")
            }
            map[firebaseID] = provider
        }
        providerMap = map
        var links: [UIDPrefixLink] = []
        for text in linkUIDPrefix {
            let (prefix, provider) = try Self.pair(text, flag: "--link-uid-prefix")
            guard prefix.utf8.count <= 64, !links.contains(where: { $0.prefix == prefix }) else {
                throw ImportedHashError(.parameterOutOfRange, "--link-uid-prefix: bad or repeated prefix")
            }
            links.append(UIDPrefixLink(prefix: prefix, provider: provider))
        }
        uidPrefixLinks = links
    }

    private static func pair(_ text: String, flag: String) throws -> (String, ProviderID) {
        guard let equals = text.lastIndex(of: "=") else {
            throw ImportedHashError(.parameterOutOfRange, "\(flag) takes NAME=PROVIDER")
        }
        let name = String(text[..<equals])
        let provider = String(text[text.index(after: equals)...])
        guard !name.isEmpty, (1...32).contains(provider.utf8.count),
            provider.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F })
        else { throw ImportedHashError(.parameterOutOfRange, "\(flag) takes NAME=PROVIDER, PROVIDER of a-z, 0-9, - and _") }
        return (name, ProviderID(provider))
    }
}
