"""Firebase's Python Admin SDK (firebase-admin, PyPI) against the broker's Firebase-compatible listener.

Run by FirebaseAdminSDKTests.swift with FIREBASE_AUTH_EMULATOR_HOST (the listener), BROKER_PROJECT_ID and
BROKER_URL (the native listener, for the password sign-in of imported users). Each scenario is a function;
all run, the failures are printed with their tracebacks, and the exit status is 1 when any failed. The last
line on success is "firebase-admin: all scenarios passed".
"""

import base64
import hashlib
import os
import time

import firebase_admin
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from firebase_admin import auth, exceptions
from scenario_support import LISTENER, check, client_call, expect_error, native_password_sign_in, post_json, run

PROJECT_ID = os.environ["BROKER_PROJECT_ID"]
APP = firebase_admin.initialize_app(options={"projectId": PROJECT_ID})


# --- Scenarios ---------------------------------------------------------------------------------------------


def create_and_get_by_every_key():
    user = auth.create_user(
        uid="sdk-ada", email="ada@example.com", password="correct horse", phone_number="+15551230001",
        display_name="Ada", photo_url="https://example.com/ada.png", email_verified=True)
    check(user.uid == "sdk-ada", f"uid kept: {user.uid}")
    check(user.email == "ada@example.com" and user.email_verified, "email and its verification")
    check(user.phone_number == "+15551230001", f"phone: {user.phone_number}")
    check(user.display_name == "Ada" and user.photo_url == "https://example.com/ada.png", "profile")
    check(not user.disabled, "enabled")
    check(user.user_metadata.creation_timestamp > 0, "createdAt")
    check(any(p.provider_id == "password" for p in user.provider_data), "a password provider entry")
    for fetched in (auth.get_user("sdk-ada"), auth.get_user_by_email("ada@example.com"),
                    auth.get_user_by_phone_number("+15551230001")):
        check(fetched.uid == "sdk-ada", f"found by key: {fetched.uid}")
    generated = auth.create_user()
    check(len(generated.uid) == 28, f"a generated uid: {generated.uid}")
    auth.delete_user(generated.uid)


def create_refusals():
    auth.create_user(uid="sdk-taken", email="taken@example.com", phone_number="+15551230002")
    expect_error(auth.UidAlreadyExistsError, auth.create_user, uid="sdk-taken")
    expect_error(auth.EmailAlreadyExistsError, auth.create_user, uid="sdk-other", email="taken@example.com")
    expect_error(auth.PhoneNumberAlreadyExistsError, auth.create_user, uid="sdk-other", phone_number="+15551230002")
    expect_error(exceptions.InvalidArgumentError, auth.create_user, uid="sdk-other", phone_number="+0000")
    expect_error(auth.UserNotFoundError, auth.get_user, "sdk-other")  # nothing of the refusals was stored
    expect_error(auth.UserNotFoundError, auth.get_user_by_email, "nobody@example.com")
    expect_error(auth.UserNotFoundError, auth.get_user_by_phone_number, "+15550000000")


def get_users_with_every_identifier():
    auth.create_user(uid="sdk-many-1", email="many1@example.com")
    auth.create_user(uid="sdk-many-2", phone_number="+15551230003")
    auth.import_users([auth.ImportUserRecord(
        uid="sdk-many-3", provider_data=[auth.UserProvider(uid="g-many-3", provider_id="google.com")])])
    result = auth.get_users([
        auth.UidIdentifier("sdk-many-1"), auth.EmailIdentifier("many1@example.com"),
        auth.PhoneIdentifier("+15551230003"), auth.ProviderIdentifier("google.com", "g-many-3"),
        auth.UidIdentifier("sdk-missing"), auth.EmailIdentifier("missing@example.com"),
    ])
    check(sorted(u.uid for u in result.users) == ["sdk-many-1", "sdk-many-2", "sdk-many-3"],
          f"found: {[u.uid for u in result.users]}")
    missing = sorted(str(getattr(i, "uid", getattr(i, "email", ""))) for i in result.not_found)
    check(missing == ["missing@example.com", "sdk-missing"], f"not found: {missing}")
    google = [u for u in result.users if u.uid == "sdk-many-3"][0]
    check([(p.provider_id, p.uid) for p in google.provider_data] == [("google.com", "g-many-3")],
          f"provider data: {[(p.provider_id, p.uid) for p in google.provider_data]}")


