import BrokerCore
import BrokerHTTP
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import Foundation

/// The Admin SDK's account calls, `…/v1/projects/{project}/accounts[:verb]` (contract section 11), as
/// firebase-admin sends them: each decodes Firebase's request, calls ``AdminService``'s Firebase operations, and
/// answers Firebase's response fields. All are `.admin` (`Authorization: Bearer owner`).
extension FirebaseSurface {
    /// `…/v1/projects/{project}/accounts`.
    static let adminAccountsPath = FirebaseEndpoints.identityToolkitPath + "/projects/{project}/accounts"

    /// Adds the account routes to `routes`.
    func mountAdminRoutes(on routes: inout FirebaseRouteTable) {
        routes.add("POST", Self.adminAccountsPath, access: .admin) { call in try await adminCreate(call) }
        routes.add("POST", Self.adminAccountsPath + ":lookup", access: .admin) { call in
            try await adminLookUp(call)
        }
        routes.add("POST", Self.adminAccountsPath + ":update", access: .admin) { call in
            try await adminUpdate(call)
        }
        routes.add("POST", Self.adminAccountsPath + ":delete", access: .admin) { call in
            try await adminDelete(call)
        }
        routes.add("GET", Self.adminAccountsPath + ":batchGet", access: .admin) { call in
            try await adminPage(call)
        }
        routes.add("POST", Self.adminAccountsPath + ":batchCreate", access: .admin) { call in
            try await adminImport(call)
        }
        routes.add("POST", Self.adminAccountsPath + ":batchDelete", access: .admin) { call in
            try await adminBatchDelete(call)
        }
        routes.add("POST", Self.adminAccountsPath + ":query", access: .admin) { call in
            try await adminQuery(call)
        }
    }

    /// A client-path call (`…/v1/accounts:lookup`, `:update`, `:delete`) made as an administrator
    /// (`Bearer owner`, no `idToken`), as tools written against Firebase's Auth emulator send it: answered as the
    /// project path's; nil for any other call (the client route answers it). The client routes call this first.
    func adminOnClientPath(_ verb: String, _ call: FirebaseCall) async throws -> HTTPResponse? {
        guard call.isAdmin, !call.body.has("idToken") else { return nil }
        switch verb {
        case "lookup": return try await adminLookUp(call)
        case "update": return try await adminUpdate(call)
        case "delete": return try await adminDelete(call)
        default: return nil
        }
    }

    /// An account as the admin calls answer it (``FirebaseUserInfo/View/admin``).
    func adminJSON(_ account: Account) -> JSONValue { FirebaseUserInfo(account, providers: services.providers).json(.admin) }

    /// `accounts` as the admin look-ups and pages answer them: ``adminJSON(_:)`` with each one's enrolled second
    /// factors as `mfaInfo` (the Admin SDK's `multiFactor.enrolledFactors`), read for the whole page at once.
    func adminUsersJSON(_ accounts: [Account]) async throws -> [JSONValue] {
        let factors = try await mfaInfo(of: accounts.map(\.id))
        return accounts.map { account in
            let info = adminJSON(account)
            guard let enrolled = factors[account.id], !enrolled.isEmpty, case .object(var members) = info else {
                return info
            }
            members["mfaInfo"] = .array(enrolled)
            return .object(members)
        }
    }

    // MARK: - Create, update, delete

    private func adminCreate(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let new = NewAccount(
            uid: try body.optionalString("localId"), email: try body.optionalString("email"),
            password: try body.optionalString("password"), phoneNumber: try body.optionalString("phoneNumber"),
            displayName: try body.optionalString("displayName"), photoURL: try body.optionalString("photoUrl"),
            emailVerified: try body.flag("emailVerified"), disabled: try body.flag("disabled"))
        let account = try await services.admin.create(new, requestID: call.requestID)
        var fields: [String: JSONValue] = [
            "kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(account.id.rawValue),
        ]
        if let email = account.email { fields["email"] = .string(email) }
        if let name = account.displayName { fields["displayName"] = .string(name) }
        return .json(200, .object(fields))
    }

