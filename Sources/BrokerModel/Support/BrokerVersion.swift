/// The broker's release, as `broker --version` and `stub-providers --version` print it.
public enum BrokerVersion {
    /// The version of this source tree (semantic versioning; 0.x while the contract may still change).
    public static let current = "0.1.0"
}
