"""The admin console in a real, headless Firefox (Debian's firefox-esr, driven over Marionette by marionette-driver).

Started by ConsoleFirefoxTests.swift with a live broker already seeded; the same inputs as console_browser.py:
CONSOLE_URL, CONSOLE_ADMIN_TOKEN, CONSOLE_EMAIL, CONSOLE_XSS_UID, and CONSOLE_PROFILE (an empty folder for the
throwaway profile). Starts `firefox-esr --headless --marionette` itself (no geckodriver, no network beyond
loopback), prints one line per scenario and exits non-zero on the first failure. Every wait is bounded."""
import os
import socket
import subprocess
import sys

from marionette_driver import Wait, errors
from marionette_driver.by import By
from marionette_driver.keys import Keys
from marionette_driver.marionette import Alert, Marionette

base = os.environ["CONSOLE_URL"].rstrip("/")
admin_token = os.environ["CONSOLE_ADMIN_TOKEN"]
email = os.environ["CONSOLE_EMAIL"]
xss_uid = os.environ["CONSOLE_XSS_UID"]
profile = os.environ["CONSOLE_PROFILE"]

# A free loopback port for Marionette, and the prefs of a quiet throwaway profile.
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
prefs = {
    "marionette.port": port,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "extensions.update.enabled": False,
    "dom.security.https_first": False,
    # A name that is not loopback to the page, though it connects to 127.0.0.1 (the HTTPS check).
    "network.dns.forceResolve": "127.0.0.1",
}
with open(os.path.join(profile, "user.js"), "w") as user_js:
    for name, value in prefs.items():
        literal = ("true" if value else "false") if isinstance(value, bool) else \
            str(value) if isinstance(value, int) else '"' + value + '"'
        user_js.write(f'user_pref("{name}", {literal});\n')

firefox = subprocess.Popen(
    ["/usr/bin/firefox-esr", "--headless", "--marionette", "--no-remote", "--profile", profile, "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "MOZ_HEADLESS": "1"})
client = Marionette(host="127.0.0.1", port=port, startup_timeout=60)


def step(name):
    print("console-firefox: " + name, flush=True)


def fail(message):
    print("console-firefox: FAILED: " + message, flush=True)
    sys.exit(1)


def visible(selector):
    def shown(marionette):
        found = [element for element in marionette.find_elements(By.CSS_SELECTOR, selector) if element.is_displayed()]
        return found[0] if found else None
    return Wait(client, timeout=15).until(shown, message=f"{selector} never shown")


def text_in(selector, text):
    def shows(marionette):
        found = marionette.find_elements(By.CSS_SELECTOR, selector)
        return bool(found) and text in found[0].text
    try:
        Wait(client, timeout=15).until(shows)
    except errors.TimeoutException:
        found = client.find_elements(By.CSS_SELECTOR, selector)
        fail(f"{selector} never showed {text!r}; it shows {found[0].text if found else '(nothing)'!r}")


def gone(selector):
    Wait(client, timeout=15).until(
        lambda marionette: not marionette.find_elements(By.CSS_SELECTOR, selector), message=f"{selector} stayed")


def confirm():
    visible("#confirm[open] #confirm-ok").click()
    gone("#confirm[open]")


def fetch(method, path, token=None):
    """A same-origin fetch from the page: with the admin token (the test's view of the broker's state) or, without
    it, with the page's cookie. The status and the JSON body."""
    return client.execute_async_script(
        """
        const [method, path, token, done] = arguments;
        const headers = token ? {Authorization: 'Bearer ' + token} : {};
        fetch(path, {method, headers, credentials: token ? 'omit' : 'same-origin'})
          .then(async (r) => done([r.status, r.status === 204 ? null : await r.json()]))
          .catch((e) => done([0, String(e)]));
        """,
        script_args=[method, path, token], script_timeout=30000)


try:
    client.start_session()
    client.timeout.page_load = 30

    # Over plain HTTP from a name other than loopback, the console says it needs HTTPS instead of a sign-in.
    client.navigate(base.replace("127.0.0.1", "console.example") + "/admin/")
    text_in("#needs-https", "needs HTTPS")
    if client.find_elements(By.CSS_SELECTOR, "#sign-in-form"):
        fail("the sign-in form is offered over plain HTTP off loopback")
    step("plain HTTP off loopback: needs HTTPS")

    # Sign in: a wrong token is refused, then the admin token.
    client.navigate(base + "/admin/")
    token_input = visible("#token")
    token_input.send_keys("not-the-token")
    token_input.send_keys(Keys.ENTER)
    text_in("#sign-in-status", "not the admin token")
    token_input = visible("#token")
    token_input.clear()
    token_input.send_keys(admin_token)
    visible("#sign-in").click()
    visible("#search-email")
    if "broker_console" in client.execute_script("return document.cookie"):
        fail("the session cookie is readable by the page")
    step("signed in")

    # Search by email (a prefix), with the keyboard, and open the user.
    search = visible("#search-email")
    search.send_keys(email.split("@")[0][:4])
    search.send_keys(Keys.ENTER)
    text_in("#results", email)
    step("found the user by email")
    client.find_element(By.XPATH, f"//td[text()='{email}']/preceding-sibling::td/a").click()
    visible("#user-name")
    text_in("#sessions", "live")
    uid = client.execute_script("return decodeURIComponent(location.hash.split('/')[2])")
    step("opened user " + uid)

    # Disable, with the confirmation, and see it through the API.
    visible("#disable").click()
    confirm()
    text_in("#action-status", "Disabled")
    visible("#enable")
    status, user = fetch("GET", "/admin/v1/users/" + uid, admin_token)
    if status != 200 or user.get("disabled") is not True:
        fail(f"the API does not show the user disabled: {status} {user}")
    step("disabled; the API agrees")

    # A display name of markup shows as text and runs nothing.
    client.navigate(base + "/admin/#/users/" + xss_uid)
    client.refresh()
    text_in("#user-name", "<img")
    heading = visible("#user-name")
    if heading.text != "<img src=x onerror=alert(1)>":
        fail("the display name shows as " + repr(heading.text))
    if client.find_elements(By.CSS_SELECTOR, "main img"):
        fail("the display name became an element")
    try:
        Alert(client).text
        fail("an alert ran")
    except errors.NoAlertPresentException:
        pass
    step("the markup display name is text")

    # Sign out ends the session: the old cookie no longer works.
    visible("#sign-out").click()
    text_in("#sign-in-status", "Signed out")
    status, _ = fetch("GET", "/admin/v1/users")
    if status != 401:
        fail(f"after signing out the admin API answered {status}")
    client.navigate(base + "/admin/#/users")
    client.refresh()
    visible("#sign-in-form")
    step("signed out; the session is over")
    print("console-firefox: all scenarios passed", flush=True)
except errors.UnexpectedAlertOpen as error:
    fail("an alert ran: " + str(error))
except errors.MarionetteException as error:
    fail(f"{type(error).__name__} on {client.get_url() if client.session else '(no session)'}: {error}")
finally:
    try:
        if client.session:
            client.delete_session()
    except Exception:  # Firefox may already be gone; it is killed below either way.
        pass
    firefox.kill()
    firefox.wait(timeout=30)
