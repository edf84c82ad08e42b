#!/usr/bin/env python3
"""Reads `perf script -F comm,tid,period,ip,sym,dso | swift demangle --simplified` of the broker (recorded with
`--call-graph dwarf`) and splits the samples into where the time goes: the crypto floor, what OpenSSL spends around
it, and everything that is not crypto. Each sample goes to the first category whose test matches its stack (leaf
first). Prints a Markdown table; with --per-request-us N also the microseconds per request of each category."""

import argparse
import collections
import re
import sys


def has(stack, *needles):
    return any(needle in frame for frame in stack for needle in needles)


def leaf_dso(stack, dso):
    return bool(stack) and dso in stack[0]


# OpenSSL calls around an operation that `openssl speed` does not time: context set-up and copies, hashing the
# message, the JOSE/DER signature conversion.
SETUP = ("EVP_MD_CTX_copy_ex", "EVP_MD_CTX_new", "EVP_MD_CTX_free", "EVP_DigestSignInit", "EVP_DigestVerifyInit",
         "EVP_DigestSignUpdate", "EVP_DigestVerifyUpdate", "EVP_PKEY_get_size", "CRYPTO_THREAD", "ECDSA_SIG",
         "BN_bn2binpad", "BN_bin2bn", "ECDSASignature", "OPENSSL_LH", "EVP_MD_fetch")


def above_handler(stack):
    """The frames leaf-side of the handler's job: since the handlers run on libmicrohttpd's threads (inside its
    access handler, MHDRequestContext.runJobs), every handler stack has libmicrohttpd below it; only what runs
    above the job (or outside any job) is the HTTP server's."""
    for index, frame in enumerate(stack):
        if "runSynchronously" in frame or "MHDRequestContext.runJobs" in frame:
            return stack[:index]
    return stack


def crypto(stack, operation):
    return has(stack, operation) and leaf_dso(stack, "libcrypto") and not has(stack, *SETUP)


# (category, test) in priority order. `stack` is a list of "symbol (dso)" strings, leaf first.
CATEGORIES = [
    # The floor: what OpenSSL does inside the operation itself (openssl speed signs and verifies a ready digest).
    ("crypto: RSA-2048 sign (custom token)", lambda s: crypto(s, "RSAPrivateKey.signSHA256")),
    ("crypto: ES256 sign (ID token)", lambda s: crypto(s, "P256PrivateKey.signSHA256")),
    ("crypto: RS256 verify (provider token)", lambda s: crypto(s, "RSAPublicKey.verifySHA256")),
    ("crypto: ES256 verify", lambda s: crypto(s, "P256PublicKey.verifySHA256")),
    # Kernel time that belongs to no operation: a thread going to sleep, being woken (a reschedule IPI in a VM)
    # or switched in, and interrupts landing on top of whatever ran. Before the categories below, which would
    # otherwise take these samples by the user stack they interrupted (a crypto call, a commit's fdatasync).
    ("thread switches and wake-ups (kernel: scheduler, reschedule IPIs)",
     lambda s: leaf_dso(s, "kernel") and has(s, "finish_task_switch", "__schedule", "asm_sysvec_reschedule_ipi",
                                             "try_to_wake_up", "irqentry_exit_to_user_mode")),
    ("interrupts (kernel: device, timer, softirq)",
     lambda s: leaf_dso(s, "kernel") and has(s, "asm_common_interrupt", "asm_sysvec_apic_timer_interrupt",
                                             "handle_softirqs")),
    ("OpenSSL around sign/verify (contexts, hashing the message, DER, allocations)",
     lambda s: has(s, "EVPKey.signSHA256", "EVPKey.verifySHA256", "ECDSASignature", "P256PublicKey.verify")),
    ("SQLite commit: fdatasync", lambda s: has(s, "fdatasync", "fsync")),
    ("SQLite commit: WAL write", lambda s: has(s, "sqlite3WalFrames", "sqlite3PagerCommitPhaseOne")),
    ("SQLite statements", lambda s: has(s, "libsqlite3")),
    ("SQLite driver (Swift side: rows, binds, queue hops)", lambda s: has(s, "SQLiteConnection", "SQLiteWorker", "SQLiteDatabase")),
    ("JSON parsing (JSONParser / JSONDecoder)", lambda s: has(s, "JSONParser", "JSONDecoder", "JSONValue.init(from:)")),
    ("JSON encoding (JSONValue.serialized)", lambda s: has(s, "JSONEncoder", "JSONValue.encode(to:)", "JSONValue.serialized", "JSONValue.write(into:")),
    ("date formatting (ISO 8601)", lambda s: has(s, "ISO8601FormatStyle", "Date.formatted", "rfc3339")),
    ("logging (Logger.log, stderr write)", lambda s: has(s, "Logger.log", "StandardErrorLogSink")),
    ("metrics", lambda s: has(s, "Metrics.increment", "Metrics.observe")),
    ("base64url / hex / random", lambda s: has(s, "Base64URL", "Hex.encode", "SecureRandom", "AccountID.generate")),
    ("HTTP server (libmicrohttpd, socket I/O)", lambda s: has(above_handler(s), "libmicrohttpd", "mhd", "MHD")),
    ("HTTP client (libcurl)", lambda s: has(s, "libcurl", "Curl")),
    ("OpenSSL other (outside sign/verify)", lambda s: leaf_dso(s, "libcrypto")),
    ("other kernel (syscalls, interrupts, network)", lambda s: leaf_dso(s, "kernel")),
    ("Swift concurrency / dispatch runtime",
     lambda s: leaf_dso(s, "libswift_Concurrency") or leaf_dso(s, "libdispatch")),
    ("malloc / free / ARC (elsewhere)",
     lambda s: bool(s) and re.search(r"\b(malloc|free|cfree|_int_malloc|_int_free|swift_retain|swift_release|"
                                     r"swift_allocObject|swift_bridgeObject)", s[0]) is not None),
    ("other (Swift code, Foundation, libc)", lambda s: True),
]


def samples(stream):
    stack, period = [], 0
    header = re.compile(r"^\S.*\s(\d+)\s*$")
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip():
            if stack or period:
                yield period, stack
            stack, period = [], 0
        elif line.startswith("\t") or line.startswith(" "):
            parts = line.strip().split(" ", 1)
            stack.append(parts[1] if len(parts) > 1 else parts[0])
        else:
            match = header.match(line)
            period = int(match.group(1)) if match else 1
    if stack or period:
        yield period, stack


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-request-us", type=float, default=0,
                        help="broker CPU per request measured in the same run, to print µs per category")
    args = parser.parse_args()
    totals = collections.Counter()
    for period, stack in samples(sys.stdin):
        for name, test in CATEGORIES:
            if test(stack):
                totals[name] += period or 1
                break
    grand = sum(totals.values()) or 1
    print("| where the broker's CPU goes | share |" + (" µs/request |" if args.per_request_us else ""))
    print("|---|--:|" + ("--:|" if args.per_request_us else ""))
    for name, _ in CATEGORIES:
        if totals[name]:
            share = totals[name] / grand
            extra = f" {share * args.per_request_us:.0f} |" if args.per_request_us else ""
            print(f"| {name} | {share:.1%} |{extra}")


if __name__ == "__main__":
    main()
