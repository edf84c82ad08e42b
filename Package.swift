// swift-tools-version:6.0
import PackageDescription

/// The same settings on every Swift target: Swift 6 language mode with strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "social-login-broker",
    // iOS for BrokerAuth, the app-side client (its code needs only iOS 15 / macOS 12).
    platforms: [.macOS(.v14), .iOS(.v15)],
    products: [
        .executable(name: "broker", targets: ["broker"]),
        .executable(name: "broker-demo", targets: ["broker-demo"]),
        .executable(name: "stub-providers", targets: ["stub-providers"]),
        // For the fuzz package in Fuzz/, which depends on this one by path.
        .library(name: "BrokerCrypto", targets: ["BrokerCrypto"]),
        .library(name: "BrokerCBOR", targets: ["BrokerCBOR"]),
        .library(name: "BrokerModel", targets: ["BrokerModel"]),
        .library(name: "BrokerStorage", targets: ["BrokerStorage"]),
        .library(name: "BrokerIdentity", targets: ["BrokerIdentity"]),
        .library(name: "BrokerCore", targets: ["BrokerCore"]),
        .library(name: "BrokerHTTP", targets: ["BrokerHTTP"]),
        .library(name: "BrokerFirebase", targets: ["BrokerFirebase"]),
        .library(name: "BrokerTesting", targets: ["BrokerTesting"]),
        // The client an app adds (docs/client.md): Foundation only, no C library, no BrokerCore.
        .library(name: "BrokerAuth", targets: ["BrokerAuth"]),
    ],
    targets: [
        // System libraries from Debian's -dev packages.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // libxcrypt's crypt_r, for imported bcrypt hashes.
        .systemLibrary(name: "CCrypt", pkgConfig: "libxcrypt", providers: [.apt(["libcrypt-dev"])]),
        // libcbor, the CBOR decoder under passkeys' attestation objects and COSE keys.
        .systemLibrary(name: "CCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        // What Swift cannot call directly: variadic functions and function-like macros.
        .target(name: "CBrokerShims", dependencies: ["CCurl", "CMicroHTTPD", "CSQLite", "CLibPQ"]),

        .target(name: "BrokerCrypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        // A bounded CBOR value type over libcbor's streaming decoder (and its encoders, for test authenticators).
        .target(name: "BrokerCBOR", dependencies: ["CCBOR"], swiftSettings: swiftSettings),
        // The values every layer shares: accounts, identities, credentials, refusals and the errors they name, audit
        // events, the clock, JSON and logging. No I/O.
        .target(name: "BrokerModel", dependencies: ["BrokerCrypto"], swiftSettings: swiftSettings),
        // The store protocols, the SQL and memory stores, the schema: they throw AccountStoreError only.
        .target(name: "BrokerStorage", dependencies: ["BrokerModel", "BrokerCrypto"], swiftSettings: swiftSettings),
        // The providers, their registry and catalog, JWT and JWKS, the providers' HTTP calls: they see no account,
        // session or store.
        .target(name: "BrokerIdentity", dependencies: ["BrokerModel", "BrokerCrypto"], swiftSettings: swiftSettings),
        // openapi.json is embedded by scripts/embed-openapi (OpenAPIDocument+JSON.swift), not a resource.
        .target(
            name: "BrokerCore",
            dependencies: ["BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerCrypto", "BrokerCBOR"],
            swiftSettings: swiftSettings),
        // The routes of the native API, the admin API and console, and operations: they call the core's use cases and
        // cannot see the store.
        .target(
            name: "BrokerHTTP", dependencies: ["BrokerCore", "BrokerModel", "BrokerIdentity", "BrokerCrypto"],
            exclude: ["Operations/openapi.json", "Admin/Console"], swiftSettings: swiftSettings),
        // Firebase: the compatible listener, custom tokens, session cookies, revocation, import and export. It plugs
        // into the core through its seams (BrokerModule, ConfigSection, SessionFormat); the core never names it.
        .target(
            name: "BrokerFirebase",
            dependencies: ["BrokerCore", "BrokerHTTP", "BrokerModel", "BrokerIdentity", "BrokerCrypto"],
            swiftSettings: swiftSettings),
        .target(
            name: "BrokerDrivers",
            dependencies: [
                "BrokerCore", "BrokerModel", "BrokerStorage", "BrokerCrypto", "CBrokerShims", "CCurl", "CSQLite",
                "CMicroHTTPD",
                "CArgon2", "CLibPQ", "CCrypt",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "BrokerTesting",
            dependencies: [
                "BrokerCore", "BrokerHTTP", "BrokerFirebase", "BrokerModel", "BrokerStorage", "BrokerIdentity",
                "BrokerCrypto", "BrokerCBOR", "BrokerDrivers",
            ],
            swiftSettings: swiftSettings),

        // Complete concurrency checking spelled out, as a feature (not -strict-concurrency=complete, an unsafe flag
        // that would stop apps from adding this package).
        .target(name: "BrokerAuth", swiftSettings: swiftSettings + [.enableUpcomingFeature("StrictConcurrency")]),

        .executableTarget(
            name: "broker",
            dependencies: [
                "BrokerCore", "BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerHTTP", "BrokerFirebase",
                "BrokerDrivers",
            ],
            swiftSettings: swiftSettings),
        // `broker demo` runs it (Sources/broker/DemoLauncher.swift): the stub providers and the test harness stay
        // out of the `broker` operators run.
        .executableTarget(
            name: "broker-demo",
            dependencies: [
                "BrokerCore", "BrokerModel", "BrokerHTTP", "BrokerFirebase", "BrokerDrivers", "BrokerTesting",
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "stub-providers", dependencies: ["BrokerTesting", "BrokerModel", "BrokerDrivers"],
            swiftSettings: swiftSettings),
        // bench/run's measure of BrokerCrypto against `openssl speed`.
        .executableTarget(name: "bench-crypto", dependencies: ["BrokerCrypto"], swiftSettings: swiftSettings),

        .testTarget(name: "BrokerCryptoTests", dependencies: ["BrokerCrypto"], swiftSettings: swiftSettings),
        .testTarget(name: "BrokerCBORTests", dependencies: ["BrokerCBOR"], swiftSettings: swiftSettings),
        .testTarget(
            name: "BrokerCoreTests",
            dependencies: [
                "BrokerCore", "BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerHTTP", "BrokerFirebase",
                "BrokerTesting",
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "BrokerDriversTests",
            dependencies: [
                "BrokerDrivers", "BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerHTTP", "BrokerFirebase",
                "BrokerTesting",
            ],
            swiftSettings: swiftSettings),
        // The executable's own types (its command-line parsing).
        .testTarget(
            name: "brokerTests",
            dependencies: [
                "broker", "BrokerCore", "BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerHTTP",
                "BrokerFirebase",
            ],
            swiftSettings: swiftSettings),
        // BrokerAuth against a live broker and the stub providers (BrokerTesting's harness).
        .testTarget(
            name: "BrokerAuthTests",
            dependencies: [
                "BrokerAuth", "BrokerCore", "BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerHTTP",
                "BrokerCrypto",
                "BrokerTesting",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContractTests",
            dependencies: [
                "BrokerCore", "BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerHTTP", "BrokerFirebase",
                "BrokerDrivers",
                "BrokerTesting", "broker",
                "stub-providers",
            ],
            exclude: ["Console", "FirebaseAdmin"], swiftSettings: swiftSettings),
    ]
)
