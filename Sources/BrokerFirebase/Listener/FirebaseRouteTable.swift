import BrokerCore
public import BrokerHTTP
import BrokerModel
/// The routes of the Firebase surface's parts, collected before they are put on the router, so that each part
/// adds its own from its own file and every one gets the same checks (``FirebaseListenerChecks``).
public struct FirebaseRouteTable: Sendable {
    struct Entry: Sendable {
        var method: String
        var pattern: String
        var access: FirebaseAccess
        var handler: FirebaseHandler
    }

    struct Verb: Sendable {
        var method: String
        var verb: String
        var access: FirebaseAccess
        var handler: FirebaseHandler
    }

    private(set) var entries: [Entry] = []
    private(set) var verbs: [Verb] = []

    /// Creates an empty table.
    public init() {}

    /// Adds a route: `pattern` is a full path (``FirebaseEndpoints/identityToolkitPath`` + `/accounts:signUp`);
    /// a `{project}` segment must equal the broker's `projectId` (else 403 `PERMISSION_DENIED`, nothing done),
    /// and is in `call.context.parameters["project"]`.
    public mutating func add(
        _ method: String, _ pattern: String, access: FirebaseAccess, _ handler: @escaping FirebaseHandler
    ) {
        entries.append(Entry(method: method, pattern: pattern, access: access, handler: handler))
    }

    /// Adds `…/v1/projects/{project}:verb` (e.g. `createSessionCookie`), whose last segment the router cannot
    /// split: one route per method takes `projects/{…}` and picks the verb after the colon.
    public mutating func addProjectVerb(
        _ method: String, _ verb: String, access: FirebaseAccess, _ handler: @escaping FirebaseHandler
    ) {
        verbs.append(Verb(method: method, verb: verb, access: access, handler: handler))
    }

    /// Adds a client route and its legacy v3 name (`/www…/identitytoolkit/v3/relyingparty/<legacy>`) to one handler.
    public mutating func addClient(_ v1Name: String, legacy: String?, _ handler: @escaping FirebaseHandler) {
        add("POST", FirebaseEndpoints.identityToolkitPath + "/" + v1Name, access: .client, handler)
        if let legacy { add("POST", FirebaseEndpoints.legacyRelyingPartyPath + "/" + legacy, access: .client, handler) }
    }

    /// Puts every route on `router`, wrapped in the listener's checks (``FirebaseSurface/mount(on:)`` does; tests
    /// may mount a table of their own).
    public func register(on router: inout Router, surface: FirebaseSurface) {
        let checks = FirebaseListenerChecks(surface: surface)
        for entry in entries {
            router.add(entry.method, entry.pattern) { request, context in
                let call = try checks.admit(request, context, access: entry.access)
                do {
                    return try await entry.handler(call)
                } catch let held as SecondFactorRequired {
                    // A first factor of an account with a second factor: 200 with the pending credential.
                    return FirebaseSurface.pendingAnswer(held.pending)
                }
            }
        }
        let methods = Set(verbs.map(\.method)).sorted()
        for method in methods {
            let table = verbs.filter { $0.method == method }
            router.add(method, FirebaseEndpoints.identityToolkitPath + "/projects/{projectVerb}") { request, context in
                let target = context.parameters["projectVerb"] ?? ""
                guard let colon = target.lastIndex(of: ":"),
                    let verb = table.first(where: { $0.verb == target[target.index(after: colon)...] })
                else {
                    try checks.checkHost(request)
                    try checks.origins.check(request)
                    throw FirebaseError.notFound
                }
                var context = context
                context.parameters["project"] = String(target[..<colon])
                let call = try checks.admit(request, context, access: verb.access)
                return try await verb.handler(call)
            }
        }
    }
}
