/// A layer's error: a stable code to compare by, a detail for logs (never a token, password or key), and the
/// ``Refusal`` it is, which the surfaces answer in their dialects.
public protocol CodedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The layer's codes.
    associatedtype Code: RawRepresentable & Sendable where Code.RawValue == String
    /// The stable code.
    var code: Code { get }
    /// Detail for logs.
    var detail: String { get }
    /// The refusal this error is, or nil for an internal failure (a 500 whose cause is only logged). Every
    /// layer error says, so none becomes a 500 by being forgotten.
    var refusal: Refusal? { get }
}

extension CodedError {
    /// `code` alone, or `code: detail`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