def list_users_in_pages():
    for index in range(5):
        auth.create_user(uid=f"sdk-page-{index}")
    page = auth.list_users(max_results=2)
    seen = []
    pages = 0
    while page and pages < 100:
        check(len(page.users) <= 2, "at most max_results per page")
        seen += [u.uid for u in page.users]
        pages += 1
        page = page.get_next_page()
    check(seen == sorted(seen), "uid order")
    check(len(seen) == len(set(seen)), "no user twice")
    check(all(f"sdk-page-{i}" in seen for i in range(5)), "every user listed")
    check(pages >= 3, f"several pages: {pages}")
    everyone = [u.uid for u in auth.list_users().iterate_all()]
    check(everyone == seen, "iterate_all agrees with the pages")


def update_user_fields_and_deletions():
    auth.create_user(
        uid="sdk-upd", email="upd@example.com", phone_number="+15551230004", display_name="Before",
        photo_url="https://example.com/before.png")
    user = auth.update_user("sdk-upd", display_name="After", email="upd2@example.com", email_verified=True,
                            password="new password", disabled=True)
    check(user.display_name == "After" and user.email == "upd2@example.com", "changed")
    check(user.email_verified and user.disabled, "verified and disabled")
    user = auth.update_user("sdk-upd", display_name=auth.DELETE_ATTRIBUTE, photo_url=auth.DELETE_ATTRIBUTE,
                            phone_number=auth.DELETE_ATTRIBUTE, disabled=False)
    check(user.display_name is None and user.photo_url is None, "display name and photo removed")
    check(user.phone_number is None, "phone removed")
    check(not user.disabled, "enabled again")
    expect_error(auth.UserNotFoundError, auth.get_user_by_phone_number, "+15551230004")
    expect_error(auth.UserNotFoundError, auth.update_user, "sdk-nobody", display_name="x")
    auth.create_user(uid="sdk-upd-other", email="other@example.com", phone_number="+15551230005")
    expect_error(auth.EmailAlreadyExistsError, auth.update_user, "sdk-upd", email="other@example.com")
    expect_error(auth.PhoneNumberAlreadyExistsError, auth.update_user, "sdk-upd", phone_number="+15551230005")
    check(auth.get_user("sdk-upd").email == "upd2@example.com", "a refused update changed nothing")


def custom_claims():
    auth.create_user(uid="sdk-claims")
    auth.set_custom_user_claims("sdk-claims", {"role": "admin", "level": 3})
    check(auth.get_user("sdk-claims").custom_claims == {"role": "admin", "level": 3}, "claims set")
    auth.set_custom_user_claims("sdk-claims", None)
    check(auth.get_user("sdk-claims").custom_claims is None, "claims cleared")
    # The SDK refuses Firebase's reserved names itself; the broker refuses the ones it adds (email, uid, ...).
    expect_error(exceptions.InvalidArgumentError, auth.set_custom_user_claims, "sdk-claims", {"email": "x@example.com"})
    check(auth.get_user("sdk-claims").custom_claims is None, "a refused claim changed nothing")


def revoke_refresh_tokens():
    auth.create_user(uid="sdk-revoke")
    before = int(time.time())
    auth.revoke_refresh_tokens("sdk-revoke")
    after = int(time.time())
    valid_after = auth.get_user("sdk-revoke").tokens_valid_after_timestamp
    check(before * 1000 <= valid_after <= after * 1000, f"tokens_valid_after_timestamp {valid_after}")
    check(valid_after % 1000 == 0, "whole seconds")


