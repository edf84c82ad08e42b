import { CryptoProvider, makeNonce, requireCrypto, SignInNonce, webCrypto } from "./crypto.js";
import { BrokerError, ClientErrorCode, errorFromResponse, isObject } from "./errors.js";
import { browserPasskeys, JSONObject, PasskeyAdapter, publicKeyOf, requirePasskeys } from "./passkeys.js";
import { MemoryStorage, SessionStore } from "./storage.js";
import {
  Passkey,
  ProviderCredential,
  SecondFactor,
  SecondFactorAnswer,
  SignInResult,
  TotpEnrolment,
  User,
} from "./types.js";

/** How a `BrokerAuth` is made. */
export interface BrokerAuthOptions {
  /** The broker's base URL, e.g. `https://auth.example.com` (no trailing slash needed). */
  baseUrl: string;
  /** Where the session is kept between launches; memory (no auto-login) when absent. */
  storage?: SessionStore;
  /** The key the session is stored under (default `broker.session`). */
  storageKey?: string;
  /** The `fetch` to use (default the platform's). */
  fetch?: typeof fetch;
  /** Crypto for nonces (default Web Crypto; React Native passes its own). */
  crypto?: CryptoProvider;
  /** The authenticator for passkeys (default `navigator.credentials` in browsers). */
  passkeys?: PasskeyAdapter;
  /** Refresh the ID token this many seconds before it expires (default 60). */
  refreshMarginSeconds?: number;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

/** Called with the signed-in user, or null once signed out (and once at first, with the restored state). */
export type AuthStateListener = (user: User | null) => void;

/** The session as stored: never logged, never handed out but through `getIdToken()`. */
interface StoredSession {
  idToken: string;
  refreshToken: string;
  /** When the ID token expires (epoch milliseconds). */
  expiresAt: number;
  user: User;
}

/**
 * The app side of the broker for web apps and React Native (contract section 25): sign-in by provider token,
 * password, guest and passkey, second factors, auto-login from the storage the app chooses, one refresh in flight
 * however many calls wait on it, and `onAuthStateChanged`. Every refusal is a `BrokerError` with the contract's
 * code. The client writes no log line, so no token reaches one.
 */
export class BrokerAuth {
  private readonly baseUrl: string;
  private readonly storage: SessionStore;
  private readonly storageKey: string;
  private readonly fetcher: typeof fetch;
  private readonly crypto: CryptoProvider | null;
  private readonly passkeys: PasskeyAdapter | null;
  private readonly refreshMargin: number;
  private readonly now: () => number;
  private session: StoredSession | null = null;
  /** The refresh in flight, and the session it refreshes: a caller of another session starts its own. */
  private refreshing: { session: StoredSession; promise: Promise<StoredSession> } | null = null;
  private readonly listeners = new Set<AuthStateListener>();

  private constructor(options: BrokerAuthOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.storage = options.storage ?? new MemoryStorage();
    this.storageKey = options.storageKey ?? "broker.session";
    const platformFetch = (globalThis as { fetch?: typeof fetch }).fetch;
    const chosen = options.fetch ?? platformFetch;
    if (chosen === undefined) throw new TypeError("No fetch here: pass `fetch` to BrokerAuth.create.");
    // Called as a plain function: a browser's fetch refuses any other `this` than the window ("Illegal invocation").
    this.fetcher = (input, init) => chosen(input, init);
    this.crypto = options.crypto ?? webCrypto();
    this.passkeys = options.passkeys ?? browserPasskeys();
    this.refreshMargin = (options.refreshMarginSeconds ?? 60) * 1000;
    this.now = options.now ?? (() => Date.now());
  }

  /** A client with the session restored from `storage` (auto-login), if one is kept there. */
  static async create(options: BrokerAuthOptions): Promise<BrokerAuth> {
    const auth = new BrokerAuth(options);
    auth.session = parseSession(await auth.storage.get(auth.storageKey));
    return auth;
  }

  // MARK: - State

  /** The signed-in user, or null. */
  get currentUser(): User | null {
    return this.session?.user ?? null;
  }

