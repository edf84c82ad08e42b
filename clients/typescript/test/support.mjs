// What the tests share: the compiled package, the live broker and the stubs' control API (token minting), and a
// fetch that counts calls by path. BROKER_URL, STUBS_URL and BROKER_CLIENT_MODULE (a file URL of dist/index.js)
// come from the Swift suite that starts them (Tests/ContractTests/TypeScriptClientTests.swift).
import { createHmac, randomUUID } from "node:crypto";

function required(name) {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`${name} is not set: run through TypeScriptClientTests`);
  return value;
}

export const brokerURL = required("BROKER_URL");
export const stubsURL = required("STUBS_URL");
export const client = await import(required("BROKER_CLIENT_MODULE"));

/** POSTs `body` to the stubs' control API and answers its JSON. */
export async function stub(path, body) {
  const response = await fetch(stubsURL + path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`stub ${path}: ${response.status}`);
  return response.json();
}

/** An ID token of the stub `provider` with `claims` over its defaults. */
export async function idToken(provider, claims) {
  return (await stub(`/${provider}/token`, { claims })).token;
}

/** A unique name for this run (accounts of one test never meet another's). */
export function unique(prefix) {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * A fetch that records each call's method and path (and its JSON body in `bodies`), then calls the platform's;
 * `delayRefreshMs` holds each `POST /v1/token` answer back that long, for a refresh to be in flight.
 */
export function countingFetch({ delayRefreshMs = 0 } = {}) {
  const calls = [];
  const bodies = [];
  const counted = async (url, init) => {
    const call = `${init?.method ?? "GET"} ${new URL(url).pathname}`;
    calls.push(call);
    bodies.push({ call, body: init?.body === undefined ? null : JSON.parse(init.body) });
    const response = await fetch(url, init);
    if (call === "POST /v1/token" && delayRefreshMs > 0) await new Promise((done) => setTimeout(done, delayRefreshMs));
    return response;
  };
  return { fetch: counted, calls, bodies };
}

/** A client of the live broker over `storage` (memory when absent), with `options` over the defaults. */
export async function makeAuth(options = {}) {
  return client.BrokerAuth.create({ baseUrl: brokerURL, ...options });
}

/** The RFC 6238 code of base32 `secret` at `unixSeconds` (HMAC-SHA1, 6 digits, 30-second steps). */
export function totp(secret, unixSeconds = Date.now() / 1000) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const character of secret.replace(/=+$/, "").toUpperCase()) {
    bits += alphabet.indexOf(character).toString(2).padStart(5, "0");
  }
  const key = Buffer.alloc(Math.floor(bits.length / 8));
  for (let index = 0; index < key.length; index++) key[index] = parseInt(bits.slice(index * 8, index * 8 + 8), 2);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)));
  const digest = createHmac("sha1", key).update(counter).digest();
  const offset = digest[digest.length - 1] & 0x0f;
  const value = (digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, "0");
}
