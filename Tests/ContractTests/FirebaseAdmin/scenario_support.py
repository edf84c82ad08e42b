"""What the firebase-admin scenario scripts share: assertions, the HTTP calls an app makes beside the SDK, and
the runner (each scenario a function; all run, failures printed with their tracebacks, exit status 1 when any
failed, the last line on success "<label>: all scenarios passed")."""

import json
import os
import sys
import traceback
import urllib.error
import urllib.request

BROKER_URL = os.environ["BROKER_URL"]
LISTENER = "http://" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"]


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def expect_error(error_type, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except error_type as error:
        return error
    except Exception as error:  # the wrong type is a failure, shown with its own type
        raise AssertionError(f"expected {error_type.__name__}, got {type(error).__name__}: {error}") from error
    raise AssertionError(f"expected {error_type.__name__}, nothing was raised")


def post_json(url, fields, headers=None):
    """POST `fields` as JSON: (status, the answer's JSON); an error status is answered, not raised."""
    request = urllib.request.Request(
        url, data=json.dumps(fields).encode(), method="POST",
        headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def client_call(verb, fields):
    """A client API call (`accounts:<verb>` with an API key, no admin authorization), as an app's SDK makes it."""
    return post_json(f"{LISTENER}/identitytoolkit.googleapis.com/v1/accounts:{verb}?key=any", fields)


def native_password_sign_in(email, password):
    """`POST /v1/signin/password` on the native listener: (status, body)."""
    return post_json(BROKER_URL + "/v1/signin/password", {"email": email, "password": password})


def run(scenarios, label):
    failed = []
    for scenario in scenarios:
        try:
            scenario()
            print(f"ok {scenario.__name__}", flush=True)
        except Exception:
            failed.append(scenario.__name__)
            print(f"FAILED {scenario.__name__}\n{traceback.format_exc()}", flush=True)
    if failed:
        print(f"{label}: {len(failed)} of {len(scenarios)} scenarios failed: {', '.join(failed)}", flush=True)
        sys.exit(1)
    print(f"{label}: all scenarios passed", flush=True)
