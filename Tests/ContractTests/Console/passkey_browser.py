"""Passkeys in a real, headless Chromium with its virtual authenticator (the DevTools WebAuthn domain, through
selenium and Debian's /usr/bin/chromedriver).

Started by PasskeyBrowserTests.swift with a live broker configured for rpId `localhost` and the page's origin. Serves
a blank page on http://localhost:PAGE_PORT (a secure context), and from it: signs up with a password, registers a
passkey in a CTAP2 authenticator with resident keys and user verification, signs in with it twice (the counter
advancing) and replays the first assertion, which must be refused. Reads BROKER_URL and PAGE_PORT from the
environment; prints one line per scenario and exits non-zero on the first failure. Every wait is bounded."""
import json
import os
import sys

from chromium_page import add_authenticator, chromium, serve

broker = os.environ["BROKER_URL"].rstrip("/")
port = int(os.environ["PAGE_PORT"])
server = serve(port)
driver = chromium()


def step(name):
    print("passkey-browser: " + name, flush=True)


def fail(message):
    print("passkey-browser: FAILED: " + message, flush=True)
    sys.exit(1)


# Runs in the page: fetch helpers and the two ceremonies, each answering {status, body} or {error}.
HELPERS = """
const broker = arguments[0];
const done = arguments[arguments.length - 1];
async function call(path, body, token) {
  const headers = {"Content-Type": "application/json"};
  if (token) headers["Authorization"] = "Bearer " + token;
  const response = await fetch(broker + path, {method: "POST", headers, body: JSON.stringify(body)});
  return {status: response.status, body: await response.json()};
}
"""

try:
    driver.get("http://localhost:%d/" % port)
    if not driver.execute_script("return window.isSecureContext"):
        fail("the page is not a secure context")
    add_authenticator(driver)
    step("virtual authenticator added")

    registered = driver.execute_async_script(HELPERS + """
    (async () => {
      const session = await call("/v1/signup", {email: "browser@example.com", password: "correct horse"});
      if (session.status !== 201) return {error: "sign-up " + session.status};
      const options = await call("/v1/me/passkeys/options", {}, session.body.idToken);
      if (options.status !== 200) return {error: "options " + options.status};
      const credential = await navigator.credentials.create(
        {publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.body.publicKey)});
      const json = credential.toJSON();
      const stored = await call("/v1/me/passkeys", {credential: json, name: "Chromium"}, session.body.idToken);
      return {status: stored.status, body: stored.body, uid: session.body.user.uid};
    })().then(done, (error) => done({error: String(error)}));
    """, broker)
    if "error" in registered:
        fail("registration: " + registered["error"])
    if registered["status"] != 201:
        fail("registration answered %s: %s" % (registered["status"], json.dumps(registered["body"])))
    step("registered passkey " + registered["body"]["passkey"]["id"])

    SIGN_IN = HELPERS + """
    (async () => {
      const options = await call("/v1/signin/passkey/options", {});
      if (options.status !== 200) return {error: "options " + options.status};
      const credential = await navigator.credentials.get(
        {publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body.publicKey)});
      const json = credential.toJSON();
      const answer = await call("/v1/signin/passkey", {credential: json});
      return {status: answer.status, body: answer.body, credential: json};
    })().then(done, (error) => done({error: String(error)}));
    """
    first = driver.execute_async_script(SIGN_IN, broker)
    if "error" in first or first["status"] != 200:
        fail("first sign-in: %s" % json.dumps(first))
    if first["body"]["user"]["uid"] != registered["uid"]:
        fail("the sign-in reached another account")
    step("signed in with the passkey")
    second = driver.execute_async_script(SIGN_IN, broker)
    if "error" in second or second["status"] != 200:
        fail("second sign-in: %s" % json.dumps(second))
    step("signed in again")

    replay = driver.execute_async_script(HELPERS + """
    call("/v1/signin/passkey", {credential: arguments[1]}).then(done, (error) => done({error: String(error)}));
    """, broker, first["credential"])
    if replay.get("status") != 401 or replay["body"]["error"]["code"] != "INVALID_PASSKEY":
        fail("the replayed assertion was answered %s" % json.dumps(replay))
    step("a replayed assertion is refused")
    print("passkey-browser: all scenarios passed uid=" + registered["uid"], flush=True)
finally:
    driver.quit()
    server.shutdown()
