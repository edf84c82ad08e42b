export { BrokerAuth } from "./client.js";
export type { AuthStateListener, BrokerAuthOptions } from "./client.js";
export { base64url, fromBase64url, makeNonce, webCrypto } from "./crypto.js";
export type { CryptoProvider, SignInNonce } from "./crypto.js";
export { BrokerError, ClientErrorCode, SecondFactorRequiredError } from "./errors.js";
export type { SecondFactorHint } from "./errors.js";
export { browserPasskeys } from "./passkeys.js";
export type { JSONObject, PasskeyAdapter } from "./passkeys.js";
export { asyncStorage, browserStorage, MemoryStorage } from "./storage.js";
export type { AsyncStorageLike, SessionStore, WebStorageLike } from "./storage.js";
export type {
  Identity,
  Passkey,
  ProviderCredential,
  SecondFactor,
  SecondFactorAnswer,
  SignInResult,
  TotpEnrolment,
  User,
} from "./types.js";
