import BrokerCore
import BrokerFirebase
import BrokerCrypto
@testable import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct MigratingPasswordHasherTests {
    let hasher = MigratingPasswordHasher(argon2: Argon2PasswordHasher(workers: 2))

    /// The sample of github:firebase/scrypt's README: a project's hash parameters and one exported user.
    static func readmeOptions() throws -> FirebaseHashOptions {
        try FirebaseHashOptions(
            hashAlgo: "SCRYPT",
            hashKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            saltSeparator: "Bw==", rounds: "8", memCost: "14")
    }
    static let readmeHash = "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
    static let readmeSalt = "42xEC+ixf3L2lw=="

    static func stored(_ options: FirebaseHashOptions, hash: String, salt: String) throws -> ImportedPasswordHash {
        let hashBytes = try #require(FirebaseBase64.decode(hash))
        let saltBytes = try #require(FirebaseBase64.decode(salt))
        return try options.importedHash(passwordHash: hashBytes, salt: saltBytes)
    }

    @Test func firebaseScryptREADMEVectorVerifies() async throws {
        let imported = try Self.stored(try Self.readmeOptions(), hash: Self.readmeHash, salt: Self.readmeSalt)
        #expect(imported.encoded.hasPrefix("$firebase-scrypt$r=8,m=14,k=jxspr8Ki0RYyc"))
        #expect(try await hasher.verify("user1password", against: imported.encoded))
        #expect(try await hasher.verify("user1passworD", against: imported.encoded) == false)
        #expect(try await hasher.verify("", against: imported.encoded) == false)
        #expect(hasher.needsRehash(imported.encoded))
    }

    @Test(arguments: importedHashVectors)
    func independentlyGeneratedVectorsVerify(_ vector: ImportedHashVector) async throws {
        let flag = { (name: String) in vector.flags[name] ?? nil }
        let options = try FirebaseHashOptions(
            hashAlgo: try #require(flag("hashAlgo")), hashKey: flag("hashKey"), saltSeparator: flag("saltSeparator"),
            rounds: flag("rounds"), memCost: flag("memCost"), parallelization: flag("parallelization"),
            blockSize: flag("blockSize"), dkLen: flag("dkLen"), hashInputOrder: flag("hashInputOrder"))
        let imported = try Self.stored(options, hash: vector.passwordHash, salt: vector.salt)
        // The stored form reads back as the same hash.
        #expect(try ImportedPasswordHash(encoded: imported.encoded) == imported)
        #expect(try await hasher.verify(vector.password, against: imported.encoded))
        #expect(try await hasher.verify(vector.password + "x", against: imported.encoded) == false)
        #expect(try await hasher.verify(String(vector.password.dropLast()), against: imported.encoded) == false)
        #expect(hasher.needsRehash(imported.encoded))
    }

    @Test func argon2HashesStillVerifyAndNeedNoRehash() async throws {
        let encoded = try await hasher.hash("correct horse")
        #expect(encoded.hasPrefix("$argon2id$"))
        #expect(try await hasher.verify("correct horse", against: encoded))
        #expect(try await hasher.verify("correct horsE", against: encoded) == false)
        #expect(hasher.needsRehash(encoded) == false)
    }

    /// A stored row edited beyond the bounds (or into garbage) never verifies, and no hashing is even started.
    @Test(arguments: [
        ("$firebase-scrypt$r=8,m=20,k=AAAA,s=$AAAA$AAAA", ImportedHashError.Code.parameterOutOfRange),  // 2^20 * 8 * 128: 1 GiB
        ("$firebase-scrypt$r=9,m=14,k=AAAA,s=$AAAA$AAAA", .parameterOutOfRange),
        ("$standard-scrypt$n=1048576,r=8,p=1,s=$AAAA$AAAAAAAAAAAAAAAAAAAAAA", .parameterOutOfRange),  // 1 GiB
        ("$standard-scrypt$n=1000,r=8,p=1,s=$AAAA$AAAAAAAAAAAAAAAAAAAAAA", .parameterOutOfRange),  // no power of two
        ("$pbkdf2-sha256$i=1000001,s=$AAAA$AAAAAAAAAAAAAAAAAAAAAA", .parameterOutOfRange),
        ("$2b$15$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0", .parameterOutOfRange),
        ("$2b$10$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", .malformed),
        ("$hmac-sha256$k=AAAA,o=sideways,s=$AAAA$AAAA", .malformed),
        ("$firebase-scrypt$r=08,m=14,k=AAAA,s=$AAAA$AAAA", .malformed),
        ("$firebase-scrypt$m=14,r=8,k=AAAA,s=$AAAA$AAAA", .malformed),
        ("$pbkdf2-sha256$i=1000,s=$AAAA$AAAAAAAAAAAAAAAAAAAAAA==", .malformed),
        ("$hmac-sha256$k=AAAA,o=salt-first,s=$AAAA$AAAA", .hashMismatch),  // 3 bytes, not 32
    ])
    func storedHashesBeyondTheBoundsNeverVerify(_ encoded: String, code: ImportedHashError.Code) async throws {
        #expect(ImportedPasswordHash.isImported(encoded))
        #expect(throws: ImportedHashError(code, "")) {
            do {
                _ = try ImportedPasswordHash(encoded: encoded)
            } catch let error as ImportedHashError {
                throw ImportedHashError(error.code, "")
            }
        }
        let before = (hasher.argon2.pool.jobsStarted, hasher.importedPool.jobsStarted)
        #expect(try await hasher.verify("anything", against: encoded) == false)
        #expect(hasher.argon2.pool.jobsStarted == before.0 && hasher.importedPool.jobsStarted == before.1)
    }

    /// Strings that are neither imported nor Argon2id go to the Argon2 hasher, which refuses them.
    @Test(arguments: ["$scrypt$ln=16,r=8,p=1$c2FsdA$aGFzaA", "", "plain"])
    func otherStringsNeverVerify(_ encoded: String) async throws {
        #expect(!ImportedPasswordHash.isImported(encoded))
        #expect(try await hasher.verify("anything", against: encoded) == false)
    }

    /// A burst of 50 imported-hash sign-ins runs on the Argon2 pool: every one of them there, never more
    /// than its two workers at once.
    @Test func aBurstOfImportedVerificationsRunsOnTheBoundedPool() async throws {
        let key = Array("signer key of thirty-two bytes!!".utf8)
        let options = try FirebaseHashOptions(hashAlgo: "SCRYPT", hashKey: Base64.encode(key), rounds: "8", memCost: "12")
        // Made by this code, then checked as the generated vectors check it: the burst is about the pool.
        let imported = try options.importedHash(passwordHash: try Self.firebaseHash(of: "burst", key: key), salt: [1, 2, 3])
        // Imported hashes have a queue of their own (issue 25, finding 7); here one long enough for the burst.
        let hasher = MigratingPasswordHasher(argon2: Argon2PasswordHasher(workers: 2), importedWorkers: 2, importedWaiters: 64)
        let pool = hasher.importedPool
        let before = pool.jobsStarted
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask { try await hasher.verify(index % 2 == 0 ? "burst" : "wrong", against: imported.encoded) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 50)
        #expect(results.filter { $0 }.count == 25)
        #expect(pool.jobsStarted - before == 50)
        #expect(pool.peakRunning <= 2)
    }

    @Test func aFullQueueRefusesImportedVerificationsAsOverloaded() async throws {
        let small = MigratingPasswordHasher(argon2: Argon2PasswordHasher(workers: 1), importedWorkers: 1, importedWaiters: 2)
        let imported = try Self.stored(try Self.readmeOptions(), hash: Self.readmeHash, salt: Self.readmeSalt)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        return try await small.verify("user1password", against: imported.encoded) ? "match" : "no match"
                    } catch let error as PasswordHashingError where error == .overloaded {
                        return "overloaded"
                    } catch {
                        return "other"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.contains("overloaded"))
        #expect(!outcomes.contains("other") && !outcomes.contains("no match"))
        #expect(outcomes.filter { $0 == "match" }.count >= 2)
    }

    /// Firebase's scrypt of `password` with salt [1, 2, 3], r = 8, mem-cost 12, computed with the primitives.
    static func firebaseHash(of password: String, key: [UInt8]) throws -> [UInt8] {
        let derived = try Scrypt.derive(password: Array(password.utf8), salt: [1, 2, 3], n: 4096, r: 8, p: 1, length: 32)
        return try AESCTR.aes256(key: derived, iv: [UInt8](repeating: 0, count: 16), data: key)
    }
}

/// The whole path of an exported Firebase password: export record -> plan -> stored hash -> verified.
@Suite struct ImportedPasswordPathTests {
    @Test func anExportedFirebaseUserSignsInWithTheirPassword() async throws {
        let json = #"""
            {"localId": "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "email": "user1@test.com",
             "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
             "salt": "42xEC+ixf3L2lw=="}
            """#
        let record = try FirebaseUserRecord(json: try #require(JSONValue.parse(Array(json.utf8))))
        let options = try FirebaseImportOptions(hash: try MigratingPasswordHasherTests.readmeOptions())
        let plan = try FirebaseImportPlan(record, options: options, importedAt: Date())
        let stored = try #require(plan.account.password?.hash)
        let hasher = MigratingPasswordHasher(argon2: Argon2PasswordHasher(workers: 1))
        #expect(try await hasher.verify("user1password", against: stored))
        #expect(try await hasher.verify("user1Password", against: stored) == false)
        #expect(hasher.needsRehash(stored))
    }
}
