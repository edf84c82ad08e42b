#!/usr/bin/env python3
"""Writes a `firebase auth:export --format=json` file for bench/run's import scenarios (7 and 8): COUNT users
with Firebase scrypt password hashes in the shape a real project's export has (64-byte signer key, salt
separator `Bw==`, rounds 8, mem_cost 14, as the console's "Password hash parameters" show; 10-byte salts), a
third of them with a Google identity, a tenth with custom claims. The first REAL users' hashes are real (their
passwords verify); the others are random bytes of the right length, since an import only checks a hash's shape
and computing 100,000 real ones would take hours. Also writes the hash flags for `broker admin import` (one per
line) and the real users' sign-in bodies. Standard library only, plus `openssl enc` for AES-256-CTR."""

import argparse
import base64
import hashlib
import json
import os
import random
import subprocess

ROUNDS, MEM_COST, SEPARATOR = 8, 14, b"\x07"


def firebase_scrypt(password, salt, signer_key):
    """Firebase's modified scrypt: scrypt(password, salt + separator, 2^14, 8, 1, 32) keys AES-256-CTR (zero IV)
    over the signer key."""
    key = hashlib.scrypt(password.encode(), salt=salt + SEPARATOR, n=1 << MEM_COST, r=ROUNDS, p=1, dklen=32,
                         maxmem=64 * 1024 * 1024)
    result = subprocess.run(
        ["openssl", "enc", "-aes-256-ctr", "-K", key.hex(), "-iv", "0" * 32, "-nosalt"],
        input=signer_key, capture_output=True, check=True)
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--real", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--flags", required=True)
    parser.add_argument("--bodies", required=True)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    signer_key = bytes(rng.getrandbits(8) for _ in range(64))
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    b64 = lambda data: base64.b64encode(data).decode()
    with open(args.out, "w") as out, open(args.bodies, "w") as bodies:
        out.write('{"users": [\n')
        for index in range(args.count):
            uid = "".join(rng.choice(alphabet) for _ in range(28))
            email = f"user{index}@bench.example"
            salt = bytes(rng.getrandbits(8) for _ in range(10))
            if index < args.real:
                password = f"bench-password-{index}"
                digest = firebase_scrypt(password, salt, signer_key)
                bodies.write(json.dumps({"email": email, "password": password}, separators=(",", ":")) + "\n")
            else:
                digest = bytes(rng.getrandbits(8) for _ in range(64))
            millis = str(1_500_000_000_000 + index * 1000)
            user = {
                "localId": uid, "email": email, "emailVerified": index % 2 == 0, "passwordHash": b64(digest),
                "salt": b64(salt), "displayName": f"Bench User {index}", "createdAt": millis,
                "lastSignedInAt": millis,
                "providerUserInfo": [{"providerId": "password", "rawId": email, "email": email}],
            }
            if index % 3 == 0:
                user["providerUserInfo"].append({"providerId": "google.com", "rawId": f"g-{index}", "email": email})
            if index % 10 == 0:
                user["customAttributes"] = json.dumps({"plan": "pro", "n": index})
            out.write(("," if index else "") + json.dumps(user, separators=(",", ":")) + "\n")
        out.write("]}\n")
    with open(args.flags, "w") as flags:
        for flag in ("--hash-algo", "SCRYPT", "--hash-key", b64(signer_key), "--salt-separator", b64(SEPARATOR),
                     "--rounds", str(ROUNDS), "--mem-cost", str(MEM_COST)):
            flags.write(flag + "\n")
    os.chmod(args.out, 0o600)


if __name__ == "__main__":
    main()