def revoked_id_tokens():
    auth.create_user(uid="sdk-token", email="token@example.com", password="token pass")
    status, body = client_call(
        "signInWithPassword", {"email": "token@example.com", "password": "token pass", "returnSecureToken": True})
    check(status == 200, f"signed in: {status} {body}")
    id_token = body["idToken"]
    check(auth.verify_id_token(id_token, check_revoked=True)["uid"] == "sdk-token", "a live token")
    # validSince after the token's iat: the SDK finds it revoked, and the broker refuses it too.
    auth.update_user("sdk-token", valid_since=int(time.time()) + 60)
    expect_error(auth.RevokedIdTokenError, auth.verify_id_token, id_token, check_revoked=True)
    status, body = client_call("lookup", {"idToken": id_token})
    check(status == 400, f"the broker refuses the revoked ID token: {status} {body}")
    auth.update_user("sdk-token", disabled=True)
    expect_error(auth.UserDisabledError, auth.verify_id_token, id_token, check_revoked=True)


def admin_calls_on_the_client_paths():
    """Bearer owner on `/v1/accounts:lookup|update|delete` without an idToken answers as the project paths."""
    auth.create_user(uid="sdk-cp", email="cp@example.com")

    def owner(verb, fields):
        status, body = post_json(
            f"{LISTENER}/identitytoolkit.googleapis.com/v1/accounts:{verb}", fields, {"Authorization": "Bearer owner"})
        check(status == 200, f"{verb} as the owner: {status} {body}")
        return body

    check(owner("lookup", {"localId": ["sdk-cp"]})["users"][0]["email"] == "cp@example.com", "lookup")
    check(owner("update", {"localId": "sdk-cp", "displayName": "CP"})["displayName"] == "CP", "update")
    owner("delete", {"localId": "sdk-cp"})
    expect_error(auth.UserNotFoundError, auth.get_user, "sdk-cp")


def delete_user_and_users():
    auth.create_user(uid="sdk-del")
    auth.delete_user("sdk-del")
    expect_error(auth.UserNotFoundError, auth.get_user, "sdk-del")
    expect_error(auth.UserNotFoundError, auth.delete_user, "sdk-del")
    for uid in ("sdk-bd-1", "sdk-bd-2"):
        auth.create_user(uid=uid)
    auth.create_user(uid="sdk-bd-off", disabled=True)
    # The SDK always sends force: enabled and disabled users go alike; an unknown uid is no failure.
    result = auth.delete_users(["sdk-bd-1", "sdk-bd-off", "sdk-bd-unknown"])
    check(result.success_count == 3 and result.failure_count == 0, f"{result.success_count} / {result.failure_count}")
    for uid in ("sdk-bd-1", "sdk-bd-off"):
        expect_error(auth.UserNotFoundError, auth.get_user, uid)
    check(auth.get_user("sdk-bd-2").uid == "sdk-bd-2", "a user not named is kept")
    auth.delete_users(["sdk-bd-2"])
    expect_error(auth.UserNotFoundError, auth.get_user, "sdk-bd-2")


def firebase_scrypt(password, salt, key, separator, rounds, memory_cost):
    derived = hashlib.scrypt(password.encode(), salt=salt + separator, n=2 ** memory_cost, r=rounds, p=1,
                             dklen=64, maxmem=128 * 2 ** memory_cost * rounds * 2)[:32]
    encryptor = Cipher(algorithms.AES(derived), modes.CTR(b"\0" * 16)).encryptor()
    return encryptor.update(key) + encryptor.finalize()


