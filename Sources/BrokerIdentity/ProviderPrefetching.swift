/// A provider that fetches what it needs from its provider when the broker starts (an OpenID Connect discovery
/// document), so the first sign-in need not wait for it. `serve` starts ``prefetch()`` once, in the background (a
/// slow provider never holds up the start); `check-config` never does (it fetches nothing). A failure must not stop
/// the broker: the provider retries on its own.
public protocol ProviderPrefetching: IdentityProvider {
    /// Fetches now; logs and swallows failures.
    func prefetch() async
}
