public import BrokerModel

/// A provider whose account mapping makes some passwords of some accounts a way in that is not their owner's (an
/// imported account whose password is its owner's public id at that provider, until the owner's first sign-in
/// with it). Password sign-in refuses those, as a wrong password (contract section 2).
public protocol PasswordSignInGuarding: Sendable {
    /// Whether password sign-in to `account` with `password` must be refused, whatever the hash says.
    func refusesPasswordSignIn(_ password: String, to account: Account) -> Bool
}

extension ProviderRegistry {
    /// The enabled providers that guard password sign-in.
    public var passwordGuards: [any PasswordSignInGuarding] { all.compactMap { $0 as? any PasswordSignInGuarding } }
}
