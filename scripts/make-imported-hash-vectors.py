#!/usr/bin/env python3
"""Writes Sources/BrokerTesting/ImportedHashVectors.swift: password-hash test vectors made with
implementations independent of the broker's (Python's hashlib and hmac over its own OpenSSL build, the
pure-Python AES of PyPI `pyaes`, and PyPI `bcrypt`, a Rust implementation), for all 13 algorithms of
`firebase auth:import`. The defaults (input order, rounds, MD5's hexadecimal form) are those of Firebase's own
Admin SDK integration tests (firebase-admin-node test/integration/auth.spec.ts), whose fixtures are included.

Run it in a throwaway venv:  python3 -m venv /tmp/v && /tmp/v/bin/pip install pyaes bcrypt &&
/tmp/v/bin/python scripts/make-imported-hash-vectors.py > Sources/BrokerTesting/ImportedHashVectors.swift
Salts and keys are random: rerunning it makes different (equally valid) vectors."""
import base64, hashlib, hmac, os, sys
import bcrypt, pyaes

b64 = lambda b: base64.b64encode(b).decode()
b64url = lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")
vectors = []

def add(name, flags, password, hash_bytes, salt):
    vectors.append((name, flags, password, b64(hash_bytes), b64(salt)))

def firebase_scrypt(password, salt, sep, key, rounds, mem_cost):
    derived = hashlib.scrypt(password.encode(), salt=salt + sep, n=2 ** mem_cost, r=rounds, p=1, dklen=32)
    return pyaes.AESModeOfOperationCTR(derived, counter=pyaes.Counter(0)).encrypt(key)

for (name, password, rounds, mem_cost, key_len, sep) in [
    ("scrypt r8 m10", "correct horse battery staple", 8, 10, 64, b"\x07"),
    ("scrypt r4 m12 unicode", "pässwörd-비밀번호", 4, 12, 64, b"\x01\x02"),
    ("scrypt r1 m1 no separator", "x", 1, 1, 32, b""),
]:
    key, salt = os.urandom(key_len), os.urandom(12)
    flags = {"hashAlgo": "SCRYPT", "hashKey": b64(key), "saltSeparator": b64(sep) if sep else None,
             "rounds": str(rounds), "memCost": str(mem_cost)}
    add(name, flags, password, firebase_scrypt(password, salt, sep, key, rounds, mem_cost), salt)
# The same kind of vector with the flags and the salt in the URL-safe alphabet, unpadded.
key, salt, sep = os.urandom(64), os.urandom(16), b"\xff\xfe"
vectors.append(("scrypt url-safe base64", {"hashAlgo": "scrypt", "hashKey": b64url(key), "saltSeparator": b64url(sep),
                "rounds": "8", "memCost": "11"}, "hunter2",
                b64url(firebase_scrypt("hunter2", salt, sep, key, 8, 11)), b64url(salt)))

for (name, password, n, r, p, dk) in [
    ("standard scrypt n1024 r8 p1", "password", 1024, 8, 1, 64),
    ("standard scrypt n16384 r8 p2 dk32", "another one", 16384, 8, 2, 32),
]:
    salt, sep = os.urandom(16), b"--"
    flags = {"hashAlgo": "STANDARD_SCRYPT", "saltSeparator": b64(sep), "memCost": str(n), "blockSize": str(r),
             "parallelization": str(p), "dkLen": str(dk)}
    add(name, flags, password, hashlib.scrypt(password.encode(), salt=salt + sep, n=n, r=r, p=p, dklen=dk), salt)

for (name, password, cost, prefix) in [
    ("bcrypt 2b cost 4", "bcrypt password", 4, b"2b"),
    ("bcrypt 2a cost 5", "다른 비밀번호", 5, b"2a"),
    ("bcrypt 2b cost 10", "Optional(1234567890)", 10, b"2b"),
]:
    crypt = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=cost, prefix=prefix))
    add(name, {"hashAlgo": "BCRYPT"}, password, crypt, b"")

for (name, algo, password, rounds, dk, sep) in [
    ("pbkdf2 1000 rounds", "PBKDF2_SHA256", "pbkdf2 password", 1000, 32, b""),
    ("pbkdf2 20000 rounds dk64 separator", "PBKDF2_SHA256", "another", 20000, 64, b"\x00"),
    ("pbkdf sha1 1000 rounds", "PBKDF_SHA1", "pbkdf password", 1000, 20, b""),
    ("pbkdf sha1 5000 rounds dk32 separator", "PBKDF_SHA1", "another", 5000, 32, b"\x07"),
]:
    salt, digest = os.urandom(16), algo.split("_")[1].lower()
    flags = {"hashAlgo": algo, "rounds": str(rounds), "saltSeparator": b64(sep) if sep else None}
    add(name, flags, password, hashlib.pbkdf2_hmac(digest, password.encode(), salt + sep, rounds, dk), salt)

def ordered(order, default, password, salt, sep):
    """Salt + separator and the password, in `--hash-input-order` (or the algorithm's default)."""
    return password.encode() + salt + sep if (order or default) == "PASSWORD_FIRST" else salt + sep + password.encode()

