extension Metrics {
    /// One metric family the broker records: what `/metrics` says of it in `# HELP` and `# TYPE`, and its labels.
    public struct Family: Sendable, Equatable {
        /// `broker_signins_total`.
        public var name: String
        /// `counter`, `gauge` or `histogram`.
        public var type: String
        /// The `# HELP` text.
        public var help: String
        /// The labels, in the order they are recorded.
        public var labels: [String]
    }

    /// Every family the broker records: each registry describes them all when it is made, so none is shown with
    /// "(no description)". docs/operations.md's table lists exactly these (`DocsListsAgreeTests` checks it, and
    /// that every `broker_…` name the sources record is one of them).
    public static let families: [Family] = [
        Family(
            name: "broker_http_requests_total", type: "counter", help: "HTTP requests by route and status.",
            labels: ["route", "status"]),
        Family(
            name: "broker_signins_total", type: "counter", help: "Sign-ins by provider and outcome.",
            labels: ["provider", "outcome"]),
        Family(
            name: "broker_signups_total", type: "counter",
            help: "Accounts made by a sign-up (password or passkey), by provider and outcome.",
            labels: ["provider", "outcome"]),
        Family(
            name: "broker_links_total", type: "counter",
            help: "Providers linked to signed-in accounts, by provider and outcome.",
            labels: ["provider", "outcome"]),
        Family(
            name: "broker_session_renewals_total", type: "counter",
            help: "New sessions for signed-in accounts (a password change, a link), by reason.", labels: ["reason"]),
        Family(
            name: "broker_provider_call_seconds", type: "histogram", help: "Latency of calls to identity providers.",
            labels: ["provider", "call"]),
        Family(
            name: "broker_jwks_refreshes_total", type: "counter", help: "JWKS fetches by provider and outcome.",
            labels: ["provider", "outcome"]),
        Family(
            name: "broker_discovery_refreshes_total", type: "counter",
            help: "OpenID Connect discovery document fetches by provider and outcome.", labels: ["provider", "outcome"]),
        Family(
            name: "broker_hook_calls_total", type: "counter",
            help: "Blocking hook calls by hook and outcome (answered, denied, failed).", labels: ["hook", "outcome"]),
        Family(
            name: "broker_outbox_queued_total", type: "counter", help: "Outbox jobs queued by this process, by kind.",
            labels: ["kind"]),
        Family(
            name: "broker_outbox_sent_total", type: "counter", help: "Outbox jobs the receiver accepted, by kind.",
            labels: ["kind"]),
        Family(
            name: "broker_outbox_failed_total", type: "counter",
            help: "Failed outbox attempts, by kind and result (retry, refused, given_up).", labels: ["kind", "result"]),
        Family(name: "broker_outbox_pending", type: "gauge", help: "Outbox jobs waiting for delivery.", labels: []),
        Family(
            name: "broker_outbox_oldest_pending_age_seconds", type: "gauge",
            help: "Age of the oldest outbox job waiting for delivery (0 when none).", labels: []),
    ]
}
