#!/usr/bin/env python3
"""Helpers for bench/run: mint provider tokens through the stub's control API, sign in once per body,
read the broker's request counters, write the broker config and a service account. Standard library only,
loopback only, every loop bounded by its input size."""

import argparse
import concurrent.futures
import hashlib
import http.client
import json
import os
import random
import re
import sys
import threading
import urllib.parse

_local = threading.local()


def _connection(base):
    """One keep-alive connection per thread and base URL."""
    url = urllib.parse.urlsplit(base)
    if url.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"benchctl: refusing non-loopback URL {base}")
    key = (url.hostname, url.port)
    cache = getattr(_local, "connections", None)
    if cache is None:
        cache = _local.connections = {}
    if key not in cache:
        cache[key] = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    return cache[key]


def request(base, method, path, body=None, headers=None):
    """Sends one request (retrying once on a dropped keep-alive connection); returns (status, bytes)."""
    payload = None if body is None else json.dumps(body).encode()
    all_headers = {"Content-Type": "application/json"} if payload is not None else {}
    all_headers.update(headers or {})
    for attempt in range(2):
        connection = _connection(base)
        try:
            connection.request(method, path, body=payload, headers=all_headers)
            response = connection.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, ConnectionError, OSError):
            connection.close()
            _local.connections.pop((connection.host, connection.port), None)
            if attempt == 1:
                raise
    raise AssertionError("unreachable")


def parallel(function, items, threads):
    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(function, items))


def mint_token(stub, provider, claims):
    status, body = request(stub, "POST", f"/{provider}/token", {"claims": claims})
    if status != 200:
        raise SystemExit(f"benchctl: minting a {provider} token answered {status}: {body[:200]!r}")
    return json.loads(body)["token"]


def google_claims(subject, email):
    return {"sub": subject, "email": email, "email_verified": True, "name": f"Bench {subject}"}


def cmd_mint(args):
    """Writes one JSON request body per line."""
    rng = random.Random(args.seed)
    kind = args.kind
    if kind == "google-pool":
        # Returning Google users: `count` distinct subjects, one reusable token each.
        items = [(f"g-pool-{i}", f"g-pool-{i}@bench.example") for i in range(args.count)]
        make = lambda item: {"idToken": mint_token(args.stub, "google", google_claims(*item))}
    elif kind == "google-new":
        # New users: a distinct subject (and email) on every token.
        items = [(f"g-new-{args.tag}-{i}", f"g-new-{args.tag}-{i}@bench.example") for i in range(args.count)]
        make = lambda item: {"idToken": mint_token(args.stub, "google", google_claims(*item))}
    elif kind == "google-seeded":
        # Users the seeder wrote straight into the database: `count` distinct ones drawn from `--accounts`.
        picks = rng.sample(range(args.accounts), min(args.count, args.accounts))
        items = [(f"seed-{i:07d}", f"seed{i}@bench.example") for i in picks]
        make = lambda item: {"idToken": mint_token(args.stub, "google", google_claims(*item))}
    elif kind == "apple":
        # Apple: `pool` users, a fresh token (fresh nonce) on every line; each token is single-use.
        def make(i):
            subject = f"a-pool-{i % args.pool}.bench"
            raw_nonce = f"{args.tag}-{i}-{rng.random()}"
            claims = {
                "sub": subject, "email": f"{subject}@privaterelay.appleid.com", "email_verified": "true",
                "nonce": hashlib.sha256(raw_nonce.encode()).hexdigest(),
            }
            return {"identityToken": mint_token(args.stub, "apple", claims), "rawNonce": raw_nonce}
        items = list(range(args.count))
    elif kind == "line-pool":
        # Returning LINE users: `count` distinct user ids, one reusable ES256 ID token each.
        items = [f"U{i:032x}" for i in range(args.count)]
        make = lambda user: {"idToken": mint_token(args.stub, "line", {"sub": user, "name": f"Bench {user[-6:]}"})}
    elif kind == "kakao":
        # Kakao users registered with the stub; access tokens are reusable.
        def make(i):
            user = {"id": 5_000_000_000 + i, "email": f"k{i}@bench.example", "nickname": f"bench{i}"}
            status, body = request(args.stub, "POST", "/kakao/users", user)
            if status != 200:
                raise SystemExit(f"benchctl: registering a Kakao user answered {status}")
            return {"accessToken": json.loads(body)["accessToken"]}
        items = list(range(args.count))
    else:
        raise SystemExit(f"benchctl: unknown kind {kind}")
    bodies = parallel(make, items, args.threads)
    with open(args.out, "w") as out:
        for body in bodies:
            out.write(json.dumps(body, separators=(",", ":")) + "\n")