def import_users_with_scrypt():
    key = base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")
    separator = base64.b64decode("Bw==")
    salt = b"sdk-salt-0001"
    records = [
        auth.ImportUserRecord(
            uid="sdk-imp-1", email="imp1@example.com", password_hash=firebase_scrypt(
                "imported pass", salt, key, separator, 8, 14), password_salt=salt, phone_number="+15551230006",
            custom_claims={"plan": "pro"}, display_name="Imported"),
        auth.ImportUserRecord(uid="sdk-imp-2", email="taken@example.com"),
        auth.ImportUserRecord(uid="sdk-ada"),
        auth.ImportUserRecord(uid="sdk-imp-3", phone_number="+15551230001"),
        auth.ImportUserRecord(uid="sdk-imp-4", provider_data=[auth.UserProvider(uid="g-imp-4", provider_id="google.com")]),
    ]
    result = auth.import_users(records, hash_alg=auth.UserImportHash.scrypt(
        key=key, rounds=8, memory_cost=14, salt_separator=separator))
    reasons = {e.index: e.reason for e in result.errors}
    check(result.success_count == 2 and result.failure_count == 3, f"{result.success_count} / {reasons}")
    check(reasons[1].startswith("DUPLICATE_EMAIL") and reasons[2].startswith("DUPLICATE_LOCAL_ID")
          and reasons[3].startswith("PHONE_NUMBER_EXISTS"), f"per-user errors: {reasons}")
    imported = auth.get_user("sdk-imp-1")
    check(imported.phone_number == "+15551230006" and imported.custom_claims == {"plan": "pro"}, "imported fields")
    expect_error(auth.UserNotFoundError, auth.get_user, "sdk-imp-2")
    exported = [u for u in auth.list_users().iterate_all() if u.uid == "sdk-imp-1"][0]
    check(exported.password_hash and exported.password_salt, "batchGet answers the stored hash and salt")
    status, _ = client_call("signInWithPassword", {"email": "imp1@example.com", "password": "wrong pass"})
    check(status == 400, f"a wrong password is refused: {status}")
    status, body = client_call(
        "signInWithPassword", {"email": "imp1@example.com", "password": "imported pass", "returnSecureToken": True})
    check(status == 200, f"the imported scrypt password signs in through the client API: {status} {body}")
    check(body.get("localId") == "sdk-imp-1", "as the imported uid")
    check(auth.verify_id_token(body["idToken"])["uid"] == "sdk-imp-1", "an ID token the SDK accepts")
    # The native API verifies the same imported (now upgraded) password.
    status, body = native_password_sign_in("imp1@example.com", "imported pass")
    check(status == 200 and body.get("user", {}).get("uid") == "sdk-imp-1", f"native sign-in: {status}")
    # Every one of Firebase's algorithms is verified (issue 33): MD5 as Firebase's own tests upload it, the
    # hexadecimal text of MD5(salt + password), 0 rounds; a hash no MD5 can be refuses that user alone.
    md5_hash = hashlib.md5(b"NaCl" + b"md5 pass").hexdigest().encode()
    md5 = auth.import_users(
        [auth.ImportUserRecord(uid="sdk-md5", email="md5@example.com", password_hash=md5_hash, password_salt=b"NaCl"),
         auth.ImportUserRecord(uid="sdk-md5-short", password_hash=b"0123"), auth.ImportUserRecord(uid="sdk-nohash")],
        hash_alg=auth.UserImportHash.md5(rounds=0))
    check(md5.success_count == 2 and [e.index for e in md5.errors] == [1], f"md5 imported: {md5.errors}")
    expect_error(auth.UserNotFoundError, auth.get_user, "sdk-md5-short")
    status, _ = client_call("signInWithPassword", {"email": "md5@example.com", "password": "md5 pasS"})
    check(status == 400, f"a wrong password is refused for an MD5 hash: {status}")
    status, body = client_call(
        "signInWithPassword", {"email": "md5@example.com", "password": "md5 pass", "returnSecureToken": True})
    check(status == 200 and body.get("localId") == "sdk-md5", f"the MD5 password signs in: {status} {body}")


