// The TypeScript client against a live broker and the stub providers (contract section 25): every flow the broker
// has today, with the state after each, through the compiled package exactly as an app imports it.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { brokerURL, client, countingFetch, idToken, makeAuth, stub, totp, unique } from "./support.mjs";

const { BrokerError, MemoryStorage, SecondFactorRequiredError, browserStorage, asyncStorage } = client;

/** Resolves to the BrokerError `promise` rejects with (fails when it resolves, or rejects with anything else). */
async function refusal(promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BrokerError, `not a BrokerError: ${error}`);
    return error;
  }
  assert.fail("expected a refusal");
}

test("a provider sign-in stores the session, announces it, and a new client restores it (auto-login)", async () => {
  const storage = new MemoryStorage();
  const auth = await makeAuth({ storage });
  const seen = [];
  const unsubscribe = auth.onAuthStateChanged((user) => seen.push(user?.uid ?? null));
  const subject = unique("g");
  const token = await idToken("google", { sub: subject, email: `${subject}@example.com`, email_verified: true });
  const result = await auth.signInWithProvider("google", { idToken: token });
  assert.equal(result.isNewUser, true);
  assert.equal(result.user.email, `${subject}@example.com`);
  assert.deepEqual(result.user.identities.map((identity) => identity.provider), ["google"]);
  assert.equal(auth.currentUser.uid, result.user.uid);
  assert.deepEqual(seen, [null, result.user.uid]);
  unsubscribe();

  // A new client over the same storage: signed in at once, and its ID token opens /v1/me.
  const restarted = await makeAuth({ storage });
  assert.equal(restarted.currentUser.uid, result.user.uid);
  const me = await fetch(`${brokerURL}/v1/me`, { headers: { Authorization: `Bearer ${await restarted.getIdToken()}` } });
  assert.equal(me.status, 200);
  assert.equal((await me.json()).uid, result.user.uid);
  assert.equal((await restarted.reload()).uid, result.user.uid);

  // The same identity again is a returning sign-in.
  const again = await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: subject }) });
  assert.equal(again.isNewUser, false);
  assert.equal(again.user.uid, result.user.uid);
});

test("twenty concurrent calls that need a fresh ID token share one refresh", async () => {
  let clock = Date.now();
  const counting = countingFetch();
  const auth = await makeAuth({ fetch: counting.fetch, now: () => clock });
  await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("g") }) });
  const first = await auth.getIdToken();
  clock += 3600 * 1000; // the ID token is past its hour
  const tokens = await Promise.all(Array.from({ length: 20 }, () => auth.getIdToken()));
  assert.equal(counting.calls.filter((call) => call === "POST /v1/token").length, 1);
  assert.equal(new Set(tokens).size, 1);
  assert.notEqual(tokens[0], first);
  // The rotated session goes on: a forced refresh later works, and the broker saw no reused refresh token.
  const later = await auth.getIdToken(true);
  assert.notEqual(later, tokens[0]);
  assert.equal(counting.calls.filter((call) => call === "POST /v1/token").length, 2);
  assert.ok(auth.currentUser !== null);
});

