"""A pytest plugin for scripts/firebase-admin-suite: Firebase's integration suite calls Google's client endpoints
directly (with `requests`, not through the Admin SDK); this sends those calls to the broker's compatibility
listener under the emulator's path scheme (`http://HOST/www.googleapis.com/...`), as the SDK itself does when
FIREBASE_AUTH_EMULATOR_HOST is set. Nothing else is changed."""

import os

import requests

_LISTENER = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
_GOOGLE_HOSTS = ("www.googleapis.com", "identitytoolkit.googleapis.com", "securetoken.googleapis.com")
_send = requests.request


def _to_listener(url):
    for host in _GOOGLE_HOSTS:
        if url.startswith(f"https://{host}/"):
            return f"http://{_LISTENER}/{url[len('https://'):]}"
    return url


def _redirected(method, url, **kwargs):
    return _send(method, _to_listener(url), **kwargs)


requests.request = _redirected
