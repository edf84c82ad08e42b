public import BrokerCore
public import BrokerIdentity
public import BrokerModel
import Foundation

/// What Firebase adds to the broker (``BrokerModule``): with a service account configured, custom tokens in every
/// session body, the revocation of a uid's Firebase sessions whenever the broker ends its own (delivered by
/// ``FirebaseRevokeHandler``); always, the session format of the Firebase-compatible listener. The executable makes
/// one from the parsed config (``FirebaseSettings``) and hands it to the composition.
public struct FirebaseModule: BrokerModule {
    /// The config sections this module reads.
    public static let configSections: [any ConfigSection.Type] = [FirebaseSettings.self]

    /// The service account (`firebase.serviceAccountFile`), when configured: custom tokens are minted with it and the
    /// listener checks custom tokens against its key.
    public let serviceAccount: FirebaseServiceAccount?
    /// Firebase Auth's admin API (revoking a uid's Firebase sessions), when a service account is configured.
    public let admin: FirebaseAdminClient?
    private let minter: FirebaseCustomTokenMinter?

    /// Loads the service account `config` names, if any (a file that cannot be read or parsed throws).
    public init(config: BrokerConfig, httpClient: any HTTPClient, clock: any Clock = SystemClock()) throws {
        let settings = config.firebase
        serviceAccount = try settings.serviceAccountFile.map {
            try FirebaseServiceAccount(contentsOf: $0, allowInsecureURLs: config.allowInsecureProviderURLs)
        }
        minter = serviceAccount.map {
            FirebaseCustomTokenMinter(account: $0, clock: clock, ttl: settings.customTokenTTL)
        }
        admin = serviceAccount.map {
            FirebaseAdminClient(
                account: $0, projectID: config.projectID, apiBaseURL: settings.apiBaseURL, client: httpClient,
                clock: clock)
        }
    }

    /// The minter, with a service account.
    public var customTokens: (any CustomTokenMinting)? { minter }

    /// The Firebase revocation, with a service account.
    public var sessionRevoking: (any SessionRevoking)? { admin == nil ? nil : FirebaseRevocation() }

    /// `firebase.revoke`, with a service account.
    public var outboxHandlers: [(kind: OutboxKind, handler: any OutboxHandling)] {
        admin.map { [(.firebaseRevoke, FirebaseRevokeHandler(client: $0))] } ?? []
    }

    /// The listener's sessions.
    public func sessionFormats(providers: ProviderRegistry) -> [any SessionFormat] {
        [FirebaseSessionFormat(providers: providers)]
    }
}

extension BrokerServices {
    /// The Firebase module this composition was given, if any.
    public var firebase: FirebaseModule? { module(FirebaseModule.self) }
    /// Firebase Auth's admin API, when a service account is configured.
    public var firebaseAdmin: FirebaseAdminClient? { firebase?.admin }
    /// The Firebase service account, when configured.
    public var firebaseServiceAccount: FirebaseServiceAccount? { firebase?.serviceAccount }
}
