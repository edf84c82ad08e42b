#!/usr/bin/env python3
"""Prints the ES256 test vectors of Tests/BrokerCryptoTests/ES256VectorTests.swift, made with Python's
`cryptography` package (independent of the broker's OpenSSL code): a P-256 key, a message, its signature in
JOSE form (r || s), the same signature with s replaced by n - s (high-S), and a P-384 key for the JWK tests.
Run: python3 scripts/make-es256-vectors.py"""
import base64
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


key = ec.generate_private_key(ec.SECP256R1())
numbers = key.public_key().public_numbers()
message = b"eyJhbGciOiJFUzI1NiIsImtpZCI6InYxIn0.eyJzdWIiOiJVMTIzIn0"
r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
high = r.to_bytes(32, "big") + (N - s).to_bytes(32, "big")
p384 = ec.generate_private_key(ec.SECP384R1()).public_key().public_numbers()
print("x", b64url(numbers.x.to_bytes(32, "big")))
print("y", b64url(numbers.y.to_bytes(32, "big")))
print("message", message.decode())
print("signature", b64url(raw))
print("highS", b64url(high))
print("p384x", b64url(p384.x.to_bytes(48, "big")))
print("p384y", b64url(p384.y.to_bytes(48, "big")))