    private func adminUpdate(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let uid = AccountID(try body.string("localId", missing: "MISSING_LOCAL_ID"))
        var change = AccountPatch(
            emailVerified: try body.optionalBool("emailVerified"), password: try body.optionalString("password"),
            disabled: try body.optionalBool("disableUser"), customAttributes: try body.optionalString("customAttributes"),
            validSince: try body.optionalInt("validSince", range: 0...253_402_300_799))
        if let email = try body.optionalString("email") { change.email = .some(email) }
        if let name = try body.optionalString("displayName") { change.displayName = .some(name) }
        if let photo = try body.optionalString("photoUrl") { change.photoURL = .some(photo) }
        if let phone = try body.optionalString("phoneNumber") { change.phoneNumber = .some(phone) }
        for attribute in try body.strings("deleteAttribute") {
            switch attribute {
            case "DISPLAY_NAME": change.displayName = .some(nil)
            case "PHOTO_URL": change.photoURL = .some(nil)
            case "USER_ATTRIBUTE_NAME_UNSPECIFIED": continue
            default: throw FirebaseError.invalidArgument("deleteAttribute \(NativeBody.printable(attribute)) is not supported")
            }
        }
        // Firebase's admin deleteProvider removes any provider, the last one included (LAST_IDENTITY is the native
        // API's rule).
        change.keepsAWayIn = false
        for provider in try body.strings("deleteProvider") {
            switch provider {
            case "phone": change.phoneNumber = .some(nil)
            case FirebaseUserInfo.passwordProviderID: change.removesPassword = true
            default:
                // Firebase ignores a provider the user has not linked; so does an unknown one here.
                if let id = adminBrokerProvider(named: provider) { change.unlinking.append(id) }
            }
        }
        let account = try await services.admin.update(uid, change, requestID: call.requestID)
        guard case .object(var fields) = adminJSON(account) else { return .json(200, adminJSON(account)) }
        fields["kind"] = "identitytoolkit#SetAccountInfoResponse"
        for field in ["passwordHash", "salt", "createdAt", "lastLoginAt", "lastRefreshAt", "validSince", "disabled"] {
            fields[field] = nil
        }
        return .json(200, .object(fields))
    }

    private func adminDelete(_ call: FirebaseCall) async throws -> HTTPResponse {
        let uid = AccountID(try call.body.string("localId", missing: "MISSING_LOCAL_ID"))
        try await services.admin.delete(uid, requestID: call.requestID)
        return .json(200, ["kind": "identitytoolkit#DeleteAccountResponse"])
    }

    private func adminBatchDelete(_ call: FirebaseCall) async throws -> HTTPResponse {
        let uids = try call.body.strings("localIds").map(AccountID.init(rawValue:))
        let failures = try await services.admin.delete(
            uids, force: try call.body.flag("force"), requestID: call.requestID)
        guard !failures.isEmpty else { return .json(200, [:]) }
        return .json(200, ["errors": .array(failures.map { failure in
            [
                "index": .int(Int64(failure.index)), "localId": .string(failure.uid.rawValue),
                "message": "NOT_DISABLED : Disable the account before batch deletion.",
            ]
        })])
    }

    // MARK: - Look-ups and pages

    /// The default page of `accounts:batchGet`.
    static let defaultPageSize = 20