def cmd_signin(args):
    """POSTs every body of a file once (creating the accounts of a pool, warming the caches); optionally
    writes the broker ID tokens it got back, one per line. Fails unless every answer is 200 or 201."""
    with open(args.bodies) as handle:
        bodies = [json.loads(line) for line in handle if line.strip()][: args.limit or None]

    def sign_in(body):
        status, answer = request(args.broker, "POST", args.path, body)
        token = json.loads(answer).get("idToken") if status in (200, 201) else None
        return status, token

    results = parallel(sign_in, bodies, args.threads)
    statuses = {}
    for status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    if set(statuses) - {200, 201}:
        raise SystemExit(f"benchctl: warm-up sign-ins answered {statuses}")
    if args.id_tokens:
        with open(args.id_tokens, "w") as out:
            for _, token in results:
                out.write(token + "\n")
    print(json.dumps({str(k): v for k, v in sorted(statuses.items())}))


PEER_CLIENT_ID = "stub-client.apps.googleusercontent.com"  # the stub's Google audience, allauth's app client_id


def cmd_peer_bodies(args):
    """The peer's request bodies (allauth headless `provider/token`) for the same ID tokens as a broker pool file."""
    with open(args.bodies) as handle, open(args.out, "w") as out:
        for line in handle:
            if line.strip():
                token = {"client_id": PEER_CLIENT_ID, "id_token": json.loads(line)["idToken"]}
                body = {"provider": "google", "process": "login", "token": token}
                out.write(json.dumps(body, separators=(",", ":")) + "\n")


def _jwt_part(token, index):
    import base64
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def cmd_peer_check(args):
    """Checks that the peer really signs the pool's users in: every one of the first `--limit` bodies, sent twice,
    answers 200 with an RS256 access token and a refresh token for the same user both times, and different bodies
    are different users. Prints what it saw as JSON; exits non-zero otherwise."""
    with open(args.bodies) as handle:
        bodies = [json.loads(line) for line in handle if line.strip()][: args.limit]
    users = {}
    for body in bodies:
        seen = []
        for _ in range(2):
            status, answer = request(args.peer, "POST", args.path, body)
            if status != 200:
                raise SystemExit(f"benchctl: the peer answered {status}: {answer[:300]!r}")
            reply = json.loads(answer)
            meta, user = reply.get("meta", {}), reply.get("data", {}).get("user", {})
            access, refresh = meta.get("access_token"), meta.get("refresh_token")
            if not (meta.get("is_authenticated") and access and refresh and user.get("id") is not None):
                raise SystemExit(f"benchctl: the peer's 200 is not a sign-in: {answer[:300]!r}")
            for token in (access, refresh):
                if _jwt_part(token, 0).get("alg") != "RS256":
                    raise SystemExit("benchctl: the peer's token is not an RS256 JWT")
            if str(_jwt_part(access, 1).get("sub")) != str(user["id"]):
                raise SystemExit("benchctl: the peer's access token is for another user")
            seen.append(user["id"])
        if seen[0] != seen[1]:
            raise SystemExit(f"benchctl: the peer signed one ID token in as two users {seen}")
        users[body["token"]["id_token"][-12:]] = seen[0]
    if len(set(users.values())) != len(users):
        raise SystemExit("benchctl: the peer signed different Google users in as one")
    print(json.dumps({"checked": len(bodies), "signins": 2 * len(bodies), "distinct_users": len(set(users.values())),
                      "tokens": "RS256 access + refresh"}))


