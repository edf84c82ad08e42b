/** A factor the account has, as a held sign-in lists it. */
export interface SecondFactorHint {
  factorId: string;
  type: string;
  displayName: string | null;
}

/**
 * A refusal the broker answered: `code` is the contract's code (section 6: `INVALID_TOKEN`,
 * `RECENT_SIGN_IN_REQUIRED`, `TOO_MANY_ATTEMPTS`, ...), compared by value, never by message. `retryAfter` is the
 * `Retry-After` header in seconds, when the broker sent one. A failure to reach the broker at all is
 * `NETWORK_ERROR` (status 0). The message never holds a token: the client does not put one there.
 */
export class BrokerError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryAfter: number | null;

  constructor(code: string, message: string, status: number, retryAfter: number | null = null) {
    super(message);
    this.name = "BrokerError";
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/**
 * `MFA_REQUIRED` (contract section 14): the first factor was right, and the account asks for its second. Finish
 * with `BrokerAuth.completeSecondFactor(error.pendingCredential, ...)` within five minutes.
 */
export class SecondFactorRequiredError extends BrokerError {
  readonly pendingCredential: string;
  readonly factors: SecondFactorHint[];

  constructor(message: string, status: number, pendingCredential: string, factors: SecondFactorHint[]) {
    super("MFA_REQUIRED", message, status);
    this.name = "SecondFactorRequiredError";
    this.pendingCredential = pendingCredential;
    this.factors = factors;
  }
}

/** Codes the client itself gives, beside the broker's. */
export const ClientErrorCode = {
  /** The broker could not be reached (or its answer was not the contract's JSON). */
  network: "NETWORK_ERROR",
  /** A call that needs a signed-in user was made with none. */
  notSignedIn: "NOT_SIGNED_IN",
  /** No passkey adapter: not a browser with WebAuthn, and none was given (or the authenticator failed). */
  passkeysUnavailable: "PASSKEYS_UNAVAILABLE",
  /** The person cancelled the passkey ceremony, or the browser refused it (`NotAllowedError`). */
  passkeyCancelled: "PASSKEY_CANCELLED",
  /** No crypto was given and Web Crypto is not there (React Native: pass `{sha256, randomBytes}`). */
  cryptoUnavailable: "CRYPTO_UNAVAILABLE",
} as const;

/** The error of a non-2xx answer: `{"error": {"code", "message", ...}}`, or `NETWORK_ERROR` for anything else. */
export function errorFromResponse(status: number, body: unknown, retryAfterHeader: string | null): BrokerError {
  const error = isObject(body) && isObject(body.error) ? body.error : null;
  const retryAfter = parseRetryAfter(retryAfterHeader);
  if (error === null || typeof error.code !== "string") {
    return new BrokerError(ClientErrorCode.network, `The broker answered ${status} without an error body.`, status, retryAfter);
  }
  const message = typeof error.message === "string" ? error.message : error.code;
  if (error.code === "MFA_REQUIRED" && typeof error.mfaPendingCredential === "string") {
    const factors = Array.isArray(error.factors) ? error.factors.filter(isObject).map(toHint) : [];
    return new SecondFactorRequiredError(message, status, error.mfaPendingCredential, factors);
  }
  return new BrokerError(error.code, message, status, retryAfter);
}

function toHint(value: Record<string, unknown>): SecondFactorHint {
  return {
    factorId: typeof value.factorId === "string" ? value.factorId : "",
    type: typeof value.type === "string" ? value.type : "",
    displayName: typeof value.displayName === "string" ? value.displayName : null,
  };
}

function parseRetryAfter(header: string | null): number | null {
  if (header === null || !/^[0-9]{1,9}$/.test(header.trim())) return null;
  return Number(header.trim());
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