  /** Calls `listener` now with the current user, then on every sign-in, user change and sign-out; returns the unsubscribe. */
  onAuthStateChanged(listener: AuthStateListener): () => void {
    this.listeners.add(listener);
    listener(this.currentUser);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * The ID token for `Authorization: Bearer` on the app's own back end: the current one, or a new one when it
   * expires within the margin (or `forceRefresh`). Concurrent callers share one refresh. A refresh token the
   * broker no longer accepts signs the user out (`INVALID_REFRESH_TOKEN` is thrown).
   */
  async getIdToken(forceRefresh = false): Promise<string> {
    let session = this.requireSession();
    if (!forceRefresh && session.expiresAt - this.refreshMargin > this.now()) return session.idToken;
    // Another client over the same storage (a second tab) may have refreshed since: its refresh token is the
    // session's live one now, and the one held here was retired (presented again, the broker would end the session).
    session = await this.newerStoredSession(session);
    if (!forceRefresh && session.expiresAt - this.refreshMargin > this.now()) return session.idToken;
    return (await this.refresh()).idToken;
  }

  // MARK: - Signing in

  /** A nonce for a provider SDK that takes one (Apple): pass `hashedNonce` to the SDK and `rawNonce` here after. */
  async createNonce(): Promise<SignInNonce> {
    return makeNonce(requireCrypto(this.crypto));
  }

  /** Signs in with a provider's token (`POST /v1/signin/{provider}`; Apple's ID token goes as `identityToken`). */
  async signInWithProvider(provider: string, credential: ProviderCredential): Promise<SignInResult> {
    return this.signInWith(`/v1/signin/${encodeURIComponent(provider)}`, providerBody(provider, credential));
  }

  /** Creates an email and password account, signed in; a guest signed in now is upgraded in place instead. */
  async signUp(email: string, password: string, displayName?: string): Promise<SignInResult> {
    const body: JSONObject = { email, password };
    if (displayName !== undefined) body.displayName = displayName;
    const guest = this.session?.user.isAnonymous === true;
    return this.signInWith("/v1/signup", body, guest);
  }

  /** Signs in with email and password; an account with a second factor throws `SecondFactorRequiredError`. */
  async signInWithPassword(email: string, password: string): Promise<SignInResult> {
    return this.signInWith("/v1/signin/password", { email, password });
  }

  /** Signs in as a new guest (contract section 13). */
  async signInAnonymously(): Promise<SignInResult> {
    return this.signInWith("/v1/signin/anonymous", {});
  }

  /** Finishes a sign-in held for its second factor (`error.pendingCredential` of `SecondFactorRequiredError`). */
  async completeSecondFactor(pendingCredential: string, answer: SecondFactorAnswer): Promise<SignInResult> {
    return this.signInWith("/v1/signin/mfa", { mfaPendingCredential: pendingCredential, ...answer });
  }

  /** Signs in with a passkey (a discoverable credential: the authenticator names the account). */
  async signInWithPasskey(): Promise<SignInResult> {
    const adapter = requirePasskeys(this.passkeys);
    const options = publicKeyOf(await this.call("POST", "/v1/signin/passkey/options", {}));
    const credential = await adapter.get(options);
    return this.signInWith("/v1/signin/passkey", { credential });
  }

  /** Creates an account whose only way in is a new passkey; a guest signed in now is upgraded in place instead. */
  async signUpWithPasskey(options: { email?: string; displayName?: string; name?: string } = {}): Promise<SignInResult> {
    const adapter = requirePasskeys(this.passkeys);
    const guest = this.session?.user.isAnonymous === true;
    const request: JSONObject = {};
    if (options.email !== undefined) request.email = options.email;
    if (options.displayName !== undefined) request.displayName = options.displayName;
    const publicKey = publicKeyOf(await this.call("POST", "/v1/signup/passkey/options", request, guest));
    const credential = await adapter.create(publicKey);
    const body: JSONObject = { credential };
    if (options.name !== undefined) body.name = options.name;
    return this.signInWith("/v1/signup/passkey", body, guest);
  }

  /** Ends the session at the broker and here; the stored session is removed even when the broker is unreachable. */
  async signOut(): Promise<void> {
    const session = this.session;
    if (session === null) return;
    await this.setSession(null);
    // Signed out here either way; a session the broker could not end expires on its own.
    await this.endQuietly(session.refreshToken);
  }

  // MARK: - The signed-in user

  /** Reads the user again (`GET /v1/me`). */
  async reload(): Promise<User> {
    const user = (await this.authorized("GET", "/v1/me")) as User;
    await this.updateUser(user);
    return user;
  }

  /** Changes the display name and photo (`null` clears one). */
  async updateProfile(change: { displayName?: string | null; photoUrl?: string | null }): Promise<User> {
    const user = (await this.authorized("PATCH", "/v1/me", change as JSONObject)) as User;
    await this.updateUser(user);
    return user;
  }

  /** Sets a new password (a recent sign-in); the session goes on through the tokens answered. */
  async changePassword(newPassword: string): Promise<User> {
    const answer = await this.authorized("POST", "/v1/me/password", { newPassword });
    return (await this.adopt(answer)).result.user;
  }

  /** Links another provider (a recent sign-in, except for a guest, whose link upgrades it in place). */
  async link(provider: string, credential: ProviderCredential): Promise<User> {
    const answer = await this.authorized(
      "POST",
      `/v1/me/identities/${encodeURIComponent(provider)}`,
      providerBody(provider, credential),
    );
    if (isObject(answer) && typeof answer.refreshToken === "string") return (await this.adopt(answer)).result.user;
    await this.updateUser(answer as User);
    return answer as User;
  }

  /** Unlinks a provider (a recent sign-in; never the last way in: `LAST_IDENTITY`). */
  async unlink(provider: string): Promise<User> {
    const user = (await this.authorized("DELETE", `/v1/me/identities/${encodeURIComponent(provider)}`)) as User;
    await this.updateUser(user);
    return user;
  }

  /** Deletes the account (a recent sign-in), then signs out here. */
  async deleteAccount(): Promise<void> {
    await this.authorized("DELETE", "/v1/me");
    await this.setSession(null);
  }

  // MARK: - Second factors

  /** Starts a TOTP enrolment (a recent sign-in). */
  async enrollTotp(): Promise<TotpEnrolment> {
    return (await this.authorized("POST", "/v1/me/mfa/totp", {})) as TotpEnrolment;
  }

  /** Finishes a TOTP enrolment with a code of the app; answers the factor and the recovery codes, shown once. */
  async verifyTotp(
    enrollmentId: string,
    code: string,
    displayName?: string,
  ): Promise<{ factor: SecondFactor; recoveryCodes: string[] }> {
    const body: JSONObject = { enrollmentId, code };
    if (displayName !== undefined) body.displayName = displayName;
    return (await this.authorized("POST", "/v1/me/mfa/totp/verify", body)) as {
      factor: SecondFactor;
      recoveryCodes: string[];
    };
  }

  /** The enrolled factors and how many recovery codes are left. */
  async secondFactors(): Promise<{ factors: SecondFactor[]; recoveryCodesLeft: number }> {
    return (await this.authorized("GET", "/v1/me/mfa")) as { factors: SecondFactor[]; recoveryCodesLeft: number };
  }

  /** Removes a factor (a recent sign-in). */
  async removeSecondFactor(factorId: string): Promise<void> {
    await this.authorized("DELETE", `/v1/me/mfa/${encodeURIComponent(factorId)}`);
  }

  /** A new set of recovery codes (a recent sign-in); the old set dies. */
  async regenerateRecoveryCodes(): Promise<string[]> {
    const answer = (await this.authorized("POST", "/v1/me/mfa/recovery-codes", {})) as { recoveryCodes: string[] };
    return answer.recoveryCodes;
  }

  // MARK: - Passkeys of the signed-in user

  /** Registers a new passkey for the signed-in user (a recent sign-in; a guest's first upgrades it). */
  async registerPasskey(name?: string): Promise<Passkey> {
    const adapter = requirePasskeys(this.passkeys);
    const publicKey = publicKeyOf(await this.authorized("POST", "/v1/me/passkeys/options", {}));
    const credential = await adapter.create(publicKey);
    const body: JSONObject = { credential };
    if (name !== undefined) body.name = name;
    const answer = (await this.authorized("POST", "/v1/me/passkeys", body)) as { passkey: Passkey };
    if (this.session?.user.isAnonymous === true) await this.reload();
    return answer.passkey;
  }

  /** The signed-in user's passkeys. */
  async listPasskeys(): Promise<Passkey[]> {
    return ((await this.authorized("GET", "/v1/me/passkeys")) as { passkeys: Passkey[] }).passkeys;
  }

  /** Renames a passkey (`null` removes the name). */
  async renamePasskey(id: string, name: string | null): Promise<Passkey> {
    const answer = await this.authorized("PATCH", `/v1/me/passkeys/${encodeURIComponent(id)}`, { name });
    return (answer as { passkey: Passkey }).passkey;
  }

  /** Removes a passkey (a recent sign-in; never the last way in). */
  async deletePasskey(id: string): Promise<void> {
    await this.authorized("DELETE", `/v1/me/passkeys/${encodeURIComponent(id)}`);
  }

  // MARK: - Sessions

  /**
   * One refresh at a time: every caller while one is in flight waits on it. Its answer is taken only while the
   * session it refreshed is still this client's: one signed out, deleted or replaced meanwhile is not brought back
   * (the answer's new refresh token is ended at the broker instead).
   */
  private refresh(): Promise<StoredSession> {
    const session = this.requireSession();
    if (this.refreshing !== null && this.refreshing.session === session) return this.refreshing.promise;
    const promise = (async () => {
      let answer: unknown;
      try {
        answer = await this.call("POST", "/v1/token", { refreshToken: session.refreshToken });
      } catch (error) {
        if (error instanceof BrokerError && error.code === "INVALID_REFRESH_TOKEN" && this.session === session) {
          await this.setSession(null);
        }
        throw error;
      }
      if (this.session !== session) {
        if (isObject(answer) && typeof answer.refreshToken === "string") await this.endQuietly(answer.refreshToken);
        return this.requireSession();
      }
      return (await this.adopt(answer)).session;
    })();
    const entry = { session, promise };
    this.refreshing = entry;
    const clear = () => {
      if (this.refreshing === entry) this.refreshing = null;
    };
    promise.then(clear, clear);
    return promise;
  }

  /** The session kept in storage when it is this one, refreshed by another client since; else `session`. */
  private async newerStoredSession(session: StoredSession): Promise<StoredSession> {
    const stored = parseSession(await this.storage.get(this.storageKey));
    if (stored === null || stored.user.uid !== session.user.uid || stored.refreshToken === session.refreshToken) {
      return session;
    }
    if (this.session !== session) return this.requireSession();
    this.session = stored;
    return stored;
  }

  /** Ends `refreshToken`'s session at the broker, whatever the answer. */
  private async endQuietly(refreshToken: string): Promise<void> {
    try {
      await this.call("POST", "/v1/signout", { refreshToken });
    } catch {
      // It expires on its own.
    }
  }

  private requireSession(): StoredSession {
    if (this.session === null) {
      throw new BrokerError(ClientErrorCode.notSignedIn, "No user is signed in.", 0);
    }
    return this.session;
  }

  private async signInWith(path: string, body: JSONObject, asSignedIn = false): Promise<SignInResult> {
    return (await this.adopt(await this.call("POST", path, body, asSignedIn))).result;
  }

  /** Takes a session body as the new session: stored, then announced. */
  private async adopt(answer: unknown): Promise<{ session: StoredSession; result: SignInResult }> {
    if (
      !isObject(answer) ||
      typeof answer.idToken !== "string" ||
      typeof answer.refreshToken !== "string" ||
      !isObject(answer.user)
    ) {
      throw new BrokerError(ClientErrorCode.network, "The broker's answer is not a session body.", 0);
    }
    const expiresIn = typeof answer.expiresIn === "number" ? answer.expiresIn : 3600;
    const session: StoredSession = {
      idToken: answer.idToken,
      refreshToken: answer.refreshToken,
      expiresAt: this.now() + expiresIn * 1000,
      user: answer.user as User,
    };
    await this.setSession(session);
    return {
      session,
      result: {
        user: session.user,
        isNewUser: answer.isNewUser === true,
        customToken: typeof answer.customToken === "string" ? answer.customToken : null,
      },
    };
  }

  private async updateUser(user: User): Promise<void> {
    if (this.session === null || this.session.user.uid !== user.uid) return;
    await this.setSession({ ...this.session, user });
  }

  private async setSession(session: StoredSession | null): Promise<void> {
    this.session = session;
    if (session === null) {
      await this.storage.remove(this.storageKey);
    } else {
      await this.storage.set(this.storageKey, JSON.stringify(session));
    }
    for (const listener of [...this.listeners]) listener(this.currentUser);
  }

  /** A call with the current ID token (refreshed first when it is about to expire). */
  private authorized(method: string, path: string, body?: JSONObject): Promise<unknown> {
    return this.call(method, path, body, true);
  }

  private async call(method: string, path: string, body?: JSONObject, asSignedIn = false): Promise<unknown> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (asSignedIn) headers.Authorization = `Bearer ${await this.getIdToken()}`;
    let response: Response;
    let text: string;
    try {
      response = await this.fetcher(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: "error",
      });
      text = await response.text();
    } catch {
      throw new BrokerError(ClientErrorCode.network, `The broker could not be reached (${method} ${path}).`, 0);
    }
    let json: unknown = null;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    if (!response.ok) throw errorFromResponse(response.status, json, response.headers.get("retry-after"));
    return json;
  }
}

function providerBody(provider: string, credential: ProviderCredential): JSONObject {
  const body: JSONObject = {};
  if (credential.idToken !== undefined) body[provider === "apple" ? "identityToken" : "idToken"] = credential.idToken;
  if (credential.accessToken !== undefined) body.accessToken = credential.accessToken;
  if (credential.rawNonce !== undefined) body.rawNonce = credential.rawNonce;
  if (credential.fullName !== undefined) body.fullName = credential.fullName;
  if (credential.authorizationCode !== undefined) body.authorizationCode = credential.authorizationCode;
  return body;
}

function parseSession(text: string | null): StoredSession | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (
      isObject(value) &&
      typeof value.idToken === "string" &&
      typeof value.refreshToken === "string" &&
      typeof value.expiresAt === "number" &&
      isObject(value.user) &&
      typeof value.user.uid === "string"
    ) {
      return value as unknown as StoredSession;
    }
  } catch {
    // A stored value that is not ours: as if none.
  }
  return null;
}
