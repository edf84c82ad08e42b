"""What the Chromium scenarios that need a page of their own share (passkey_browser.py,
typescript_client_browser.py): a page server on 127.0.0.1, reached as http://localhost (a secure context, the
passkeys' origin), headless Chromium through Debian's /usr/bin/chromedriver with bounded waits, and a virtual
authenticator (CTAP2, internal transport, resident keys, user verification)."""
import http.server
import threading

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

BLANK_PAGE = b"<!doctype html><meta charset=utf-8><title>test page</title><p>test page</p>"


def serve(port, files=None):
    """Serves on 127.0.0.1:`port` a blank page at every path, except what `files(path)` answers as
    (bytes, content type); `files` answering None is a 404. Returns the server (shutdown() stops it)."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            found = files(self.path) if files is not None else (BLANK_PAGE, "text/html; charset=utf-8")
            if found is None:
                self.send_error(404)
                return
            body, kind = found
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def chromium():
    """Headless Chromium, its page loads and scripts bounded at 30 s."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


def add_authenticator(driver):
    """A virtual platform authenticator that keeps resident keys and verifies the user, always consenting."""
    driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.INTERNAL, has_resident_key=True, has_user_verification=True,
        is_user_consenting=True, is_user_verified=True))