test("a refresh in flight does not bring back a session signed out meanwhile; its answer is ended", async () => {
  const storage = new MemoryStorage();
  const counting = countingFetch({ delayRefreshMs: 300 });
  const auth = await makeAuth({ storage, fetch: counting.fetch });
  await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("g") }) });
  const refreshing = auth.getIdToken(true);
  await new Promise((done) => setTimeout(done, 50)); // the refresh is at the broker
  await auth.signOut();
  const error = await refusal(refreshing);
  assert.equal(error.code, "NOT_SIGNED_IN");
  assert.equal(auth.currentUser, null);
  assert.equal(await storage.get("broker.session"), null);
  // The refresh's own new token was ended too: two sign-outs, the second with the token the refresh answered.
  const signOuts = counting.bodies.filter((entry) => entry.call === "POST /v1/signout");
  assert.equal(signOuts.length, 2);
  const ended = await fetch(`${brokerURL}/v1/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refreshToken: signOuts[1].body.refreshToken }),
  });
  assert.equal(ended.status, 401);
});

test("a refresh in flight for one user never answers for the user signed in after", async () => {
  const counting = countingFetch({ delayRefreshMs: 300 });
  const auth = await makeAuth({ fetch: counting.fetch });
  await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("first") }) });
  const refreshing = auth.getIdToken(true);
  await new Promise((done) => setTimeout(done, 50));
  const second = await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("second") }) });
  const forced = await auth.getIdToken(true); // a refresh of its own, not the first user's
  await refreshing.catch(() => undefined);
  assert.equal(auth.currentUser.uid, second.user.uid);
  const me = await fetch(`${brokerURL}/v1/me`, { headers: { Authorization: `Bearer ${forced}` } });
  assert.equal((await me.json()).uid, second.user.uid);
  assert.equal(counting.calls.filter((call) => call === "POST /v1/token").length, 2);
});

test("two clients over one storage (two tabs): the second refreshes with the token the first stored", async () => {
  const storage = new MemoryStorage();
  const first = await makeAuth({ storage });
  const signedIn = await first.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("g") }) });
  const counting = countingFetch();
  const second = await makeAuth({ storage, fetch: counting.fetch });
  assert.equal(second.currentUser.uid, signedIn.user.uid);
  await first.getIdToken(true); // rotates the refresh token and stores the new one
  const rotated = JSON.parse(await storage.get("broker.session")).refreshToken;
  await second.getIdToken(true);
  const sent = counting.bodies.find((entry) => entry.call === "POST /v1/token");
  assert.equal(sent.body.refreshToken, rotated); // not the retired one it read at start
  assert.equal((await second.reload()).uid, signedIn.user.uid);
  assert.equal((await first.reload()).uid, signedIn.user.uid);
});

test("a refresh token the broker no longer accepts signs the user out here", async () => {
  const storage = new MemoryStorage();
  const auth = await makeAuth({ storage });
  await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("g") }) });
  const stored = JSON.parse(await storage.get("broker.session"));
  // The session ends elsewhere (another tab signed out).
  const ended = await fetch(`${brokerURL}/v1/signout`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refreshToken: stored.refreshToken }),
  });
  assert.equal(ended.status, 204);
  const seen = [];
  auth.onAuthStateChanged((user) => seen.push(user?.uid ?? null));
  const error = await refusal(auth.getIdToken(true));
  assert.equal(error.code, "INVALID_REFRESH_TOKEN");
  assert.equal(error.status, 401);
  assert.equal(auth.currentUser, null);
  assert.equal(await storage.get("broker.session"), null);
  assert.deepEqual(seen, [stored.user.uid, null]);
  assert.equal((await refusal(auth.getIdToken())).code, "NOT_SIGNED_IN");
});

test("email and password: sign-up, a wrong password refused by code, sign-in, password change, sign-out", async () => {
  const auth = await makeAuth();
  const email = `${unique("pw")}@example.com`;
  const created = await auth.signUp(email, "secret-pass-1", "Pat");
  assert.equal(created.isNewUser, true);
  assert.equal(created.user.displayName, "Pat");
  await auth.signOut();
  assert.equal(auth.currentUser, null);

  const wrong = await refusal(auth.signInWithPassword(email, "not-the-password"));
  assert.equal(wrong.code, "INVALID_LOGIN_CREDENTIALS");
  assert.equal(wrong.status, 400);
  assert.ok(!wrong.message.includes("not-the-password"));
  assert.equal(auth.currentUser, null);

  const signedIn = await auth.signInWithPassword(email, "secret-pass-1");
  assert.equal(signedIn.user.uid, created.user.uid);
  const weak = await refusal(auth.changePassword("123"));
  assert.equal(weak.code, "WEAK_PASSWORD");
  await auth.changePassword("secret-pass-2");
  assert.equal((await auth.reload()).uid, created.user.uid); // the session goes on through the new tokens
  await auth.signOut();
  assert.equal((await refusal(auth.signInWithPassword(email, "secret-pass-1"))).code, "INVALID_LOGIN_CREDENTIALS");
  assert.equal((await auth.signInWithPassword(email, "secret-pass-2")).user.uid, created.user.uid);
});

test("a guest is upgraded in place by a sign-up and by a link", async () => {
  const auth = await makeAuth();
  const guest = await auth.signInAnonymously();
  assert.equal(guest.user.isAnonymous, true);
  const upgraded = await auth.signUp(`${unique("guest")}@example.com`, "secret-pass-1");
  assert.equal(upgraded.user.uid, guest.user.uid);
  assert.equal(upgraded.user.isAnonymous, false);
  assert.equal(auth.currentUser.isAnonymous, false);

  const other = await makeAuth();
  const second = await other.signInAnonymously();
  const linked = await other.link("google", { idToken: await idToken("google", { sub: unique("g") }) });
  assert.equal(linked.uid, second.user.uid);
  assert.equal(linked.isAnonymous, false);
  assert.equal(other.currentUser.isAnonymous, false);
  assert.deepEqual(other.currentUser.identities.map((identity) => identity.provider), ["google"]);
});

test("link and unlink another provider; a token of no provider is refused by code", async () => {
  const auth = await makeAuth();
  await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("g") }) });
  const kakao = await stub("/kakao/users", { id: Math.floor(Math.random() * 1e9) + 4_200_000_000 });
  const linked = await auth.link("kakao", { accessToken: kakao.accessToken });
  assert.deepEqual(linked.identities.map((identity) => identity.provider).sort(), ["google", "kakao"]);
  assert.deepEqual(auth.currentUser.identities.length, 2);
  const unlinked = await auth.unlink("kakao");
  assert.deepEqual(unlinked.identities.map((identity) => identity.provider), ["google"]);
  assert.equal((await refusal(auth.unlink("google"))).code, "LAST_IDENTITY");

  const forged = (await stub("/google/token", { claims: { sub: unique("g") }, forge: "signature" })).token;
  const refused = await refusal((await makeAuth()).signInWithProvider("google", { idToken: forged }));
  assert.equal(refused.code, "INVALID_TOKEN");
  assert.equal(refused.status, 401);
  assert.ok(!refused.message.includes(forged));
});

test("Apple with a nonce: the client's nonce is the hex SHA-256 the token must carry", async () => {
  const auth = await makeAuth();
  const { rawNonce, hashedNonce } = await auth.createNonce();
  assert.equal(hashedNonce, createHash("sha256").update(rawNonce).digest("hex"));
  assert.match(rawNonce, /^[A-Za-z0-9_-]{43}$/);
  const token = await idToken("apple", { sub: unique("apple"), nonce: hashedNonce });
  const result = await auth.signInWithProvider("apple", { idToken: token, rawNonce });
  assert.deepEqual(result.user.identities.map((identity) => identity.provider), ["apple"]);
  const other = await auth.createNonce();
  const mismatch = await idToken("apple", { sub: unique("apple"), nonce: hashedNonce });
  assert.equal((await refusal(auth.signInWithProvider("apple", { idToken: mismatch, rawNonce: other.rawNonce }))).code,
    "NONCE_MISMATCH");
});

test("second factors: enrol TOTP, a held sign-in finished with a code or a recovery code", async () => {
  const auth = await makeAuth();
  const email = `${unique("mfa")}@example.com`;
  await auth.signUp(email, "secret-pass-1");
  const enrolment = await auth.enrollTotp();
  assert.match(enrolment.otpauthUri, /^otpauth:\/\/totp\//);
  const now = Date.now() / 1000;
  const { factor, recoveryCodes } = await auth.verifyTotp(enrolment.enrollmentId, totp(enrolment.secret, now), "Phone");
  assert.equal(factor.displayName, "Phone");
  assert.equal(recoveryCodes.length, 10);
  assert.deepEqual((await auth.secondFactors()).recoveryCodesLeft, 10);
  await auth.signOut();

  const held = await refusal(auth.signInWithPassword(email, "secret-pass-1"));
  assert.ok(held instanceof SecondFactorRequiredError);
  assert.equal(held.code, "MFA_REQUIRED");
  assert.deepEqual(held.factors.map((hint) => hint.factorId), [factor.factorId]);
  assert.equal(auth.currentUser, null);
  const wrong = await refusal(auth.completeSecondFactor(held.pendingCredential, { factorId: factor.factorId, code: "000000" }));
  assert.equal(wrong.code, "INVALID_MFA_CODE");
  // The next step's code (the enrolment used this step's; one step either side is accepted).
  const done = await auth.completeSecondFactor(held.pendingCredential, {
    factorId: factor.factorId,
    code: totp(enrolment.secret, now + 30),
  });
  assert.equal(done.user.email, email);
  await auth.signOut();

  const again = await refusal(auth.signInWithPassword(email, "secret-pass-1"));
  const recovered = await auth.completeSecondFactor(again.pendingCredential, { recoveryCode: recoveryCodes[0] });
  assert.equal(recovered.user.email, email);
  assert.equal((await auth.secondFactors()).recoveryCodesLeft, 9);
});

test("the storage adapters: Web Storage and AsyncStorage keep the session under the chosen key", async () => {
  const values = new Map();
  const webStorage = {
    getItem: (key) => (values.has(key) ? values.get(key) : null),
    setItem: (key, value) => values.set(key, value),
    removeItem: (key) => values.delete(key),
  };
  const auth = await makeAuth({ storage: browserStorage(webStorage), storageKey: "app.auth" });
  const result = await auth.signInAnonymously();
  assert.deepEqual([...values.keys()], ["app.auth"]);
  const asyncValues = new Map(values);
  const restored = await makeAuth({
    storage: asyncStorage({
      getItem: async (key) => (asyncValues.has(key) ? asyncValues.get(key) : null),
      setItem: async (key, value) => void asyncValues.set(key, value),
      removeItem: async (key) => void asyncValues.delete(key),
    }),
    storageKey: "app.auth",
  });
  assert.equal(restored.currentUser.uid, result.user.uid);
  await restored.signOut();
  assert.equal(asyncValues.has("app.auth"), false);
  // Something else stored under the key is no session: signed out, not a crash.
  values.set("app.auth", "{not json");
  assert.equal((await makeAuth({ storage: browserStorage(webStorage), storageKey: "app.auth" })).currentUser, null);
});

test("refusals without the broker: unreachable, no passkey adapter, no signed-in user", async () => {
  const offline = await client.BrokerAuth.create({ baseUrl: "http://127.0.0.1:9" });
  const network = await refusal(offline.signInAnonymously());
  assert.equal(network.code, "NETWORK_ERROR");
  assert.equal(network.status, 0);
  const auth = await makeAuth();
  assert.equal((await refusal(auth.signInWithPasskey())).code, "PASSKEYS_UNAVAILABLE");
  assert.equal((await refusal(auth.reload())).code, "NOT_SIGNED_IN");
});

test("a passkey adapter's credential goes to the broker as WebAuthn JSON; a bad one is refused by code", async () => {
  const handed = [];
  const adapter = {
    async create(options) {
      handed.push(["create", options]);
      return { id: "AAAA", rawId: "AAAA", type: "public-key", response: {} };
    },
    async get(options) {
      handed.push(["get", options]);
      return { id: "AAAA", rawId: "AAAA", type: "public-key", response: {} };
    },
  };
  const auth = await makeAuth({ passkeys: adapter });
  const refused = await refusal(auth.signInWithPasskey());
  assert.equal(refused.code, "INVALID_PASSKEY");
  assert.equal(refused.status, 401);
  assert.equal(handed.length, 1);
  assert.equal(handed[0][0], "get");
  assert.equal(typeof handed[0][1].challenge, "string");
  assert.equal(auth.currentUser, null);
});

test("a cancelled or empty browser ceremony is a BrokerError, not a DOMException or a TypeError", async () => {
  // The browser's WebAuthn objects as Node lacks them: a person who cancels, an authenticator that gives nothing.
  const saved = { navigator: globalThis.navigator, PublicKeyCredential: globalThis.PublicKeyCredential };
  Object.defineProperty(globalThis, "PublicKeyCredential", { value: class {}, configurable: true, writable: true });
  Object.defineProperty(globalThis, "navigator", {
    value: {
      credentials: {
        get: async () => {
          throw Object.assign(new Error("The operation either timed out or was not allowed."), { name: "NotAllowedError" });
        },
        create: async () => null,
      },
    },
    configurable: true,
    writable: true,
  });
  try {
    assert.notEqual(client.browserPasskeys(), null);
    const auth = await makeAuth();
    const cancelled = await refusal(auth.signInWithPasskey());
    assert.equal(cancelled.code, "PASSKEY_CANCELLED");
    const empty = await refusal(auth.signUpWithPasskey({ email: `${unique("pk")}@example.com` }));
    assert.equal(empty.code, "PASSKEY_CANCELLED");
    assert.equal(auth.currentUser, null);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
    }
  }
});

test("no token reaches the console, whatever the flow", async () => {
  const logged = [];
  const originals = {};
  for (const name of ["log", "info", "warn", "error", "debug"]) {
    originals[name] = console[name];
    console[name] = (...parts) => logged.push(parts.join(" "));
  }
  try {
    const storage = new MemoryStorage();
    const auth = await makeAuth({ storage });
    await auth.signInWithProvider("google", { idToken: await idToken("google", { sub: unique("g") }) });
    await auth.getIdToken(true);
    await refusal(auth.signInWithPassword("nobody@example.com", "wrong-password"));
    await auth.signOut();
  } finally {
    for (const [name, original] of Object.entries(originals)) console[name] = original;
  }
  assert.deepEqual(logged, []);
});