def oidc_provider_configs():
    """The OIDC provider-config calls of Firebase's integration tests (issue 33): create, get, list, update, delete."""
    created = auth.create_oidc_provider_config(
        "oidc.sdk-provider", client_id="sdk-client", issuer="https://sdk-issuer.example.com",
        display_name="SDK provider", enabled=True, id_token_response_type=True)
    check(created.provider_id == "oidc.sdk-provider" and created.client_id == "sdk-client"
          and created.issuer == "https://sdk-issuer.example.com" and created.display_name == "SDK provider"
          and created.enabled and created.id_token_response_type and not created.code_response_type,
          f"created: {created._data}")
    got = auth.get_oidc_provider_config("oidc.sdk-provider")
    check(got._data == created._data, f"get answers what create did: {got._data}")
    auth.create_oidc_provider_config(
        "oidc.sdk-other", client_id="other-client", issuer="https://other.example.com")
    page = auth.list_oidc_provider_configs(max_results=1)
    listed = [config.provider_id for config in auth.list_oidc_provider_configs(max_results=1).iterate_all()]
    check(len(page.provider_configs) == 1 and page.next_page_token, "a first page of one")
    # The config file's OIDC provider (`corp`) is listed too, read-only.
    check(listed == ["oidc.corp", "oidc.sdk-other", "oidc.sdk-provider"], f"every page, by id: {listed}")
    corp = auth.get_oidc_provider_config("oidc.corp")
    check(corp.client_id == os.environ["BROKER_OIDC_CONFIG_AUDIENCE"] and corp.enabled, f"corp: {corp._data}")
    for call, args, code in [
            (auth.update_oidc_provider_config, {"enabled": False}, "OPERATION_NOT_ALLOWED"),
            (auth.delete_oidc_provider_config, {}, "OPERATION_NOT_ALLOWED"),
            (auth.create_oidc_provider_config, {"client_id": "c", "issuer": "https://corp.example.com"},
             "CONFIGURATION_EXISTS")]:
        error = expect_error(exceptions.FirebaseError, call, "oidc.corp", **args)
        check(code in str(error), f"{call.__name__} of a config file's provider: {error}")
    check(auth.get_oidc_provider_config("oidc.corp").enabled, "corp unchanged")
    updated = auth.update_oidc_provider_config(
        "oidc.sdk-provider", client_id="sdk-client-2", display_name=auth.DELETE_ATTRIBUTE, enabled=False)
    check(updated.client_id == "sdk-client-2" and updated.display_name is None and not updated.enabled
          and updated.issuer == "https://sdk-issuer.example.com", f"updated: {updated._data}")
    auth.delete_oidc_provider_config("oidc.sdk-provider")
    expect_error(auth.ConfigurationNotFoundError, auth.get_oidc_provider_config, "oidc.sdk-provider")
    auth.delete_oidc_provider_config("oidc.sdk-other")
    left = [config.provider_id for config in auth.list_oidc_provider_configs().provider_configs]
    check(left == ["oidc.corp"], f"only the config file's left: {left}")
    oidc_provider_sign_in()


def oidc_provider_sign_in():
    """A provider created by the Admin SDK signs in on the client API (`signInWithIdp`, `oidc.<id>`), its client id
    the audience; disabled, then deleted, it signs nobody in."""
    token = os.environ["BROKER_OIDC_TOKEN"]  # the stub issuer's ID token for the audience sdk-live-client
    auth.create_oidc_provider_config(
        "oidc.sdk-live", client_id="sdk-live-client", issuer=os.environ["BROKER_OIDC_ISSUER"], enabled=True)
    fields = {"postBody": f"providerId=oidc.sdk-live&id_token={token}", "requestUri": "http://localhost",
              "returnSecureToken": True}
    status, body = client_call("signInWithIdp", fields)
    check(status == 200 and body.get("providerId") == "oidc.sdk-live" and body.get("isNewUser"),
          f"signed in with the created provider: {status} {body}")
    uid = body["localId"]
    user = auth.get_user(uid)
    check([info.provider_id for info in user.provider_data] == ["oidc.sdk-live"], f"its identity: {user.provider_data}")
    auth.update_oidc_provider_config("oidc.sdk-live", enabled=False)
    status, body = client_call("signInWithIdp", fields)
    check(status == 400 and body["error"]["message"].startswith("INVALID_PROVIDER_ID"), f"disabled: {status} {body}")
    auth.delete_oidc_provider_config("oidc.sdk-live")
    status, body = client_call("signInWithIdp", fields)
    check(status == 400 and body["error"]["message"].startswith("INVALID_PROVIDER_ID"), f"deleted: {status} {body}")
    auth.delete_user(uid)


SCENARIOS = [
    create_and_get_by_every_key, create_refusals, get_users_with_every_identifier, list_users_in_pages,
    update_user_fields_and_deletions, custom_claims, revoke_refresh_tokens, revoked_id_tokens,
    admin_calls_on_the_client_paths, delete_user_and_users, import_users_with_scrypt, oidc_provider_configs,
]


if __name__ == "__main__":
    run(SCENARIOS, "firebase-admin")
