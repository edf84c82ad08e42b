"""The admin console in a real, headless Chromium (driven by selenium through Debian's /usr/bin/chromedriver).

Started by ConsoleBrowserTests.swift with a live broker already seeded. Reads its inputs from the environment:
CONSOLE_URL (the broker's base URL), CONSOLE_ADMIN_TOKEN, CONSOLE_EMAIL and CONSOLE_XSS_UID (seeded users),
CONSOLE_PASSKEY_ID and CONSOLE_PASSKEY_NAME (the seeded user's passkey),
CONSOLE_SCREENSHOTS (a folder to save one PNG per page into; empty: none). With CONSOLE_SCENARIO=outbox it runs
only the failing-delivery scenario instead, on CONSOLE_FAILING_JOB (a job id) and CONSOLE_FAILING_TARGET (its
endpoint). Prints one line per scenario and exits non-zero on the first failure. Every wait is bounded."""
import json
import os
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, UnexpectedAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

base = os.environ["CONSOLE_URL"].rstrip("/")
admin_token = os.environ["CONSOLE_ADMIN_TOKEN"]
email = os.environ.get("CONSOLE_EMAIL", "")
xss_uid = os.environ.get("CONSOLE_XSS_UID", "")
passkey_id = os.environ.get("CONSOLE_PASSKEY_ID", "")
passkey_name = os.environ.get("CONSOLE_PASSKEY_NAME", "")
scenario = os.environ.get("CONSOLE_SCENARIO", "")
screenshots = os.environ.get("CONSOLE_SCREENSHOTS", "")

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-first-run", "--disable-extensions", "--window-size=1280,900",
                 # A name that is not loopback to the page, though it connects to 127.0.0.1 (the HTTPS check).
                 "--host-resolver-rules=MAP console.example 127.0.0.1"):
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
driver.set_script_timeout(30)
wait = WebDriverWait(driver, 15)


def step(name):
    print("console-browser: " + name, flush=True)


def shot(name, width=1280, height=900):
    """Saves the page, whole (up to 2400 px tall), into the screenshot folder, when there is one."""
    if not screenshots:
        return
    driver.set_window_size(width, height)
    full = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, max(height, min(int(full) + 140, 2400)))
    os.makedirs(screenshots, exist_ok=True)
    driver.save_screenshot(os.path.join(screenshots, name + ".png"))
    driver.set_window_size(1280, 900)


def fail(message):
    print("console-browser: FAILED: " + message, flush=True)
    sys.exit(1)


def visible(selector):
    return wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, selector)))


def text_in(selector, text):
    try:
        wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, selector), text))
    except TimeoutException:
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        fail(f"{selector} never showed {text!r}; it shows {found[0].text if found else '(nothing)'!r}")


def confirm():
    visible("#confirm[open] #confirm-ok").click()
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, "#confirm[open]")))


def fetch(method, path, headers=None):
    """A same-origin fetch from the page (with its cookie): the status and the body's error code."""
    return driver.execute_async_script(
        """
        const [method, path, headers, done] = arguments;
        fetch(path, {method, headers, credentials: 'same-origin', body: method === 'GET' ? undefined : '{}'})
          .then(async (r) => { let code = null; try { code = (await r.json()).error.code; } catch (e) {} done([r.status, code]); })
          .catch((e) => done([0, String(e)]));
        """,
        method, path, headers or {})


def api(method, path, body=None):
    """The admin API with the Bearer token, from the page (the test's view of the broker's state)."""
    return driver.execute_async_script(
        """
        const [method, path, token, body, done] = arguments;
        fetch(path, {method, headers: {Authorization: 'Bearer ' + token, 'Content-Type': 'application/json'},
                     credentials: 'omit', body: body === null ? undefined : JSON.stringify(body)})
          .then(async (r) => done([r.status, r.status === 204 ? null : await r.json()]))
          .catch((e) => done([0, String(e)]));
        """,
        method, path, admin_token, body)


