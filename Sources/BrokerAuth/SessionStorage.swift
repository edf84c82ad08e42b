public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where ``BrokerAuth`` keeps the session between launches: the refresh token and the user. Nothing else is
/// written anywhere: the ID token stays in memory.
public struct SessionStorage: Sendable {
    enum Kind: Sendable {
        case standard
        case file(URL)
        case memory(MemoryVault)
        case keychain(service: String)
    }

    let kind: Kind

    /// The platform's place for secrets: ``keychain`` on Apple platforms; elsewhere a file readable by the user
    /// alone (0600), in the user's application-support directory (`~/.local/share/BrokerAuth/` on Linux), one
    /// per broker.
    public static var `default`: SessionStorage { SessionStorage(kind: .standard) }

    /// A session file at `url` (the file itself; its directory is created), written with 0600 permissions.
    public static func file(_ url: URL) -> SessionStorage { SessionStorage(kind: .file(url)) }

    /// Memory only: the session ends with the process. Each use of `.memory` is a new, empty store; one value
    /// passed to two ``BrokerAuth`` instances is shared by both.
    public static var memory: SessionStorage { SessionStorage(kind: .memory(MemoryVault())) }

    #if canImport(Security)
        /// The Keychain (a generic password of service `BrokerAuth`, this device only, readable after the first
        /// unlock), one item per broker.
        public static var keychain: SessionStorage { SessionStorage(kind: .keychain(service: "BrokerAuth")) }
    #endif

    /// The vault for the broker at `baseURL`.
    func vault(for baseURL: URL) -> any SessionVault {
        let name = Self.name(of: baseURL)
        switch kind {
        case .file(let url): return FileVault(url: url)
        case .memory(let vault): return vault
        case .keychain(let service): return Self.keychainVault(service: service, account: name)
        case .standard:
            #if canImport(Security)
                return Self.keychainVault(service: "BrokerAuth", account: name)
            #else
                let directory =
                    FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
                return FileVault(url: directory.appendingPathComponent("BrokerAuth/\(name).session"))
            #endif
        }
    }

    private static func keychainVault(service: String, account: String) -> any SessionVault {
        #if canImport(Security)
            KeychainVault(service: service, account: account)
        #else
            MemoryVault()  // unreachable: `.keychain` exists only where Security does
        #endif
    }

    /// A file-name-safe name of the broker at `baseURL`: its host, port and path.
    static func name(of baseURL: URL) -> String {
        let text = [baseURL.host ?? "broker", baseURL.port.map(String.init), baseURL.path]
            .compactMap { $0 }.joined(separator: "-")
        let safe = text.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        return String(safe).trimmingCharacters(in: CharacterSet(charactersIn: "-_"))
    }
}

/// Reads, writes and removes the stored session's bytes.
protocol SessionVault: Sendable {
    func load() throws -> Data?
    func save(_ data: Data) throws
    func remove() throws
}

/// The session in memory.
final class MemoryVault: SessionVault, @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?  // guarded by `lock`

    func load() -> Data? { lock.locked { data } }
    func save(_ data: Data) { lock.locked { self.data = data } }
    func remove() { lock.locked { data = nil } }
}

/// The session in a file of mode 0600, replaced atomically (written to a new 0600 file, then renamed).
struct FileVault: SessionVault {
    let url: URL

    func load() throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do { return try Data(contentsOf: url) } catch { throw BrokerAuthError.storage(message: "\(error)") }
    }

    func save(_ data: Data) throws {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch { throw BrokerAuthError.storage(message: "\(error)") }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw BrokerAuthError.storage(message: "cannot create \(temporary.path)") }
        let written = data.withUnsafeBytes { bytes in
            bytes.baseAddress.map { write(descriptor, $0, bytes.count) } ?? 0
        }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == data.count, synced == 0, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw BrokerAuthError.storage(message: "cannot write \(url.path)")
        }
    }

    func remove() throws {
        guard unlink(url.path) == 0 || errno == ENOENT else {
            throw BrokerAuthError.storage(message: "cannot remove \(url.path)")
        }
    }
}