def cmd_count(args):
    """Prints the broker's request counter for one route: total, and per status."""
    status, body = request(args.broker, "GET", "/metrics")
    if status != 200:
        raise SystemExit(f"benchctl: /metrics answered {status}")
    pattern = re.compile(r'^broker_http_requests_total\{(?P<labels>.*)\} (?P<value>\S+)$')
    per_status = {}
    for line in body.decode().splitlines():
        match = pattern.match(line)
        if not match:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group("labels")))
        if labels.get("route") == args.route:
            code = labels.get("status", "?")
            per_status[code] = per_status.get(code, 0) + int(float(match.group("value")))
    print(json.dumps({"total": sum(per_status.values()), "status": per_status}))


def cmd_get(args):
    """One request; prints the status and the body."""
    body = json.loads(args.body) if args.body else None
    headers = dict(h.split(": ", 1) for h in args.header)
    status, answer = request(args.base, args.method, args.path, body, headers)
    print(status)
    sys.stdout.write(answer.decode(errors="replace") + "\n")


def cmd_timed(args):
    """Runs a command and prints its wall time, CPU time and peak RSS (the kernel's ru_maxrss, KiB) as JSON;
    its stdout and stderr go to files."""
    import subprocess
    import time
    with open(args.stdout, "wb") as out, open(args.stderr, "wb") as err:
        started = time.monotonic()
        child = subprocess.Popen(args.argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    print(json.dumps({"seconds": seconds, "status": child.returncode, "peak_rss_kib": usage.ru_maxrss,
                      "cpu_seconds": usage.ru_utime + usage.ru_stime}))


def cmd_burst(args):
    """Sends every body once, `--concurrency` at a time, all connections opened and released together; prints
    the count, wall time, rate and latency percentiles of the burst as JSON."""
    import time
    with open(args.bodies) as handle:
        bodies = [json.loads(line) for line in handle if line.strip()]
    if not bodies:
        raise SystemExit("benchctl: no bodies for the burst")
    lock = threading.Lock()
    queue = list(reversed(bodies))
    barrier = threading.Barrier(args.concurrency)
    latencies, statuses = [], {}

    def worker(_):
        _connection(args.broker).connect()  # connected before the burst starts
        barrier.wait()
        while True:
            with lock:
                if not queue:
                    return
                body = queue.pop()
            started = time.monotonic()
            status, _ = request(args.broker, "POST", args.path, body)
            elapsed = time.monotonic() - started
            with lock:
                latencies.append(elapsed)
                statuses[str(status)] = statuses.get(str(status), 0) + 1

    started = time.monotonic()
    parallel(worker, range(args.concurrency), args.concurrency)
    seconds = time.monotonic() - started
    ordered = sorted(latencies)

    def percentile(p):
        return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))] * 1000

    print(json.dumps({"requests": len(ordered), "seconds": seconds, "rate": len(ordered) / seconds,
                      "p50_ms": percentile(50), "p99_ms": percentile(99), "max_ms": ordered[-1] * 1000,
                      "statuses": statuses}))


def totp(secret, step, digits=6):
    """RFC 6238's code of `secret` (base32, no padding) for time step `step` (HMAC-SHA1, as the broker checks)."""
    import base64
    import hmac
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, step.to_bytes(8, "big"), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = int.from_bytes(digest[offset:offset + 4], "big") & 0x7FFFFFFF
    return str(number % 10 ** digits).zfill(digits)


