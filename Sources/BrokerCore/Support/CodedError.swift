/// A layer's error: a stable code to compare by and a detail for logs (never a token, password or key).
public protocol CodedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The layer's codes.
    associatedtype Code: RawRepresentable & Sendable where Code.RawValue == String
    /// The stable code.
    var code: Code { get }
    /// Detail for logs.
    var detail: String { get }
}

extension CodedError {
    /// `code` alone, or `code: detail`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
