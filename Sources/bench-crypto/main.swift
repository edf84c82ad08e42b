import BrokerCrypto
import Foundation

// `bench-crypto [--seconds S]`: the broker's own crypto calls (BrokerCrypto, as a sign-in makes them), one thread,
// each run for S seconds; prints one JSON object of operations per second of CPU time (of the thread; `openssl speed`
// divides by user CPU time too). bench/run sets these beside `openssl speed`, whose figures are the floor: the
// difference is what BrokerCrypto adds around OpenSSL.
//
// `bench-crypto --signin-interval-us N [--seconds S]`: a returning Google sign-in's cryptography (the provider
// token's RSA-2048 verification, the custom token's RSA-2048 signature, the ID token's ES256 signature) once every
// N µs of wall time for S seconds, the thread sleeping in between as a server's threads idle between requests below
// their full rate (N = 0: back to back); prints the thread's CPU µs per sign-in's cryptography. bench/run compares
// the two at row 1b's rate: the same instructions cost more CPU time on a core that idles between them.

/// CPU seconds the calling thread has used so far.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Calls `operation` repeatedly for about `seconds` of wall time (at most 10 million times); returns calls per
/// second of the thread's CPU time.
func rate(seconds: Double, _ operation: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    let cpuStart = threadCPUSeconds()
    var count = 0
    while count < 10_000_000 {
        for _ in 0..<16 { try operation() }
        count += 16
        if clock.now >= deadline { break }
    }
    return Double(count) / max(threadCPUSeconds() - cpuStart, 1e-6)
}

/// Calls `operation` once every `intervalMicroseconds` of wall time (the thread asleep until each call's turn; 0:
/// back to back) for about `seconds` (at most 10 million calls); returns the thread's CPU µs per call, counting the
/// calls only, and how many calls were made. When a call overruns the next one's turn, that one runs at once and
/// the turns go on from it (no catching up on the turns missed).
func paced(seconds: Double, intervalMicroseconds: Int, _ operation: () throws -> Void) rethrows -> (Double, Int) {
    func monotonicNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
    let interval = intervalMicroseconds * 1000
    let deadline = monotonicNanoseconds() + Int(seconds * 1e9)
    var next = monotonicNanoseconds()
    var cpu = 0.0
    var count = 0
    while count < 10_000_000 {
        if interval > 0 {
            var turn = timespec(tv_sec: next / 1_000_000_000, tv_nsec: next % 1_000_000_000)
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &turn, nil) == EINTR {}
        }
        let start = threadCPUSeconds()
        try operation()
        cpu += threadCPUSeconds() - start
        count += 1
        let now = monotonicNanoseconds()
        if now >= deadline { break }
        next = max(next + interval, now)
    }
    return (cpu * 1e6 / Double(count), count)
}

var seconds = 2.0
var signinInterval: Int?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    let value = arguments.next()
    if argument == "--seconds", let number = value.flatMap(Double.init), number > 0, number <= 60 {
        seconds = number
    } else if argument == "--signin-interval-us", let number = value.flatMap(Int.init),
        (0...1_000_000).contains(number)
    {
        signinInterval = number
    } else {
        FileHandle.standardError.write(
            Data("usage: bench-crypto [--seconds S (0-60)] [--signin-interval-us N (0-1000000)]\n".utf8))
        exit(2)
    }
}

do {
    // A JWT signing input of the usual size.
    let message = Array(String(repeating: "eyJhbGciOiJSUzI1NiJ9.payload", count: 24).utf8)
    let rsa = try RSAPrivateKey.generate(bits: 2048)
    let rsaSignature = try rsa.signSHA256(message)
    let p256 = try P256PrivateKey.generate()
    let p256Signature = try p256.signSHA256(message)
    guard rsa.publicKey.verifySHA256(signature: rsaSignature, message: message),
        p256.publicKey.verifySHA256(signature: p256Signature, message: message)
    else { throw CryptoError(code: .signingFailed, message: "a signature did not verify") }
    // A second factor's check (contract section 14): the TOTP code at the current step and one either side (three
    // HMAC-SHA1, as the broker always computes them), and the opening of the factor's sealed secret (AES-256-GCM).
    let totpSecret = SecureRandom.bytes(20)
    let totpStep = TOTP.step(unixTime: Date().timeIntervalSince1970, period: 30)
    let totpCode = TOTP.code(secret: totpSecret, counter: totpStep, digits: 6)
    let aes = try AESGCMKey(bytes: SecureRandom.bytes(32))
    let context = Array("second-factor:uid:factor".utf8)
    let sealedSecret = try aes.seal(Array(Base32.encode(totpSecret, padded: false).utf8), authenticating: context)
    if let signinInterval {
        let provider = try RSAPrivateKey.generate(bits: 2048)
        let providerSignature = try provider.signSHA256(message)
        let (microseconds, count) = try paced(seconds: seconds, intervalMicroseconds: signinInterval) {
            precondition(provider.publicKey.verifySHA256(signature: providerSignature, message: message))
            _ = try rsa.signSHA256(message)
            _ = try p256.signSHA256(message)
        }
        print(#"{"signin_interval_us": \#(signinInterval), "signin_us": \#(microseconds), "signins": \#(count)}"#)
        exit(0)
    }
    let results: [String: Double] = [
        "totp_check_per_s": rate(seconds: seconds) {
            precondition(TOTP.matchingStep(totpCode, secret: totpSecret, around: totpStep, digits: 6) != nil)
        },
        "aesgcm_open_per_s": try rate(seconds: seconds) { _ = try aes.open(sealedSecret, authenticating: context) },
        "rsa2048_sign_per_s": try rate(seconds: seconds) { _ = try rsa.signSHA256(message) },
        "rsa2048_verify_per_s": rate(seconds: seconds) {
            precondition(rsa.publicKey.verifySHA256(signature: rsaSignature, message: message))
        },
        "ecdsap256_sign_per_s": try rate(seconds: seconds) { _ = try p256.signSHA256(message) },
        "ecdsap256_verify_per_s": rate(seconds: seconds) {
            precondition(p256.publicKey.verifySHA256(signature: p256Signature, message: message))
        },
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    print(String(decoding: try encoder.encode(results), as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("bench-crypto: \(error)\n".utf8))
    exit(1)
}
