// The platform authenticator's requests and answers (iCloud Keychain passkeys, Face ID or Touch ID), iOS 15+ and
// macOS 12+. The app needs the `webcredentials:{rpId}` associated domain; the platform then sends the origin
// `https://{rpId}`, which the broker's `passkeys.origins` must list.
#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
    public import AuthenticationServices

    extension PasskeyRegistrationOptions {
        /// The platform's request for a new passkey with these options: the relying party, the challenge, the
        /// user's handle, name and display name, user verification required. Give it to an
        /// `ASAuthorizationController`; its answer is an `ASAuthorizationPlatformPublicKeyCredentialRegistration`.
        /// The platform lists the passkey under `user.name`. Passkeys of ``excludedCredentials`` are not passed
        /// (the platform replaces its own passkey of the same user handle); the broker refuses one registered
        /// already with ``BrokerAuthError/passkeyExists``.
        public func platformRequest() -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
            let request = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingParty.id)
                .createCredentialRegistrationRequest(challenge: challenge, name: user.name, userID: user.id)
            request.displayName = user.displayName.isEmpty ? nil : user.displayName
            request.userVerificationPreference = .required
            return request
        }
    }

    extension PasskeySignInOptions {
        /// The platform's request for a sign-in with these options: the relying party, the challenge, user
        /// verification required, any of the user's passkeys. Give it to an `ASAuthorizationController`; its
        /// answer is an `ASAuthorizationPlatformPublicKeyCredentialAssertion`.
        public func platformRequest() -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
            let request = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingPartyID)
                .createCredentialAssertionRequest(challenge: challenge)
            request.userVerificationPreference = .required
            request.allowedCredentials = allowedCredentials.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0.id)
            }
            return request
        }
    }

    extension PasskeyRegistration {
        /// The platform's new passkey, for ``BrokerAuth/registerPasskey(credential:name:)`` or
        /// ``BrokerAuth/signUp(withPasskey:name:)``; nil when it carries no attestation object.
        public init?(_ registration: ASAuthorizationPlatformPublicKeyCredentialRegistration) {
            guard let attestationObject = registration.rawAttestationObject else { return nil }
            self.init(
                credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
                attestationObject: attestationObject, transports: ["hybrid", "internal"],
                authenticatorAttachment: "platform")
        }
    }

    extension PasskeyAssertion {
        /// The platform's answer to a sign-in, for ``BrokerAuth/signIn(withPasskey:)``; nil when it lacks the
        /// authenticator data or the signature.
        public init?(_ assertion: ASAuthorizationPlatformPublicKeyCredentialAssertion) {
            guard let authenticatorData = assertion.rawAuthenticatorData, let signature = assertion.signature else {
                return nil
            }
            self.init(
                credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
                authenticatorData: authenticatorData, signature: signature, userHandle: assertion.userID,
                authenticatorAttachment: "platform")
        }
    }
#endif
