import { base64url, fromBase64url } from "./crypto.js";
import { BrokerError, ClientErrorCode, isObject } from "./errors.js";

/** WebAuthn's JSON (contract section 15): what the broker sends (`{"publicKey": ...}`) and takes back. */
export type JSONObject = Record<string, unknown>;

/**
 * Runs the platform's authenticator. In browsers `browserPasskeys()` calls `navigator.credentials`; on React
 * Native the app passes an adapter over its passkey module. Each method takes the options JSON the broker sent
 * (`PublicKeyCredentialCreationOptionsJSON` / `RequestOptionsJSON`) and answers the credential as
 * `RegistrationResponseJSON` / `AuthenticationResponseJSON`.
 */
export interface PasskeyAdapter {
  create(options: JSONObject): Promise<JSONObject>;
  get(options: JSONObject): Promise<JSONObject>;
}

/** `navigator.credentials` as a passkey adapter, or null where the browser has no WebAuthn. */
export function browserPasskeys(): PasskeyAdapter | null {
  const navigatorLike = (globalThis as { navigator?: Navigator }).navigator;
  if (navigatorLike === undefined || navigatorLike.credentials === undefined) return null;
  if (typeof (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential === "undefined") return null;
  const credentials = navigatorLike.credentials;
  return {
    async create(options) {
      const made = await ceremony(() => credentials.create({ publicKey: creationOptions(options) }));
      return registrationJSON(made);
    },
    async get(options) {
      const found = await ceremony(() => credentials.get({ publicKey: requestOptions(options) }));
      return authenticationJSON(found);
    },
  };
}

/**
 * The authenticator's answer, or a `BrokerError`: `PASSKEY_CANCELLED` when the person cancelled or the browser
 * refused (`NotAllowedError`, `AbortError`, no credential), `PASSKEYS_UNAVAILABLE` for anything else it threw.
 */
async function ceremony(run: () => Promise<Credential | null>): Promise<PublicKeyCredential> {
  let credential: Credential | null;
  try {
    credential = await run();
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === "NotAllowedError" || name === "AbortError") {
      throw new BrokerError(ClientErrorCode.passkeyCancelled, "The passkey ceremony was cancelled.", 0);
    }
    throw new BrokerError(ClientErrorCode.passkeysUnavailable, `The authenticator failed (${String(name)}).`, 0);
  }
  if (credential === null) {
    throw new BrokerError(ClientErrorCode.passkeyCancelled, "The authenticator gave no credential.", 0);
  }
  return credential as PublicKeyCredential;
}

export function requirePasskeys(adapter: PasskeyAdapter | null): PasskeyAdapter {
  if (adapter === null) {
    throw new BrokerError(
      ClientErrorCode.passkeysUnavailable,
      "No WebAuthn here: pass `passkeys: <adapter>` to BrokerAuth.create.",
      0,
    );
  }
  return adapter;
}

/** The `publicKey` member of the broker's options answer. */
export function publicKeyOf(answer: unknown): JSONObject {
  if (!isObject(answer) || !isObject(answer.publicKey)) {
    throw new BrokerError(ClientErrorCode.network, "The broker's passkey options have no publicKey.", 0);
  }
  return answer.publicKey;
}

function creationOptions(json: JSONObject): PublicKeyCredentialCreationOptions {
  const user = json.user as JSONObject;
  return {
    ...(json as unknown as PublicKeyCredentialCreationOptions),
    challenge: fromBase64url(String(json.challenge)),
    user: { ...(user as unknown as PublicKeyCredentialUserEntity), id: fromBase64url(String(user.id)) },
    excludeCredentials: descriptors(json.excludeCredentials),
  };
}

function requestOptions(json: JSONObject): PublicKeyCredentialRequestOptions {
  return {
    ...(json as unknown as PublicKeyCredentialRequestOptions),
    challenge: fromBase64url(String(json.challenge)),
    allowCredentials: descriptors(json.allowCredentials),
  };
}

function descriptors(value: unknown): PublicKeyCredentialDescriptor[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((entry) => ({
    ...(entry as unknown as PublicKeyCredentialDescriptor),
    id: fromBase64url(String(entry.id)),
  }));
}

function bytes(buffer: ArrayBuffer | null): string | null {
  return buffer === null ? null : base64url(new Uint8Array(buffer));
}

/** The members every WebAuthn response JSON has, around its `response`. */
function credentialJSON(credential: PublicKeyCredential, response: JSONObject): JSONObject {
  return {
    id: credential.id,
    rawId: bytes(credential.rawId),
    type: credential.type,
    authenticatorAttachment: (credential as { authenticatorAttachment?: string | null }).authenticatorAttachment ?? null,
    clientExtensionResults: credential.getClientExtensionResults(),
    response,
  };
}

function registrationJSON(credential: PublicKeyCredential): JSONObject {
  const response = credential.response as AuthenticatorAttestationResponse;
  const withTransports = response as unknown as { getTransports?: () => string[] };
  const transports = typeof withTransports.getTransports === "function" ? withTransports.getTransports() : [];
  return credentialJSON(credential, {
    clientDataJSON: bytes(response.clientDataJSON),
    attestationObject: bytes(response.attestationObject),
    transports,
  });
}

function authenticationJSON(credential: PublicKeyCredential): JSONObject {
  const response = credential.response as AuthenticatorAssertionResponse;
  return credentialJSON(credential, {
    clientDataJSON: bytes(response.clientDataJSON),
    authenticatorData: bytes(response.authenticatorData),
    signature: bytes(response.signature),
    userHandle: bytes(response.userHandle),
  });
}
