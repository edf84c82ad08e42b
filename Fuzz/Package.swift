// swift-tools-version:6.0
import PackageDescription

/// The broker's libFuzzer targets: a package of their own so that their sanitizer build
/// (`-sanitize=fuzzer,address`, see scripts/fuzz) never touches the main package's build.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A fuzz target: no top-level code; SwiftPM links its `<module>_main` as `main`, which hands over to
/// libFuzzer's driver (`LLVMFuzzerRunDriver`).
let targetSettings = swiftSettings + [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "broker-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "social-login-broker", path: "..")],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CFuzzDriver",
                .product(name: "BrokerCrypto", package: "social-login-broker"),
                .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerHTTP", package: "social-login-broker"),
                .product(name: "BrokerFirebase", package: "social-login-broker"),
                .product(name: "BrokerTesting", package: "social-login-broker"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "fuzz-jwt",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCrypto", package: "social-login-broker"),
                .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerIdentity", package: "social-login-broker"),
                .product(name: "BrokerTesting", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-json",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-provider-responses",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCrypto", package: "social-login-broker"),
                .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerIdentity", package: "social-login-broker"),
                .product(name: "BrokerTesting", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-http",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCrypto", package: "social-login-broker"),
                .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerHTTP", package: "social-login-broker"),
                .product(name: "BrokerTesting", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-config",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCrypto", package: "social-login-broker"),
                .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerIdentity", package: "social-login-broker"),
                .product(name: "BrokerFirebase", package: "social-login-broker"),
                .product(name: "BrokerTesting", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-firebase",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerHTTP", package: "social-login-broker"),
                .product(name: "BrokerFirebase", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-firebase-export",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
                .product(name: "BrokerHTTP", package: "social-login-broker"),
                .product(name: "BrokerFirebase", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
        .executableTarget(
            name: "fuzz-webauthn",
            dependencies: [
                "FuzzSupport", .product(name: "BrokerCBOR", package: "social-login-broker"),
                .product(name: "BrokerCrypto", package: "social-login-broker"),
                .product(name: "BrokerCore", package: "social-login-broker"),
                .product(name: "BrokerModel", package: "social-login-broker"),
            ],
            swiftSettings: targetSettings),
    ]
)