def sign_in():
    driver.get(base + "/admin/")
    visible("#token").send_keys(admin_token)
    visible("#sign-in").click()
    visible("#search-email")


def failing_delivery():
    """A failing delivery is listed (kind, target, attempts, last error, no secret) and retried after a
    confirmation; cancelling the confirmation retries nothing."""
    job, target = os.environ["CONSOLE_FAILING_JOB"], os.environ["CONSOLE_FAILING_TARGET"]
    sign_in()
    visible("a[data-nav='outbox']").click()
    text_in("#outbox-results", target)
    rows = driver.find_elements(By.CSS_SELECTOR, "#outbox-results tbody tr")
    if len(rows) != 1:
        fail("the failing deliveries are " + " | ".join(row.text for row in rows))
    cells = [cell.text for cell in rows[0].find_elements(By.TAG_NAME, "td")]
    if cells[0] != "event" or cells[1] != target or cells[3] != "pending" or cells[4] != "1" or "503" not in cells[5]:
        fail("the failing delivery shows " + repr(cells))
    if "whsec_" in driver.page_source:
        fail("the page shows a webhook secret")
    shot("outbox")
    step("saw the failing delivery")

    visible(f"button[data-retry='{job}']").click()
    visible("#confirm[open]")
    visible("#confirm-cancel").click()
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, "#confirm[open]")))
    status, listing = api("GET", "/admin/v1/outbox?failing=true")
    if status != 200 or [entry["attempts"] for entry in listing["jobs"]] != [1]:
        fail(f"a cancelled retry changed the job: {status} {listing}")
    visible(f"button[data-retry='{job}']").click()
    confirm()
    text_in("#outbox-status", "scheduled again")
    status, listing = api("GET", "/admin/v1/outbox?failing=true")
    entry = listing["jobs"][0] if status == 200 and listing["jobs"] else {}
    if entry.get("id") != job or entry.get("state") != "pending":
        fail(f"after the retry the API shows {status} {listing}")
    step("retried the delivery after a confirmation")


