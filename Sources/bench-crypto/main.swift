import BrokerCrypto
import Foundation

// `bench-crypto [--seconds S]`: the broker's own crypto calls (BrokerCrypto, as a sign-in makes them), one thread,
// each timed for S seconds; prints one JSON object of operations per second. bench/run sets these beside
// `openssl speed`, whose figures are the floor: the difference is what BrokerCrypto adds around OpenSSL.

/// Calls `operation` repeatedly for about `seconds` (at most 10 million times); returns calls per second.
func rate(seconds: Double, _ operation: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    var count = 0
    while count < 10_000_000 {
        for _ in 0..<16 { try operation() }
        count += 16
        if clock.now >= deadline { break }
    }
    let elapsed = start.duration(to: clock.now)
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

var seconds = 2.0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    guard argument == "--seconds", let value = arguments.next().flatMap(Double.init), value > 0, value <= 60 else {
        FileHandle.standardError.write(Data("usage: bench-crypto [--seconds S (0-60)]\n".utf8))
        exit(2)
    }
    seconds = value
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
    let results: [String: Double] = [
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