# An HMAC's default order is the password first: Firebase's tests hash HMAC(key, password + salt).
for (name, algo, password, order, sep) in [
    ("hmac sha256 password first (default)", "HMAC_SHA256", "hmac password", None, b""),
    ("hmac sha256 salt first", "HMAC_SHA256", "hmac password", "SALT_FIRST", b""),
    ("hmac sha256 password first", "HMAC_SHA256", "hmac password", "PASSWORD_FIRST", b"\x07"),
    ("hmac sha512 (default)", "HMAC_SHA512", "hmac512 password", None, b""),
    ("hmac sha512 salt first separator", "HMAC_SHA512", "비밀번호", "SALT_FIRST", b"--"),
    ("hmac sha1 (default)", "HMAC_SHA1", "hmac1 password", None, b""),
    ("hmac md5 (default)", "HMAC_MD5", "hmac md5 password", None, b""),
    ("hmac md5 salt first", "HMAC_MD5", "hmac md5 password", "SALT_FIRST", b"\x00"),
]:
    key, salt = os.urandom(32), os.urandom(8)
    digest = algo.split("_")[1].lower()
    flags = {"hashAlgo": algo, "hashKey": b64(key), "saltSeparator": b64(sep) if sep else None, "hashInputOrder": order}
    message = ordered(order, "PASSWORD_FIRST", password, salt, sep)
    add(name, flags, password, hmac.new(key, message, digest).digest(), salt)

# A plain digest's default order is the salt first (Firebase's tests: SHA256(salt + password)); `rounds` digests
# in all (MD5's 0 is one), each after the first over the previous digest. MD5 as Firebase keeps it: the text of
# its lowercase hexadecimal digits; its raw 16 bytes are taken too.
def iterated(digest, data, rounds):
    value = hashlib.new(digest, data).digest()
    for _ in range(max(rounds, 1) - 1):
        value = hashlib.new(digest, value).digest()
    return value

for (name, algo, password, rounds, order, sep, hex_form) in [
    ("md5 rounds 0 hex", "MD5", "md5 password", 0, None, b"", True),
    ("md5 rounds 1 raw", "MD5", "md5 password", 1, None, b"", False),
    ("md5 rounds 3 hex password first", "MD5", "md5 password", 3, "PASSWORD_FIRST", b"\x07", True),
    ("sha1 rounds 1", "SHA1", "sha1 password", 1, None, b"", False),
    ("sha1 rounds 2 separator", "SHA1", "sha1 password", 2, None, b"--", False),
    ("sha256 rounds 1", "SHA256", "sha256 password", 1, None, b"", False),
    ("sha256 rounds 8192 password first", "SHA256", "pässwörd", 8192, "PASSWORD_FIRST", b"", False),
    ("sha512 rounds 1", "SHA512", "sha512 password", 1, None, b"", False),
    ("sha512 rounds 100 separator", "SHA512", "sha512 password", 100, "SALT_FIRST", b"\x01", False),
]:
    salt = os.urandom(8)
    value = iterated(algo.lower(), ordered(order, "SALT_FIRST", password, salt, sep), rounds)
    flags = {"hashAlgo": algo, "rounds": str(rounds), "saltSeparator": b64(sep) if sep else None,
             "hashInputOrder": order}
    add(name, flags, password, value.hex().encode() if hex_form else value, salt)

# Firebase's own fixtures (firebase-admin-node test/integration/auth.spec.ts): password "password", salt "NaCl".
add("firebase fixture HMAC_SHA256", {"hashAlgo": "HMAC_SHA256", "hashKey": b64(b"secret")}, "password",
    hmac.new(b"secret", b"passwordNaCl", hashlib.sha256).digest(), b"NaCl")
add("firebase fixture SHA256", {"hashAlgo": "SHA256", "rounds": "1"}, "password",
    hashlib.sha256(b"NaClpassword").digest(), b"NaCl")
add("firebase fixture MD5", {"hashAlgo": "MD5", "rounds": "0"}, "password",
    hashlib.md5(b"NaClpassword").hexdigest().encode(), b"NaCl")
add("firebase fixture PBKDF2_SHA256", {"hashAlgo": "PBKDF2_SHA256", "rounds": "100000"}, "password",
    hashlib.pbkdf2_hmac("sha256", b"password", b"NaCl", 100000, 64), b"NaCl")

def swift(value):
    if value is None:
        return "nil"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

out = sys.stdout
out.write("// Generated by scripts/make-imported-hash-vectors.py (Python hashlib/hmac, PyPI pyaes and bcrypt):\n")
out.write("// independent of the broker's code. Do not edit by hand; rerun the script instead.\n\n")
out.write("/// One imported-hash test vector: the hash flags, a user's password, passwordHash and salt as an export has them.\n")
out.write("public struct ImportedHashVector: Sendable, CustomStringConvertible {\n")
out.write("    /// What the vector shows.\n    public let name: String\n")
out.write("    /// The flags of `broker admin import firebase`, by their names in an export's hash configuration.\n")
out.write("    public let flags: [String: String?]\n")
out.write("    /// The password that verifies.\n    public let password: String\n")
out.write("    /// The user's `passwordHash`, base64.\n    public let passwordHash: String\n")
out.write("    /// The user's `salt`, base64.\n    public let salt: String\n")
out.write("    /// The name, as tests show their arguments.\n    public var description: String { name }\n}\n\n")
out.write("/// The generated vectors.\npublic let importedHashVectors: [ImportedHashVector] = [\n")
for (name, flags, password, hash_b64, salt_b64) in vectors:
    out.write(f"    ImportedHashVector(\n        name: {swift(name)},\n        flags: [\n")
    # swift format's spelling: a trailing comma after each entry of a dictionary of more than one.
    comma = "," if len(flags) > 1 else ""
    for key, value in flags.items():
        out.write(f"            {swift(key)}: {swift(value)}{comma}\n")
    out.write(f"        ],\n        password: {swift(password)},\n        passwordHash: {swift(hash_b64)},\n")
    out.write(f"        salt: {swift(salt_b64)}\n    ),\n")
out.write("]\n")
