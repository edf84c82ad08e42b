@_exported import Foundation  // as the SDK's module does

public typealias OSStatus = Int32
public typealias CFTypeRef = AnyObject
/// A `[String: Any]` here, so that `dictionary as CFDictionary` type-checks as it does against the SDK.
public typealias CFDictionary = [String: Any]
public final class SecRandom {}
public typealias SecRandomRef = SecRandom

public let errSecSuccess: OSStatus = 0
public let errSecItemNotFound: OSStatus = -25300
public let kSecRandomDefault: SecRandomRef? = nil
public let kSecClass = "class"
public let kSecClassGenericPassword = "genp"
public let kSecAttrAccount = "acct"
public let kSecAttrService = "svce"
public let kSecValueData = "v_Data"
public let kSecAttrAccessible = "pdmn"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly = "cku"
public let kSecReturnData = "r_Data"
public let kSecMatchLimit = "m_Limit"
public let kSecMatchLimitOne = "m_LimitOne"

public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 { 0 }
@discardableResult public func SecItemDelete(_ query: CFDictionary) -> OSStatus { 0 }
@discardableResult public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
@discardableResult public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
