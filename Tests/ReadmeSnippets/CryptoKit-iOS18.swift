@_exported import Foundation  // as the SDK's module does

public struct SHA256Digest: Sequence, Sendable {
    public func makeIterator() -> Array<UInt8>.Iterator { [UInt8](repeating: 0, count: 32).makeIterator() }
}

public struct SHA256 {
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { SHA256Digest() }
}