def current_step(period=30):
    import time
    return int(time.time() // period)


def cmd_mfa_users(args):
    """Scenario 13's users: `--count` email and password accounts, each with an authenticator app enrolled
    (`POST /v1/me/mfa/totp` and `/verify` with a code computed here); one JSON line per user (email, password,
    secret, factorId) in `--out`."""
    def enrol(index):
        email, password = f"mfa-{args.tag}-{index}@bench.example", f"bench-password-{index}"
        status, body = request(args.broker, "POST", "/v1/signup", {"email": email, "password": password})
        if status not in (200, 201):
            raise SystemExit(f"benchctl: sign-up answered {status}: {body[:200]!r}")
        bearer = {"Authorization": "Bearer " + json.loads(body)["idToken"]}
        status, body = request(args.broker, "POST", "/v1/me/mfa/totp", {}, bearer)
        if status != 200:
            raise SystemExit(f"benchctl: enrolment answered {status}: {body[:200]!r}")
        started = json.loads(body)
        code = totp(started["secret"], current_step())
        status, body = request(args.broker, "POST", "/v1/me/mfa/totp/verify",
                               {"enrollmentId": started["enrollmentId"], "code": code}, bearer)
        if status != 200:
            raise SystemExit(f"benchctl: verifying the enrolment answered {status}: {body[:200]!r}")
        return {"email": email, "password": password, "secret": started["secret"],
                "factorId": json.loads(body)["factor"]["factorId"]}

    users = parallel(enrol, range(args.count), args.threads)
    with open(args.out, "w") as out:
        for user in users:
            out.write(json.dumps(user) + "\n")


def cmd_mfa_bodies(args):
    """Scenario 13's bodies: every user of `--users` signs in with its password (answered 401 `MFA_REQUIRED`,
    required of each), then one `POST /v1/signin/mfa` body per user, its code that of the next time step (so it
    is later than the enrolment's and stays valid for 30 to 60 s), computed once every pending credential is in."""
    with open(args.users) as handle:
        users = [json.loads(line) for line in handle if line.strip()]

    def hold(user):
        status, body = request(args.broker, "POST", "/v1/signin/password",
                               {"email": user["email"], "password": user["password"]})
        error = json.loads(body).get("error", {}) if status == 401 else {}
        if error.get("code") != "MFA_REQUIRED":
            raise SystemExit(f"benchctl: the password sign-in answered {status}: {body[:200]!r}")
        return error["mfaPendingCredential"]

    pending = parallel(hold, users, args.threads)
    step = current_step() + 1
    with open(args.out, "w") as out:
        for user, credential in zip(users, pending):
            body = {"mfaPendingCredential": credential, "factorId": user["factorId"],
                    "code": totp(user["secret"], step)}
            out.write(json.dumps(body, separators=(",", ":")) + "\n")


def cmd_sessions(args):
    """Row 1r's bodies: `--count` sign-ins with the bodies of `--bodies` in turn (a returning user signs in again
    and again), each a new session; one `{"refreshToken"}` body per line, each to be sent once."""
    with open(args.bodies) as handle:
        bodies = [json.loads(line) for line in handle if line.strip()]

    def sign_in(index):
        status, answer = request(args.broker, "POST", args.path, bodies[index % len(bodies)])
        if status != 200:
            raise SystemExit(f"benchctl: a sign-in for a refresh token answered {status}: {answer[:200]!r}")
        return json.loads(answer)["refreshToken"]

    tokens = parallel(sign_in, range(args.count), args.threads)
    with open(args.out, "w") as out:
        for token in tokens:
            out.write(json.dumps({"refreshToken": token}, separators=(",", ":")) + "\n")


# Row 14: a passkey authenticator in software (what Sources/BrokerTesting/TestAuthenticator.swift does for the
# tests), its ES256 keys and signatures from Python's `cryptography` (python3-cryptography, system-wide on Debian).
PASSKEY_RP_ID = "localhost"
PASSKEY_ORIGIN = "http://localhost"


def _cryptography():
    try:
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
    except ImportError:
        raise SystemExit("benchctl: row 14 needs Python's cryptography package (apt-get install -y "
                         "python3-cryptography) to sign passkey assertions")
    return hashes, serialization, ec


def _b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64url(text):
    import base64
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _cbor(value):
    """The CBOR encoding of ints, bytes, text and dicts (what an attestation object and a COSE key hold)."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | extra]) + n.to_bytes(size, "big")
        raise ValueError("too large")
    if isinstance(value, bool):
        raise TypeError("no booleans")
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(_cbor(k) + _cbor(v) for k, v in value.items())
    raise TypeError(f"no CBOR for {type(value)}")


def _authenticator_data(flags, sign_count, attested=b""):
    return (hashlib.sha256(PASSKEY_RP_ID.encode()).digest() + bytes([flags]) + sign_count.to_bytes(4, "big")
            + attested)


def _client_data(kind, challenge):
    return json.dumps({"type": kind, "challenge": challenge, "origin": PASSKEY_ORIGIN, "crossOrigin": False},
                      separators=(",", ":")).encode()


def cmd_passkey_users(args):
    """Row 14's users: `--count` passwordless sign-ups (`POST /v1/signup/passkey/options` and `/v1/signup/passkey`),
    each with a new ES256 credential; one JSON line per user (credential id, user handle, private key) in `--out`."""
    _, serialization, ec = _cryptography()

    def sign_up(index):
        status, body = request(args.broker, "POST", "/v1/signup/passkey/options", {})
        if status != 200:
            raise SystemExit(f"benchctl: passkey sign-up options answered {status}: {body[:200]!r}")
        options = json.loads(body)["publicKey"]
        key = ec.generate_private_key(ec.SECP256R1())
        numbers = key.public_key().public_numbers()
        credential_id = os.urandom(16)
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        attested = bytes(16) + len(credential_id).to_bytes(2, "big") + credential_id + _cbor(cose)
        auth_data = _authenticator_data(0x45, 0, attested)  # UP, UV, AT; counter 0 (a passkey that does not count)
        attestation = _cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = _client_data("webauthn.create", options["challenge"])
        credential = {
            "id": _b64url(credential_id), "rawId": _b64url(credential_id), "type": "public-key",
            "response": {"clientDataJSON": _b64url(client_data), "attestationObject": _b64url(attestation),
                         "transports": ["internal"]},
            "authenticatorAttachment": "platform", "clientExtensionResults": {},
        }
        status, body = request(args.broker, "POST", "/v1/signup/passkey", {"credential": credential})
        if status != 201:
            raise SystemExit(f"benchctl: the passkey sign-up answered {status}: {body[:200]!r}")
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
        return {"credentialId": _b64url(credential_id), "userHandle": options["user"]["id"], "key": pem}

    users = parallel(sign_up, range(args.count), args.threads)
    with open(args.out, "w") as out:
        for user in users:
            out.write(json.dumps(user) + "\n")


def cmd_passkey_bodies(args):
    """Row 14's bodies: for every user of `--users`, the options of a discoverable sign-in (`POST
    /v1/signin/passkey/options`, a challenge each) and the assertion answering it, signed here; one `POST
    /v1/signin/passkey` body per line, each to be sent once (its challenge is single-use, valid 5 minutes)."""
    hashes, serialization, ec = _cryptography()
    with open(args.users) as handle:
        users = [json.loads(line) for line in handle if line.strip()]

    def assert_(user):
        status, body = request(args.broker, "POST", "/v1/signin/passkey/options", {})
        if status != 200:
            raise SystemExit(f"benchctl: passkey sign-in options answered {status}: {body[:200]!r}")
        challenge = json.loads(body)["publicKey"]["challenge"]
        key = serialization.load_pem_private_key(user["key"].encode(), password=None)
        auth_data = _authenticator_data(0x05, 0)  # UP, UV
        client_data = _client_data("webauthn.get", challenge)
        signature = key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        response = {"clientDataJSON": _b64url(client_data), "authenticatorData": _b64url(auth_data),
                    "signature": _b64url(signature), "userHandle": user["userHandle"]}
        credential = {"id": user["credentialId"], "rawId": user["credentialId"], "type": "public-key",
                      "response": response, "authenticatorAttachment": "platform", "clientExtensionResults": {}}
        return {"credential": credential}

    bodies = parallel(assert_, users, args.threads)
    with open(args.out, "w") as out:
        for body in bodies:
            out.write(json.dumps(body, separators=(",", ":")) + "\n")


def cmd_config(args):
    """The broker config for the stubs at `--stub` (the shape of StubProviders.brokerConfig)."""
    base = args.stub
    config = {
        "projectId": "stub-project",
        "issuer": "http://127.0.0.1:8080",
        "clockSkewSeconds": 60,
        "allowInsecureProviderUrls": True,
        "providers": {
            "google": {
                "enabled": True, "audiences": ["stub-client.apps.googleusercontent.com"],
                "issuers": ["https://accounts.google.com", "accounts.google.com"], "jwksUrl": base + "/google/jwks",
            },
            "apple": {
                "enabled": True, "audiences": ["com.example.stub"],
                "issuers": ["https://appleid.apple.com", "https://account.apple.com"],
                "jwksUrl": base + "/apple/jwks", "nonce": "required",
            },
            "kakao": {
                "enabled": True, "appId": "123456", "apiBaseUrl": base + "/kakao",
                "audiences": ["stub-kakao-rest-api-key", "stub-kakao-native-app-key"],
                "issuers": ["https://kauth.kakao.com"], "jwksUrl": base + "/kakao/jwks", "accountMapping": "link",
            },
        },
        "linking": {"byVerifiedEmail": False},
        "sessions": {"idTokenTtlSeconds": 3600, "refreshTokenTtlDays": 30},
        # Scenario 10 makes guests from one address: the per-address limit set as high as it goes.
        "anonymous": {"enabled": True, "maxPerAddressPerHour": 100000},
        # wrk drives the broker from one address with up to BENCH_KAKAO_CONNECTIONS (200) connections, past
        # the default per-address cap of 64 (docs/hardening.md).
        "server": {"maxConnectionsPerAddress": 1024},
    }
    if args.service_account:  # every session body then carries a custom token (RSA); without: rows 1n, 1r, 1m
        config["firebase"] = {"serviceAccountFile": args.service_account}
    if args.passkeys:  # row 14: the software authenticator of cmd_passkey_users, signing its users up from one
        # address: the per-address limit on passwordless sign-ups set as high as it goes.
        config["passkeys"] = {
            "enabled": True, "rpId": PASSKEY_RP_ID, "origins": [PASSKEY_ORIGIN], "maxSignUpsPerAddressPerHour": 100000,
        }
    # LINE (StubProviders.lineChannelID): the stub mints its ES256 ID tokens (scenario 9).
    config["providers"]["line"] = {
        "enabled": True, "channelId": "1650000000", "apiBaseUrl": base + "/line",
        "jwksUrl": base + "/line/oauth2/v2.1/certs",
    }
    with open(args.out, "w") as out:
        json.dump(config, out, indent=2)


def cmd_service_account(args):
    """A Google service-account JSON around an RSA private key PEM."""
    with open(args.pem) as handle:
        pem = handle.read()
    account = {
        "type": "service_account", "project_id": "stub-project", "private_key_id": "bench-key-1",
        "private_key": pem, "client_email": "firebase-adminsdk-bench@stub-project.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token",
    }
    with open(args.out, "w") as out:
        json.dump(account, out)
    os.chmod(args.out, 0o600)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)

    mint = sub.add_parser("mint")
    mint.add_argument("--stub", required=True)
    mint.add_argument("--kind", required=True)
    mint.add_argument("--count", type=int, required=True)
    mint.add_argument("--pool", type=int, default=1000)
    mint.add_argument("--accounts", type=int, default=1000)
    mint.add_argument("--tag", default="run")
    mint.add_argument("--seed", type=int, default=5)
    mint.add_argument("--threads", type=int, default=4)
    mint.add_argument("--out", required=True)
    mint.set_defaults(run=cmd_mint)

    signin = sub.add_parser("signin")
    signin.add_argument("--broker", required=True)
    signin.add_argument("--path", required=True)
    signin.add_argument("--bodies", required=True)
    signin.add_argument("--limit", type=int, default=0)
    signin.add_argument("--threads", type=int, default=4)
    signin.add_argument("--id-tokens")
    signin.set_defaults(run=cmd_signin)

    peer_bodies = sub.add_parser("peer-bodies")
    peer_bodies.add_argument("--bodies", required=True)
    peer_bodies.add_argument("--out", required=True)
    peer_bodies.set_defaults(run=cmd_peer_bodies)

    peer_check = sub.add_parser("peer-check")
    peer_check.add_argument("--peer", required=True)
    peer_check.add_argument("--path", required=True)
    peer_check.add_argument("--bodies", required=True)
    peer_check.add_argument("--limit", type=int, default=5)
    peer_check.set_defaults(run=cmd_peer_check)

    count = sub.add_parser("count")
    count.add_argument("--broker", required=True)
    count.add_argument("--route", required=True)
    count.set_defaults(run=cmd_count)

    get = sub.add_parser("request")
    get.add_argument("--base", required=True)
    get.add_argument("--method", default="GET")
    get.add_argument("--path", required=True)
    get.add_argument("--body")
    get.add_argument("--header", action="append", default=[])
    get.set_defaults(run=cmd_get)

    config = sub.add_parser("config")
    config.add_argument("--stub", required=True)
    config.add_argument("--service-account", help="none: no custom tokens (rows 1n, 1r, 1m)")
    config.add_argument("--passkeys", action="store_true", help="passkeys enabled (row 14)")
    config.add_argument("--out", required=True)
    config.set_defaults(run=cmd_config)

    account = sub.add_parser("service-account")
    account.add_argument("--pem", required=True)
    account.add_argument("--out", required=True)
    account.set_defaults(run=cmd_service_account)

    timed = sub.add_parser("timed")
    timed.add_argument("--stdout", required=True)
    timed.add_argument("--stderr", required=True)
    timed.add_argument("argv", nargs="+")
    timed.set_defaults(run=cmd_timed)

    mfa_users = sub.add_parser("mfa-users")
    mfa_users.add_argument("--broker", required=True)
    mfa_users.add_argument("--count", type=int, required=True)
    mfa_users.add_argument("--tag", default="run")
    mfa_users.add_argument("--threads", type=int, default=4)
    mfa_users.add_argument("--out", required=True)
    mfa_users.set_defaults(run=cmd_mfa_users)

    mfa_bodies = sub.add_parser("mfa-bodies")
    mfa_bodies.add_argument("--broker", required=True)
    mfa_bodies.add_argument("--users", required=True)
    mfa_bodies.add_argument("--threads", type=int, default=4)
    mfa_bodies.add_argument("--out", required=True)
    mfa_bodies.set_defaults(run=cmd_mfa_bodies)

    sessions = sub.add_parser("sessions")
    sessions.add_argument("--broker", required=True)
    sessions.add_argument("--path", required=True)
    sessions.add_argument("--bodies", required=True)
    sessions.add_argument("--count", type=int, required=True)
    sessions.add_argument("--threads", type=int, default=4)
    sessions.add_argument("--out", required=True)
    sessions.set_defaults(run=cmd_sessions)

    passkey_users = sub.add_parser("passkey-users")
    passkey_users.add_argument("--broker", required=True)
    passkey_users.add_argument("--count", type=int, required=True)
    passkey_users.add_argument("--threads", type=int, default=4)
    passkey_users.add_argument("--out", required=True)
    passkey_users.set_defaults(run=cmd_passkey_users)

    passkey_bodies = sub.add_parser("passkey-bodies")
    passkey_bodies.add_argument("--broker", required=True)
    passkey_bodies.add_argument("--users", required=True)
    passkey_bodies.add_argument("--threads", type=int, default=4)
    passkey_bodies.add_argument("--out", required=True)
    passkey_bodies.set_defaults(run=cmd_passkey_bodies)

    burst = sub.add_parser("burst")
    burst.add_argument("--broker", required=True)
    burst.add_argument("--path", required=True)
    burst.add_argument("--bodies", required=True)
    burst.add_argument("--concurrency", type=int, default=50)
    burst.set_defaults(run=cmd_burst)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
