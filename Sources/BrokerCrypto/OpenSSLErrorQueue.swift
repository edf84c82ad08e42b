import COpenSSL

/// OpenSSL's per-thread error queue. Every failure path empties it, so a stale error from one call never
/// shows up as the reason for another.
enum OpenSSLErrorQueue {
    /// Empties the calling thread's queue and returns the reason string of the oldest entry, if any.
    static func drain() -> String? {
        let first = ERR_get_error()
        ERR_clear_error()
        guard first != 0, let reason = ERR_reason_error_string(first) else { return nil }
        return String(cString: reason)
    }

    /// Empties the calling thread's queue, discarding its entries.
    static func clear() {
        ERR_clear_error()
    }
}
