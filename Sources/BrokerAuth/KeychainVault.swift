#if canImport(Security)
    import Foundation
    import Security

    /// The session as a Keychain generic password: this device only, readable after the first unlock (so a
    /// background refresh works), never in a backup.
    struct KeychainVault: SessionVault {
        let service: String
        let account: String

        private var query: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
        }

        func load() throws -> Data? {
            var search = query
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw BrokerAuthError.storage(message: "Keychain status \(status)") }
            return result as? Data
        }

        func save(_ data: Data) throws {
            SecItemDelete(query as CFDictionary)
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw BrokerAuthError.storage(message: "Keychain status \(status)") }
        }

        func remove() throws {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw BrokerAuthError.storage(message: "Keychain status \(status)")
            }
        }
    }
#endif
