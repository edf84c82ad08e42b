"""Firebase's Python Admin SDK (firebase-admin, PyPI): action links, email-link sign-in and session cookies.

Run by FirebaseAdminOOBTests.swift like firebase_admin_sdk.py (FIREBASE_AUTH_EMULATOR_HOST = the broker's
Firebase-compatible listener, BROKER_PROJECT_ID, BROKER_URL = the native listener, for password sign-ins). Each link the SDK generates is followed through the listener's client API, as an app would,
and its effect asserted with the SDK. Each scenario is a function; all run, the failures are printed with their
tracebacks, and the exit status is 1 when any failed. The last line on success is
"firebase-admin oob: all scenarios passed".
"""

import datetime
import os
import time
import urllib.parse

import firebase_admin
from firebase_admin import auth
from scenario_support import check, client_call, expect_error, native_password_sign_in, run

PROJECT_ID = os.environ["BROKER_PROJECT_ID"]
APP = firebase_admin.initialize_app(options={"projectId": PROJECT_ID})
SETTINGS = auth.ActionCodeSettings(url="https://app.example.com/finish?step=2", handle_code_in_app=True)


def error_code(body):
    return body.get("error", {}).get("message", "").split(" : ")[0]


def link_query(link):
    parsed = urllib.parse.urlparse(link)
    check(parsed.path == "/auth/action", f"the broker's action page: {link}")
    return dict(urllib.parse.parse_qsl(parsed.query))


def email_link_id_token(email):
    """An ID token of the listener, through an admin sign-in link followed by the client's signInWithEmailLink."""
    code = link_query(auth.generate_sign_in_with_email_link(email, SETTINGS))["oobCode"]
    status, body = client_call("signInWithEmailLink", {"email": email, "oobCode": code})
    check(status == 200, f"email-link sign-in: {status} {body}")
    return body["idToken"]


# --- Scenarios ---------------------------------------------------------------------------------------------


def password_reset_link():
    auth.create_user(uid="oob-reset", email="oob-reset@example.com", password="old password")
    link = auth.generate_password_reset_link("oob-reset@example.com", SETTINGS)
    query = link_query(link)
    check(query["mode"] == "resetPassword", f"mode: {query}")
    check(query["continueUrl"] == "https://app.example.com/finish?step=2", f"continueUrl: {query}")
    code = query["oobCode"]
    # The code alone says what it is for and uses nothing up.
    status, body = client_call("resetPassword", {"oobCode": code})
    check(status == 200 and body.get("requestType") == "PASSWORD_RESET", f"inspect: {status} {body}")
    check(body.get("email") == "oob-reset@example.com", f"inspect email: {body}")
    status, body = client_call("resetPassword", {"oobCode": code, "newPassword": "123"})
    check(status == 400 and error_code(body) == "WEAK_PASSWORD", f"weak: {status} {body}")
    status, body = client_call("resetPassword", {"oobCode": code, "newPassword": "new password"})
    check(status == 200 and body.get("requestType") == "PASSWORD_RESET", f"reset: {status} {body}")
    status, body = client_call("resetPassword", {"oobCode": code, "newPassword": "newer password"})
    check(status == 400 and error_code(body) == "INVALID_OOB_CODE", f"used: {status} {body}")
    check(native_password_sign_in("oob-reset@example.com", "new password")[0] == 200, "the new password signs in")
    check(native_password_sign_in("oob-reset@example.com", "old password")[0] == 400, "the old password is gone")
    check(auth.get_user("oob-reset").email_verified, "a reset verifies the email")
    expect_error(auth.EmailNotFoundError, auth.generate_password_reset_link, "oob-nobody@example.com")


def email_verification_link():
    auth.create_user(uid="oob-verify", email="oob-verify@example.com", password="some password")
    check(not auth.get_user("oob-verify").email_verified, "unverified at first")
    link = auth.generate_email_verification_link("oob-verify@example.com")
    query = link_query(link)
    check(query["mode"] == "verifyEmail" and "continueUrl" not in query, f"query: {query}")
    status, body = client_call("resetPassword", {"oobCode": query["oobCode"]})
    check(status == 200 and body.get("requestType") == "VERIFY_EMAIL", f"inspect: {status} {body}")
    check(body.get("email") == "oob-verify@example.com", f"inspect email: {body}")
    # A verification code resets no password.
    status, body = client_call("resetPassword", {"oobCode": query["oobCode"], "newPassword": "another password"})
    check(status == 400 and error_code(body) == "INVALID_OOB_CODE", f"not a reset code: {status} {body}")
    check(native_password_sign_in("oob-verify@example.com", "some password")[0] == 200, "the password is unchanged")
    check(not auth.get_user("oob-verify").email_verified, "still unverified")
    expect_error(auth.UserNotFoundError, auth.generate_email_verification_link, "oob-nobody@example.com")


