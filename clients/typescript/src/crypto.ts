import { BrokerError, ClientErrorCode } from "./errors.js";

/**
 * The two primitives the client needs (a nonce for Apple's sign-in, PKCE when the redirect flow lands): browsers
 * and Node have Web Crypto; React Native apps pass these from the crypto module they already use. Nothing here is
 * hand-written cryptography.
 */
export interface CryptoProvider {
  /** SHA-256 of `data`. */
  sha256(data: Uint8Array): Promise<Uint8Array>;
  /** `count` bytes from a cryptographically secure generator. */
  randomBytes(count: number): Uint8Array;
}

/** Web Crypto (`globalThis.crypto`), when the platform has it. */
export function webCrypto(): CryptoProvider | null {
  const crypto = (globalThis as { crypto?: Crypto }).crypto;
  if (crypto === undefined || crypto.subtle === undefined || typeof crypto.getRandomValues !== "function") return null;
  return {
    async sha256(data) {
      return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
    },
    randomBytes(count) {
      return crypto.getRandomValues(new Uint8Array(count));
    },
  };
}

export function requireCrypto(provider: CryptoProvider | null): CryptoProvider {
  if (provider === null) {
    throw new BrokerError(
      ClientErrorCode.cryptoUnavailable,
      "No Web Crypto here: pass `crypto: {sha256, randomBytes}` to BrokerAuth.create.",
      0,
    );
  }
  return provider;
}

/** Unpadded base64url of `bytes` (RFC 4648 section 5). */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of unpadded (or padded) base64url `text`. */
export function fromBase64url(text: string): Uint8Array {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Lowercase hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += byte.toString(16).padStart(2, "0");
  return text;
}

/** A sign-in nonce: `rawNonce` goes to the broker, `hashedNonce` (lowercase hex SHA-256) to the provider's SDK. */
export interface SignInNonce {
  rawNonce: string;
  hashedNonce: string;
}

/** A new nonce of 32 random bytes (contract section 2: the token's `nonce` is the hex SHA-256 of `rawNonce`). */
export async function makeNonce(crypto: CryptoProvider): Promise<SignInNonce> {
  const rawNonce = base64url(crypto.randomBytes(32));
  const hashedNonce = hex(await crypto.sha256(new TextEncoder().encode(rawNonce)));
  return { rawNonce, hashedNonce };
}
