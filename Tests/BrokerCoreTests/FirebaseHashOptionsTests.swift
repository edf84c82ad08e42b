import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerModel
import Testing

@Suite struct FirebaseHashOptionsTests {
    static let key64 = String(repeating: "A", count: 86) + "=="  // 64 zero bytes
    static let key15 = String(repeating: "A", count: 20)  // 15 zero bytes
    static let key16 = String(repeating: "A", count: 22) + "=="  // 16 zero bytes

    /// Flags that cannot be used are refused by code before any user is read.
    @Test(arguments: [
        (["hashAlgo": "ROT13"], ImportedHashError.Code.unsupportedAlgorithm),  // MD5 until issue 33
        (["hashAlgo": "SCRYPT", "rounds": "8", "memCost": "14"], .missingParameter),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "memCost": "14"], .missingParameter),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "rounds": "9", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "rounds": "8", "memCost": "15"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "rounds": "0", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "rounds": "-1", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "rounds": "99999999999", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": "not base64!", "rounds": "8", "memCost": "14"], .parameterOutOfRange),
        // A signer key under 16 bytes is a hash under 16 bytes: one in 256 passwords matches a 1-byte one.
        (["hashAlgo": "SCRYPT", "hashKey": "AQ==", "rounds": "8", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": key15, "rounds": "8", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "SCRYPT", "hashKey": key64, "saltSeparator": "B w==", "rounds": "8", "memCost": "14"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "16384", "blockSize": "8", "parallelization": "1"], .missingParameter),
        // 128 * 2^17 * 8 = 128 MiB, above the 64 MiB bound.
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "131072", "blockSize": "8", "parallelization": "1", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "1000", "blockSize": "8", "parallelization": "1", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "16384", "blockSize": "8", "parallelization": "17", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "16384", "blockSize": "8", "parallelization": "1", "dkLen": "8"], .parameterOutOfRange),
        // The time budget (issue 25, finding 7): 128 * N * r * p at most 64 MiB, about 250 ms of one core. N = 2^16,
        // r = 8, p = 4 is within the memory bound but costs about 1 s; so do p = 2, and N = 2^15 with p = 4.
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "65536", "blockSize": "8", "parallelization": "4", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "65536", "blockSize": "8", "parallelization": "2", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "32768", "blockSize": "8", "parallelization": "4", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "STANDARD_SCRYPT", "memCost": "2", "blockSize": "1", "parallelization": "17", "dkLen": "64"], .parameterOutOfRange),
        (["hashAlgo": "PBKDF2_SHA256"], .missingParameter),
        (["hashAlgo": "PBKDF2_SHA256", "rounds": "1000001"], .parameterOutOfRange),
        (["hashAlgo": "PBKDF2_SHA256", "rounds": "0"], .parameterOutOfRange),
        (["hashAlgo": "HMAC_SHA256"], .missingParameter),
        (["hashAlgo": "HMAC_SHA256", "hashKey": "c2VjcmV0", "hashInputOrder": "BOTH"], .parameterOutOfRange),
        (["hashAlgo": "HMAC_SHA512"], .missingParameter),
        (["hashAlgo": "HMAC_SHA1"], .missingParameter),
        (["hashAlgo": "HMAC_MD5"], .missingParameter),
        (["hashAlgo": "MD5"], .missingParameter),
        (["hashAlgo": "MD5", "rounds": "8193"], .parameterOutOfRange),
        (["hashAlgo": "SHA1", "rounds": "0"], .parameterOutOfRange),
        (["hashAlgo": "SHA256", "rounds": "8193"], .parameterOutOfRange),
        (["hashAlgo": "SHA512"], .missingParameter),
        (["hashAlgo": "SHA512", "rounds": "1", "hashInputOrder": "BOTH"], .parameterOutOfRange),
        (["hashAlgo": "PBKDF_SHA1"], .missingParameter),
        (["hashAlgo": "PBKDF_SHA1", "rounds": "1000001"], .parameterOutOfRange),
        (["hashAlgo": "PBKDF_SHA1", "rounds": "1000", "dkLen": "8"], .parameterOutOfRange),
        (["hashAlgo": "SHA384", "rounds": "1"], .unsupportedAlgorithm),
    ])
    func unusableFlagsAreRefusedByCode(flags: [String: String], code: ImportedHashError.Code) {
        do {
            _ = try Self.options(flags)
            Issue.record("accepted \(flags)")
        } catch let error as ImportedHashError {
            #expect(error.code == code)
            #expect(!error.detail.contains("AAAA"))  // no key material in the detail
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func boundaryValuesAreAccepted() throws {
        _ = try Self.options(["hashAlgo": "scrypt", "hashKey": Self.key64, "rounds": "8", "memCost": "14"])
        _ = try Self.options(["hashAlgo": "scrypt", "hashKey": Self.key16, "rounds": "8", "memCost": "14"])
        _ = try Self.options(["hashAlgo": "STANDARD_SCRYPT", "memCost": "65536", "blockSize": "8", "parallelization": "1", "dkLen": "64"])
        _ = try Self.options(["hashAlgo": "STANDARD_SCRYPT", "memCost": "16384", "blockSize": "8", "parallelization": "4", "dkLen": "64"])
        _ = try Self.options(["hashAlgo": "PBKDF2_SHA256", "rounds": "1000000"])
        _ = try Self.options(["hashAlgo": "BCRYPT"])
        let hmac = try Self.options(["hashAlgo": "HMAC_SHA256", "hashKey": "c2VjcmV0", "hashInputOrder": "password_first"])
        #expect(hmac.hashInputOrder == .passwordFirst)
        // Issue 33: an HMAC's default is the password first (Firebase's own tests hash HMAC(key, password + salt)),
        // a plain digest's the salt first (SHA256(salt + password)). It was SALT_FIRST for HMAC_SHA256.
        #expect(try Self.options(["hashAlgo": "HMAC_SHA256", "hashKey": "c2VjcmV0"]).hashInputOrder == .passwordFirst)
        #expect(try Self.options(["hashAlgo": "HMAC_MD5", "hashKey": "c2VjcmV0"]).hashInputOrder == .passwordFirst)
        #expect(try Self.options(["hashAlgo": "SHA256", "rounds": "1"]).hashInputOrder == .saltFirst)
        #expect(try Self.options(["hashAlgo": "MD5", "rounds": "0"]).hashInputOrder == .saltFirst)
        _ = try Self.options(["hashAlgo": "SHA512", "rounds": "8192"])
        _ = try Self.options(["hashAlgo": "PBKDF_SHA1", "rounds": "1000000", "dkLen": "20"])
    }

    /// A user whose hash cannot come from these parameters is refused (the import reports it by index).
    @Test func usersWhoseHashDoesNotFitAreRefused() throws {
        let scrypt = try Self.options(["hashAlgo": "SCRYPT", "hashKey": Self.key64, "rounds": "8", "memCost": "14"])
        #expect(throws: ImportedHashError(.hashMismatch, "SCRYPT hash length")) {
            try scrypt.importedHash(passwordHash: [UInt8](repeating: 1, count: 32), salt: [1])
        }
        let standard = try Self.options(
            ["hashAlgo": "STANDARD_SCRYPT", "memCost": "1024", "blockSize": "8", "parallelization": "1", "dkLen": "64"])
        #expect(throws: ImportedHashError.self) { try standard.importedHash(passwordHash: [1, 2, 3], salt: [1]) }
        let bcrypt = try Self.options(["hashAlgo": "BCRYPT"])
        #expect(throws: ImportedHashError.self) { try bcrypt.importedHash(passwordHash: Array("$2b$10$short".utf8), salt: []) }
        let tooCostly = Array("$2b$15$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0".utf8)
        do {
            _ = try bcrypt.importedHash(passwordHash: tooCostly, salt: [])
            Issue.record("accepted bcrypt cost 15")
        } catch let error as ImportedHashError {
            #expect(error.code == .parameterOutOfRange)
        }
        let hmac = try Self.options(["hashAlgo": "HMAC_SHA256", "hashKey": "c2VjcmV0"])
        #expect(throws: ImportedHashError.self) { try hmac.importedHash(passwordHash: [1, 2], salt: []) }
        let salt = [UInt8](repeating: 7, count: 1025)
        #expect(throws: ImportedHashError.self) { try hmac.importedHash(passwordHash: [UInt8](repeating: 0, count: 32), salt: salt) }
    }

    static func bytes(_ value: UInt8, _ count: Int) -> [UInt8] { [UInt8](repeating: value, count: count) }

    /// Every stored form reads back as itself, and only in its one canonical spelling.
    @Test func storedFormsRoundTrip() throws {
        let hashes: [ImportedPasswordHash] = [
            .firebaseScrypt(
                signerKey: Array(1...16), saltSeparator: [7], rounds: 8, memoryCost: 14, salt: [9, 9], hash: Array(17...32)),
            .standardScrypt(n: 16384, blockSize: 8, parallelization: 1, saltSeparator: [], salt: [1], hash: [UInt8](repeating: 3, count: 32)),
            .bcrypt("$2b$10$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"),
            .pbkdf2(.sha256, rounds: 10000, saltSeparator: [], salt: [], hash: [UInt8](repeating: 5, count: 32)),
            .hmac(.sha256, key: [1], order: .passwordFirst, saltSeparator: [0], salt: [2], hash: Self.bytes(6, 32)),
            .pbkdf2(.sha1, rounds: 1, saltSeparator: [3], salt: [4], hash: Self.bytes(5, 20)),
            .hmac(.md5, key: [1, 2], order: .saltFirst, saltSeparator: [], salt: [2], hash: Self.bytes(6, 16)),
            .hmac(.sha1, key: [1], order: .passwordFirst, saltSeparator: [], salt: [], hash: Self.bytes(6, 20)),
            .hmac(.sha512, key: [1], order: .passwordFirst, saltSeparator: [], salt: [], hash: Self.bytes(6, 64)),
            .digest(
                .md5, rounds: 0, order: .saltFirst, saltSeparator: [], salt: [1],
                hash: Array("0123456789abcdef0123456789abcdef".utf8)),
            .digest(.md5, rounds: 2, order: .saltFirst, saltSeparator: [], salt: [1], hash: Self.bytes(7, 16)),
            .digest(.sha1, rounds: 1, order: .passwordFirst, saltSeparator: [9], salt: [1], hash: Self.bytes(7, 20)),
            .digest(.sha256, rounds: 8192, order: .saltFirst, saltSeparator: [], salt: [], hash: Self.bytes(7, 32)),
            .digest(.sha512, rounds: 3, order: .saltFirst, saltSeparator: [], salt: [1], hash: Self.bytes(7, 64)),
        ]
        for hash in hashes {
            #expect(try ImportedPasswordHash(encoded: hash.encoded) == hash)
            #expect(ImportedPasswordHash.isImported(hash.encoded))
        }
        #expect(hashes[0].encoded == "$firebase-scrypt$r=8,m=14,k=AQIDBAUGBwgJCgsMDQ4PEA,s=Bw$CQk$ERITFBUWFxgZGhscHR4fIA")
        #expect(hashes[0].algorithmName == "SCRYPT")
        #expect(hashes[5].encoded == "$pbkdf2-sha1$i=1,s=Aw$BA$BQUFBQUFBQUFBQUFBQUFBQUFBQU")
        #expect(hashes[10].encoded == "$md5$r=2,o=salt-first,s=$AQ$BwcHBwcHBwcHBwcHBwcHBw")
        #expect(
            hashes[3...].map(\.algorithmName) == [
                "PBKDF2_SHA256", "HMAC_SHA256", "PBKDF_SHA1", "HMAC_MD5", "HMAC_SHA1", "HMAC_SHA512", "MD5", "MD5",
                "SHA1", "SHA256", "SHA512",
            ])
        // A hash of a length its digest cannot produce, rounds beyond Firebase's, PBKDF2 over another digest.
        for refused in [
            "$sha256$r=1,o=salt-first,s=$AQ$BwcH", "$sha1$r=8193,o=salt-first,s=$AQ$BwcHBwcHBwcHBwcHBwcHBwcHBwc",
            "$sha1$r=0,o=salt-first,s=$AQ$BwcHBwcHBwcHBwcHBwcHBwcHBwc", "$pbkdf2-md5$i=1,s=$AQ$BwcHBwcHBwcHBwcHBwcHBw",
            "$hmac-sha384$k=AQ,o=salt-first,s=$AQ$BwcHBwcHBwcHBwcHBwcHBw",
            "$md5$r=1,o=sideways,s=$AQ$BwcHBwcHBwcHBwcHBwcHBw",
        ] {
            #expect(throws: ImportedHashError.self) { try ImportedPasswordHash(encoded: refused) }
        }
        #expect(!ImportedPasswordHash.isImported("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"))
        for variant in ["$firebase-scrypt$r=8,m=14,k=AQID,s=Bw==$CQk$BAUG", "$firebase-scrypt$r=8,m=14,k=AQID,s=Bw$CQk$BAUG$",
                        "$firebase-scrypt$r=8,m=014,k=AQID,s=Bw$CQk$BAUG", "$firebase-scrypt$r=8,m=14,k=AQ-D,s=Bw$CQk$BAUG"] {
            #expect(throws: ImportedHashError.self) { try ImportedPasswordHash(encoded: variant) }
        }
    }

    /// A stored SCRYPT hash whose signer key is under 16 bytes does not read back, so it never verifies: a row
    /// imported before the bound, or written by hand, signs no one in with one of the passwords that collide.
    @Test func aStoredScryptHashWithAShortSignerKeyIsRefused() throws {
        let short = ImportedPasswordHash.firebaseScrypt(
            signerKey: [1], saltSeparator: [], rounds: 8, memoryCost: 14, salt: [9], hash: [4])
        #expect(throws: ImportedHashError(.parameterOutOfRange, "hash-key length must be within 16...1024")) {
            try short.validate()
        }
        #expect(throws: ImportedHashError.self) { try ImportedPasswordHash(encoded: short.encoded) }
        let scrypt = try Self.options(["hashAlgo": "SCRYPT", "hashKey": Self.key16, "rounds": "8", "memCost": "14"])
        #expect(try scrypt.importedHash(passwordHash: [UInt8](repeating: 1, count: 16), salt: [1]).algorithmName == "SCRYPT")
    }

    /// A bcrypt hash an import takes in costs at most 12 (about 200 ms; 14 is about 800 ms); one the broker already
    /// holds is read up to 14, so users imported before the time budget still sign in.
    @Test func bcryptCostAboveTwelveIsRefusedOnImportButAStoredOneStillReads() throws {
        let bcrypt = try Self.options(["hashAlgo": "BCRYPT"])
        for cost in ["13", "14"] {
            let crypt = "$2b$\(cost)$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
            #expect(throws: ImportedHashError(.parameterOutOfRange, "bcrypt cost must be within 4...12")) {
                try bcrypt.importedHash(passwordHash: Array(crypt.utf8), salt: [])
            }
            #expect(try ImportedPasswordHash(encoded: crypt) == .bcrypt(crypt))
        }
        let twelve = "$2b$12$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"
        #expect(try bcrypt.importedHash(passwordHash: Array(twelve.utf8), salt: []) == .bcrypt(twelve))
        // A stored standard scrypt of the earlier bounds (p = 4) still reads back.
        let stored = ImportedPasswordHash.standardScrypt(
            n: 65536, blockSize: 8, parallelization: 4, saltSeparator: [], salt: [1], hash: [UInt8](repeating: 2, count: 32))
        #expect(try ImportedPasswordHash(encoded: stored.encoded) == stored)
    }

    static func options(_ flags: [String: String]) throws -> FirebaseHashOptions {
        try FirebaseHashOptions(
            hashAlgo: flags["hashAlgo"] ?? "", hashKey: flags["hashKey"], saltSeparator: flags["saltSeparator"],
            rounds: flags["rounds"], memCost: flags["memCost"], parallelization: flags["parallelization"],
            blockSize: flags["blockSize"], dkLen: flags["dkLen"], hashInputOrder: flags["hashInputOrder"])
    }
}
