import BrokerCore
import BrokerIdentity
import BrokerModel
import Foundation

extension NativeSurface {
    func mountSignIn(_ router: inout Router) {
        router.add("POST", "/v1/signin/{provider}") { [services] request, context in
            let signIn = try await NativeSurface.signInRequest(request, context, services)
            let result = try await services.signIn.signIn(signIn)
            return .json(result.isNewUser ? 201 : 200, result.tokens.body(user: result.account, isNewUser: result.isNewUser))
        }
        // A guest (contract section 13): the body is an empty object, or none.
        router.add("POST", "/v1/signin/anonymous") { [services] request, context in
            try request.allowOnlyQuery([])
            try NativeBody.requireEmpty(request)
            let result = try await services.signIn.signInAsGuest(requestID: context.requestID)
            return .json(201, result.tokens.body(user: result.account, isNewUser: true))
        }
    }

    /// The sign-in request of a native body for the `{provider}` of the path (contract section 2): exactly one
    /// credential, an access token (`accessToken`) or an ID token (the provider's field, `idToken` unless it
    /// says otherwise) with its optional `rawNonce`, and the hints `fullName` and `authorizationCode`.
    static func signInRequest(
        _ request: HTTPRequest, _ context: RequestContext, _ services: NativeSurface.Dependencies
    ) async throws -> SignInRequest {
        let provider = try await services.signIn.provider(ProviderID(context.parameters["provider"] ?? ""))
        let body = try NativeBody(request)
        let idField = provider.idTokenField
        let credential: Credential
        switch (body.has("accessToken"), body.has(idField)) {
        case (true, true): throw APIError.invalidRequest("Send either accessToken or \(idField), not both.")
        case (true, false): credential = .accessToken(try body.credential("accessToken"))
        case (false, true):
            credential = .idToken(try body.credential(idField), rawNonce: try body.optionalString("rawNonce"))
        case (false, false): throw APIError.invalidRequest("\(idField) is required.")
        }
        let hints = CredentialHints(
            fullName: try fullName(body.members["fullName"]), authorizationCode: try body.optionalString("authorizationCode"))
        var signIn = SignInRequest(
            provider: provider.id, credential: credential, hints: hints, requestID: context.requestID)
        signIn.resolved = provider
        return signIn
    }

    /// "Given Middle Family" from a `fullName` object, nil when absent or empty.
    static func fullName(_ value: JSONValue?) throws -> String? {
        guard let value, value != .null else { return nil }
        guard let parts = value.objectValue else { throw APIError.invalidRequest("fullName must be an object.") }
        let body = NativeBody(members: parts)
        let names = try ["givenName", "middleName", "familyName"].compactMap { key -> String? in
            let part = try body.optionalString(key)?.trimmingCharacters(in: .whitespacesAndNewlines)
            return part?.isEmpty == false ? part : nil
        }
        return names.isEmpty ? nil : names.joined(separator: " ")
    }
}