try:
    if scenario == "outbox":
        failing_delivery()
        print("console-browser: all scenarios passed", flush=True)
        sys.exit(0)
    # Over plain HTTP from a name other than loopback, the console says it needs HTTPS instead of a sign-in.
    driver.get(base.replace("127.0.0.1", "console.example") + "/admin/")
    text_in("#needs-https", "needs HTTPS")
    if driver.find_elements(By.CSS_SELECTOR, "#sign-in-form"):
        fail("the sign-in form is offered over plain HTTP off loopback")
    shot("needs-https")
    step("plain HTTP off loopback: needs HTTPS")

    # Sign in.
    driver.get(base + "/admin/")
    visible("#sign-in-form")
    shot("sign-in")
    token_input = visible("#token")
    token_input.send_keys("not-the-token")
    token_input.send_keys(Keys.ENTER)
    text_in("#sign-in-status", "not the admin token")
    token_input = visible("#token")
    token_input.clear()
    token_input.send_keys(admin_token)
    visible("#sign-in").click()
    visible("#search-email")
    if driver.execute_script("return document.cookie").find("broker_console") >= 0:
        fail("the session cookie is readable by the page")
    storage = driver.execute_script("return JSON.stringify([Object.keys(localStorage), Object.keys(sessionStorage)])")
    if storage != "[[],[]]":
        fail("the page keeps something in storage: " + storage)
    step("signed in")

    # Search by email (a prefix), with the keyboard.
    search = visible("#search-email")
    search.send_keys(email.split("@")[0][:4])
    search.send_keys(Keys.ENTER)
    text_in("#results", email)
    shot("users")
    step("found the user by email")

    # Open them.
    driver.find_element(By.XPATH, f"//td[text()='{email}']/preceding-sibling::td/a").click()
    visible("#user-name")
    text_in("#sessions", "live")
    text_in("#passkeys", passkey_name)
    text_in("#trail", "sign_up")
    shot("user")
    shot("user-phone", 390, 844)
    uid = driver.execute_script("return decodeURIComponent(location.hash.split('/')[2])")
    step("opened user " + uid)

    # Delete the passkey, with the confirmation.
    visible(f"button[data-delete-passkey='{passkey_id}']").click()
    confirm()
    text_in("#action-status", "Passkey deleted")
    text_in("#passkeys", "No passkey.")
    status, user = api("GET", "/admin/v1/users/" + uid)
    if status != 200 or user.get("passkeys") != []:
        fail(f"the API still shows passkeys after the deletion: {status} {user.get('passkeys')}")
    step("deleted the passkey " + passkey_name)

    # Escape cancels a confirmation, and nothing is done.
    visible("#revoke").click()
    visible("#confirm[open]")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, "#confirm[open]")))
    status, events = api("GET", "/admin/v1/audit?action=revoke_sessions")
    if status != 200 or events["events"]:
        fail(f"a cancelled revocation was made: {status} {events}")
    step("Escape cancels a confirmation")

    # Custom claims: refused unless a JSON object, then saved.
    claims = visible("#claims")
    claims.clear()
    claims.send_keys('{"role": ')
    visible("#save-claims").click()
    text_in("#claims-status", "Not valid JSON")
    claims.clear()
    claims.send_keys('["admin"]')
    visible("#save-claims").click()
    text_in("#claims-status", "must be a JSON object")
    claims.clear()
    claims.send_keys('{"role": "editor"}')
    visible("#save-claims").click()
    confirm()
    text_in("#action-status", "Custom claims saved")
    status, user = api("GET", "/admin/v1/users/" + uid)
    if status != 200 or user.get("customClaims") != {"role": "editor"}:
        fail(f"the API shows claims {user.get('customClaims') if status == 200 else status}")
    step("custom claims validated and saved")

    # Unlink Google, with the confirmation.
    visible("button[data-unlink='google']").click()
    confirm()
    text_in("#action-status", "Unlinked google")
    if driver.find_elements(By.CSS_SELECTOR, "button[data-unlink='google']"):
        fail("google is still listed after the unlink")
    status, user = api("GET", "/admin/v1/users/" + uid)
    if status != 200 or [i["provider"] for i in user["identities"]] != []:
        fail(f"the API still shows identities after the unlink: {status} {user}")
    step("unlinked google")

    # Disable, and see it through the API.
    visible("#disable").click()
    confirm()
    text_in("#action-status", "Disabled")
    visible("#enable")
    status, user = api("GET", "/admin/v1/users/" + uid)
    if status != 200 or user.get("disabled") is not True:
        fail(f"the API does not show the user disabled: {status} {user}")
    step("disabled; the API agrees")

    # The audit entries, on the user's page and in the audit log.
    text_in("#trail", "disable")
    text_in("#trail", "unlink")
    visible("a[data-nav='audit']").click()
    select = visible("#audit-action")
    for option in select.find_elements(By.TAG_NAME, "option"):
        if option.get_attribute("value") == "disable":
            option.click()
    visible("#audit-filter").click()
    text_in("#audit-results", uid)
    rows = driver.find_elements(By.CSS_SELECTOR, "#audit-results tbody tr")
    if len(rows) != 1 or "admin" not in rows[0].text:
        fail("the audit log filtered by disable shows " + " | ".join(row.text for row in rows))
    shot("audit")
    step("saw the audit entry")

    # A display name of markup shows as text and runs nothing.
    driver.get(base + "/admin/#/users/" + xss_uid)
    heading = visible("#user-name")
    if heading.text != "<img src=x onerror=alert(1)>":
        fail("the display name shows as " + repr(heading.text))
    if driver.find_elements(By.CSS_SELECTOR, "main img"):
        fail("the display name became an element")
    try:
        driver.switch_to.alert
        fail("an alert ran")
    except Exception as error:  # NoAlertPresentException: nothing ran.
        if "NoAlertPresent" not in type(error).__name__:
            raise
    step("the markup display name is text")

    # Dashboard.
    visible("a[data-nav='dashboard']").click()
    visible("svg.chart rect")
    text_in("#chart-area", "password")
    shot("dashboard")
    step("dashboard drawn")

    # A change without the CSRF token is refused (the cookie alone is not enough).
    status, code = fetch("PATCH", "/admin/v1/users/" + xss_uid, {"Content-Type": "application/json"})
    if status != 401 or code != "UNAUTHENTICATED":
        fail(f"a change without the CSRF token got {status} {code}")
    status, code = fetch("GET", "/admin/v1/users/" + xss_uid)
    if status != 200:
        fail(f"a read with the cookie got {status} {code}")
    step("a change without the CSRF token is refused")

    # The providers: the config file's read-only; one added, disabled and deleted, each change confirmed first.
    driver.get(base + "/admin/#/providers")
    text_in("#providers-results", "corp")
    if driver.find_elements(By.CSS_SELECTOR, "[data-provider-delete='corp']"):
        fail("the config file's provider offers a delete")
    visible("#provider-id").send_keys("acme")
    driver.find_element(By.CSS_SELECTOR, "#provider-name").send_keys("Acme SSO")
    driver.find_element(By.CSS_SELECTOR, "#provider-issuer").send_keys(os.environ["CONSOLE_OIDC_ISSUER"])
    driver.find_element(By.CSS_SELECTOR, "#provider-client-id").send_keys("console-client")
    driver.find_element(By.CSS_SELECTOR, "#provider-add").click()
    confirm()
    visible("[data-provider-toggle='acme']")
    status, body = api("GET", "/admin/v1/providers/acme")
    if status != 200 or body.get("enabled") is not True or body.get("clientId") != "console-client":
        fail(f"the added provider: {status} {body}")
    shot("providers")
    step("added a provider")
    visible("[data-provider-toggle='acme']").click()
    confirm()
    text_in("#providers-results", "disabled")
    status, body = api("GET", "/admin/v1/providers/acme")
    if status != 200 or body.get("enabled") is not False:
        fail(f"the disabled provider: {status} {body}")
    step("disabled the provider; the API agrees")
    visible("[data-provider-delete='acme']").click()
    # Escape cancels: still there.
    visible("#confirm[open] #confirm-cancel").send_keys(Keys.ESCAPE)
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, "#confirm[open]")))
    if api("GET", "/admin/v1/providers/acme")[0] != 200:
        fail("a cancelled delete deleted")
    visible("[data-provider-delete='acme']").click()
    confirm()
    wait.until(ec.invisibility_of_element_located((By.CSS_SELECTOR, "[data-provider-delete='acme']")))
    status, body = api("GET", "/admin/v1/providers")
    if status != 200 or [p["id"] for p in body["providers"]] != ["corp"]:
        fail(f"after the delete the providers are {status} {body}")
    step("deleted the provider; the API agrees")

    # Sign out ends the session: the old cookie no longer works.
    visible("#sign-out").click()
    text_in("#sign-in-status", "Signed out")
    status, code = fetch("GET", "/admin/v1/users")
    if status != 401:
        fail(f"after signing out the admin API answered {status}")
    driver.get(base + "/admin/#/users")
    visible("#sign-in-form")
    step("signed out; the session is over")

    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
              and "401" not in entry["message"] and "favicon" not in entry["message"]]
    if errors:
        fail("the browser logged errors: " + json.dumps(errors))
    print("console-browser: all scenarios passed", flush=True)
except UnexpectedAlertPresentException as error:
    fail("an alert ran: " + str(error))
except TimeoutException as error:
    fail("timed out on " + driver.current_url + ": " + str(error).strip() + "\nbrowser log: "
         + json.dumps(driver.get_log("browser")) + "\n" + driver.page_source[:4000])
finally:
    driver.quit()