    /// The page token of the accounts after `uid`: its base64url, no padding.
    static func pageToken(after uid: AccountID) -> String {
        Base64.encode(Array(uid.rawValue.utf8)).replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The uid a page token names, or `INVALID_PAGE_SELECTION` for a token the broker did not give.
    static func uid(fromPageToken token: String) throws -> AccountID {
        guard token.utf8.count <= 200, let bytes = FirebaseBase64.decode(token),
            let text = String(validating: bytes, as: UTF8.self), (try? AdminService.checkedUID(text)) != nil
        else { throw AccountAdminError(.invalidPageSelection) }
        return AccountID(text)
    }


    private func adminLookUp(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        var identities: [(provider: ProviderID, subject: String)] = []
        for entry in try body.objects("federatedUserId") {
            guard let name = try entry.optionalString("providerId"), let rawId = try entry.optionalString("rawId") else {
                continue  // Firebase skips an entry without both
            }
            if let provider = adminBrokerProvider(named: name) { identities.append((provider, rawId)) }
        }
        let accounts = try await services.admin.lookUp(
            uids: try body.strings("localId").map(AccountID.init(rawValue:)), emails: try body.strings("email"),
            phoneNumbers: try body.strings("phoneNumber"), identities: identities)
        var fields: [String: JSONValue] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        // No `users` at all when none is found, as Firebase answers (the Node SDK relies on it).
        if !accounts.isEmpty { fields["users"] = .array(try await adminUsersJSON(accounts)) }
        return .json(200, .object(fields))
    }

    private func adminPage(_ call: FirebaseCall) async throws -> HTTPResponse {
        let query = FirebaseBody(members: call.request.query.mapValues(JSONValue.string))
        let maxResults = try query.optionalInt("maxResults", range: 1...Int64(AdminService.maximumLimit))
        let token = try query.optionalString("nextPageToken").flatMap { $0.isEmpty ? nil : $0 }
        let (accounts, next) = try await services.admin.page(
            after: try token.map(Self.uid(fromPageToken:)), limit: maxResults.map(Int.init) ?? Self.defaultPageSize)
        var fields: [String: JSONValue] = [
            "kind": "identitytoolkit#DownloadAccountResponse", "users": .array(try await adminUsersJSON(accounts)),
        ]
        if let next { fields["nextPageToken"] = .string(Self.pageToken(after: next)) }
        return .json(200, .object(fields))
    }

    private func adminQuery(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let returnUserInfo = try body.optionalBool("returnUserInfo") ?? true
        let sortBy = try body.optionalString("sortBy") ?? "USER_ID"
        let order = try body.optionalString("order") ?? "ASC"
        guard ["USER_ID", "SORT_BY_FIELD_UNSPECIFIED"].contains(sortBy), ["ASC", "ORDER_UNSPECIFIED"].contains(order) else {
            throw FirebaseError.invalidArgument("only sortBy USER_ID in order ASC is supported")
        }
        let expressions = try body.objects("expression")
        let limit = Int(try body.optionalInt("limit", range: 1...Int64(AdminService.maximumQueryLimit)) ?? 500)
        let offset = Int(try body.optionalInt("offset", range: 0...Int64(AdminService.maximumQueryOffset)) ?? 0)
        let count: Int
        let users: [Account]
        if expressions.isEmpty {
            (count, users) = try await services.admin.query(offset: offset, limit: limit, returnUsers: returnUserInfo)
        } else {
            // Each expression names one user by email, uid or phone number; the matches, each once, by uid.
            var uids: [AccountID] = []
            var emails: [String] = []
            var phones: [String] = []
            for expression in expressions {
                if let uid = try expression.optionalString("userId") { uids.append(AccountID(uid)) }
                if let email = try expression.optionalString("email") { emails.append(email) }
                if let phone = try expression.optionalString("phoneNumber") { phones.append(phone) }
            }
            let found = try await services.admin.lookUp(uids: uids, emails: emails, phoneNumbers: phones)
                .sorted { Array($0.id.rawValue.utf8).lexicographicallyPrecedes(Array($1.id.rawValue.utf8)) }
            count = found.count
            users = Array(found.dropFirst(offset).prefix(limit))
        }
        var fields: [String: JSONValue] = ["recordsCount": .string(String(count))]
        if returnUserInfo { fields["userInfo"] = .array(try await adminUsersJSON(users)) }
        return .json(200, .object(fields))
    }

    // MARK: - Import

    private func adminImport(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let entries = try body.objects("users")
        guard !entries.isEmpty else { throw FirebaseError("MISSING_USER_ACCOUNT") }
        let hash = try adminHashOptions(body)
        var failures: [AdminService.ImportFailure] = []
        var records: [(index: Int, record: FirebaseUserRecord)] = []
        for (index, entry) in entries.enumerated() {
            var members = entry.members
            // The REST name of the last sign-in; the export file's is `lastSignedInAt`.
            if let last = members.removeValue(forKey: "lastLoginAt"), members["lastSignedInAt"] == nil {
                members["lastSignedInAt"] = last
            }
            do {
                records.append((index, try FirebaseUserRecord(json: .object(members))))
            } catch let error as FirebaseUserError {
                failures.append(AdminService.ImportFailure(index: index, message: "INVALID_ARGUMENT : \(error)"))
            }
        }
        if !records.isEmpty {
            let options = try FirebaseImportOptions(hash: hash, providers: adminProviderMap)
            failures += try await services.admin.importFirebaseAccounts(
                records, options: options, requestID: call.requestID)
        }
        failures.sort { $0.index < $1.index }
        return .json(200, [
            "kind": "identitytoolkit#UploadAccountResponse",
            "error": .array(failures.map { ["index": .int(Int64($0.index)), "message": .string($0.message)] }),
        ])
    }

    /// The request's `hashAlgorithm` (any of Firebase's 13) and its parameters as the import's hash options. An
    /// unknown algorithm, or parameters that cannot be used, refuse the whole request (`INVALID_HASH_ALGORITHM`).
    /// Without `passwordHashOrder` (or with `UNSPECIFIED_ORDER`) the algorithm's own order applies
    /// (``FirebaseHashOptions/Algorithm/defaultInputOrder``), as Firebase's.
    private func adminHashOptions(_ body: FirebaseBody) throws -> FirebaseHashOptions? {
        guard let algorithm = try body.optionalString("hashAlgorithm") else { return nil }
        func number(_ field: String) throws -> String? {
            try body.optionalInt(field, range: 0...Int64(Int32.max)).map { String($0) }
        }
        let order: String? = switch try body.optionalString("passwordHashOrder") {
        case "PASSWORD_AND_SALT": "PASSWORD_FIRST"
        case "SALT_AND_PASSWORD": "SALT_FIRST"
        case nil, "UNSPECIFIED_ORDER": nil
        default: throw FirebaseError("INVALID_HASH_ALGORITHM", "passwordHashOrder is not supported")
        }
        do {
            return try FirebaseHashOptions(
                hashAlgo: algorithm, hashKey: try body.optionalString("signerKey"),
                saltSeparator: try body.optionalString("saltSeparator"), rounds: try number("rounds"),
                memCost: try number("memoryCost") ?? number("cpuMemCost"), parallelization: try number("parallelization"),
                blockSize: try number("blockSize"), dkLen: try number("dkLen"), hashInputOrder: order)
        } catch let error as ImportedHashError {
            throw FirebaseError("INVALID_HASH_ALGORITHM", "\(error.code.rawValue)")
        }
    }

    // MARK: - Provider names

    /// Firebase provider id -> the broker's provider, for every enabled provider
    /// (``ProviderRegistry/firebaseNames``).
    var adminProviderMap: [String: ProviderID] { services.providers.firebaseNames }

    /// The broker's provider Firebase calls `name`, if one is enabled; else, for `oidc.<id>` naming no provider of
    /// the config file, `<id>` (a provider managed at run time, whose identities are linked by ID tokens).
    func adminBrokerProvider(named name: String) -> ProviderID? {
        if let id = adminProviderMap[name] { return id }
        guard name.hasPrefix("oidc."), case let id = String(name.dropFirst(5)), ProviderRegistry.isValidID(id),
            services.providers.provider(ProviderID(id)) == nil
        else { return nil }
        return ProviderID(id)
    }
}
