"""The TypeScript client (clients/typescript, compiled) in a real, headless Chromium with its virtual authenticator,
through selenium and Debian's /usr/bin/chromedriver, as passkey_browser.py drives the broker's own ceremonies.

Started by TypeScriptClientTests.swift with a live broker configured for rpId `localhost` and the page's origin.
Serves, on http://localhost:PAGE_PORT (a secure context), a blank page and the compiled package under /client/
(CLIENT_DIST), and from the page, through the package alone (`browserPasskeys()`, `browserStorage(localStorage)`):
signs up with a password, registers a passkey, signs out, signs in with the passkey, reloads the page and finds the
user signed in again from localStorage (auto-login), then signs out and finds the storage empty. Reads BROKER_URL,
PAGE_PORT and CLIENT_DIST; prints one line per scenario and exits non-zero on the first failure. Every wait is
bounded."""
import json
import os
import pathlib
import sys

from chromium_page import BLANK_PAGE, add_authenticator, chromium, serve

broker = os.environ["BROKER_URL"].rstrip("/")
port = int(os.environ["PAGE_PORT"])
dist = pathlib.Path(os.environ["CLIENT_DIST"]).resolve()


def files(path):
    """The compiled package under /client/, a blank page anywhere else."""
    if not path.startswith("/client/"):
        return BLANK_PAGE, "text/html; charset=utf-8"
    file = (dist / path[len("/client/"):]).resolve()
    if dist not in file.parents or not file.is_file():
        return None
    return file.read_bytes(), "text/javascript; charset=utf-8"


server = serve(port, files)
driver = chromium()


def step(name):
    print("typescript-browser: " + name, flush=True)


def fail(message):
    print("typescript-browser: FAILED: " + message, flush=True)
    sys.exit(1)


# Runs in the page: the package imported as an app imports it, one client over localStorage.
PRELUDE = """
const broker = arguments[0];
const done = arguments[arguments.length - 1];
const run = (body) => (async () => {
  const client = await import("/client/index.js");
  const auth = await client.BrokerAuth.create({baseUrl: broker, storage: client.browserStorage(localStorage)});
  return await body(client, auth);
})().then(done, (error) => done({error: String(error), code: error && error.code}));
"""


def page(script, *arguments):
    answer = driver.execute_async_script(PRELUDE + script, broker, *arguments)
    if answer is not None and "error" in answer:
        fail("%s" % json.dumps(answer))
    return answer


try:
    driver.get("http://localhost:%d/" % port)
    if not driver.execute_script("return window.isSecureContext"):
        fail("the page is not a secure context")
    add_authenticator(driver)
    step("virtual authenticator added")

    registered = page("""
    run(async (client, auth) => {
      if (client.browserPasskeys() === null) return {error: "browserPasskeys() found no WebAuthn"};
      const signedUp = await auth.signUp("ts-browser@example.com", "correct horse");
      const passkey = await auth.registerPasskey("Chromium");
      await auth.signOut();
      return {uid: signedUp.user.uid, passkey: passkey.id, stored: localStorage.getItem("broker.session")};
    });
    """)
    if registered["stored"] is not None:
        fail("the session is still stored after signOut")
    step("signed up, registered passkey %s, signed out" % registered["passkey"])

    signed_in = page("""
    run(async (client, auth) => {
      const result = await auth.signInWithPasskey();
      return {uid: result.user.uid, provider: result.user.identities.map((i) => i.provider)};
    });
    """)
    if signed_in["uid"] != registered["uid"]:
        fail("the passkey signed in to another account: %s" % json.dumps(signed_in))
    step("signed in with the passkey")

    driver.refresh()
    restored = page("""
    run(async (client, auth) => {
      const token = await auth.getIdToken();
      const me = await fetch(broker + "/v1/me", {headers: {Authorization: "Bearer " + token}});
      return {uid: auth.currentUser && auth.currentUser.uid, status: me.status};
    });
    """)
    if restored["uid"] != registered["uid"] or restored["status"] != 200:
        fail("the reloaded page did not restore the session: %s" % json.dumps(restored))
    step("the reloaded page is signed in from localStorage")

    ended = page("""
    run(async (client, auth) => {
      await auth.signOut();
      return {user: auth.currentUser, stored: localStorage.getItem("broker.session")};
    });
    """)
    if ended["user"] is not None or ended["stored"] is not None:
        fail("signOut left a user or a stored session: %s" % json.dumps(ended))
    step("signed out")
    print("typescript-browser: all scenarios passed uid=" + registered["uid"], flush=True)
finally:
    driver.quit()
    server.shutdown()
