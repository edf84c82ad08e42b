/// A provider that fetches what it needs from its provider when the broker starts (an OpenID Connect discovery
/// document), so the first sign-in does not wait for it. `serve` calls ``prefetch()`` once; `check-config` never
/// does (it fetches nothing). A failure must not stop the broker: the provider retries on its own.
public protocol ProviderPrefetching: IdentityProvider {
    /// Fetches now; logs and swallows failures.
    func prefetch() async
}