def email_verification_link_applied():
    """Firebase's applyActionCode: accounts:update with the oobCode alone."""
    auth.create_user(uid="oob-apply", email="oob-apply@example.com")
    code = link_query(auth.generate_email_verification_link("oob-apply@example.com"))["oobCode"]
    status, body = client_call("update", {"oobCode": code})
    check(status == 200 and body.get("emailVerified") is True, f"apply: {status} {body}")
    check(body.get("email") == "oob-apply@example.com", f"email: {body}")
    check(auth.get_user("oob-apply").email_verified, "verified")
    status, body = client_call("update", {"oobCode": code})
    check(status == 400 and error_code(body) == "INVALID_OOB_CODE", f"used: {status} {body}")


def sign_in_with_email_link():
    link = auth.generate_sign_in_with_email_link("oob-new@example.com", SETTINGS)
    query = link_query(link)
    check(query["mode"] == "signIn", f"mode: {query}")
    expect_error(auth.UserNotFoundError, auth.get_user_by_email, "oob-new@example.com")
    status, body = client_call("signInWithEmailLink", {"email": "oob-other@example.com", "oobCode": query["oobCode"]})
    check(status == 400 and error_code(body) == "INVALID_EMAIL", f"wrong email: {status} {body}")
    expect_error(auth.UserNotFoundError, auth.get_user_by_email, "oob-other@example.com")
    status, body = client_call("signInWithEmailLink", {"email": "oob-new@example.com", "oobCode": query["oobCode"]})
    check(status == 200 and body.get("isNewUser") is True, f"sign-in: {status} {body}")
    check(isinstance(body.get("expiresIn"), str) and body.get("refreshToken"), f"session fields: {body}")
    claims = auth.verify_id_token(body["idToken"])
    user = auth.get_user_by_email("oob-new@example.com")
    check(claims["uid"] == user.uid == body["localId"], "the ID token names the new user")
    check(user.email_verified, "an email-link sign-in verifies the email")
    status, body = client_call("signInWithEmailLink", {"email": "oob-new@example.com", "oobCode": query["oobCode"]})
    check(status == 400 and error_code(body) == "INVALID_OOB_CODE", f"used: {status} {body}")
    # A second link signs in to the same user.
    again = link_query(auth.generate_sign_in_with_email_link("oob-new@example.com", SETTINGS))
    status, body = client_call("signInWithEmailLink", {"email": "oob-new@example.com", "oobCode": again["oobCode"]})
    check(status == 200 and body.get("isNewUser") is False and body.get("localId") == user.uid, f"again: {body}")


def a_hosting_link_domain_is_refused():
    """The broker hosts no Firebase Hosting domain: a link on one is refused as Firebase refuses a domain it does not
    host (its own integration test's `test_auth_error_parse`), and no account is made."""
    settings = auth.ActionCodeSettings(SETTINGS.url, handle_code_in_app=True, link_domain="cool.link")
    error = expect_error(
        auth.InvalidHostingLinkDomainError, auth.generate_sign_in_with_email_link, "oob-domain@example.com", settings)
    check("(INVALID_HOSTING_LINK_DOMAIN)" in str(error), f"the message: {error}")
    expect_error(auth.UserNotFoundError, auth.get_user_by_email, "oob-domain@example.com")


def session_cookie_and_revocation():
    auth.create_user(uid="oob-cookie", email="oob-cookie@example.com", password="cookie password")
    id_token = email_link_id_token("oob-cookie@example.com")
    cookie = auth.create_session_cookie(id_token, expires_in=datetime.timedelta(days=5))
    claims = auth.verify_session_cookie(cookie, check_revoked=True)
    check(claims["uid"] == "oob-cookie", f"uid: {claims}")
    check(claims["iss"] == f"https://session.firebase.google.com/{PROJECT_ID}", f"iss: {claims['iss']}")
    check(claims["exp"] - claims["iat"] == 5 * 24 * 3600, "exp from the duration")
    expect_error(auth.InvalidIdTokenError, auth.create_session_cookie, id_token + "x", expires_in=3600)
    # validSince is whole seconds: a revocation in a later second than the cookie's iat revokes it.
    time.sleep(1.1)
    auth.revoke_refresh_tokens("oob-cookie")
    auth.verify_session_cookie(cookie)  # without check_revoked the SDK looks nothing up
    expect_error(auth.RevokedSessionCookieError, auth.verify_session_cookie, cookie, check_revoked=True)


def session_cookie_of_a_disabled_user():
    auth.create_user(uid="oob-off", email="oob-off@example.com", password="cookie password")
    cookie = auth.create_session_cookie(email_link_id_token("oob-off@example.com"), expires_in=3600)
    auth.update_user("oob-off", disabled=True)
    expect_error(auth.UserDisabledError, auth.verify_session_cookie, cookie, check_revoked=True)


SCENARIOS = [
    password_reset_link, email_verification_link, email_verification_link_applied, sign_in_with_email_link,
    session_cookie_and_revocation, session_cookie_of_a_disabled_user, a_hosting_link_domain_is_refused,
]


if __name__ == "__main__":
    run(SCENARIOS, "firebase-admin oob")
