import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation

extension InProcessBroker {
    /// The action codes in the mails queued to `email` (all of them, or those whose link has `mode`), oldest first.
    public func mailedCodes(to email: String, mode: String? = nil) async throws -> [String] {
        await store.outboxJobs(uid: nil, limit: 1000).sorted { $0.createdAt < $1.createdAt }.compactMap { job in
            guard job.kind == .mail, let mail = JSONValue.parse(job.payload), mail["to"]?.stringValue == email,
                let text = mail["text"]?.stringValue, mode.map({ text.contains("mode=" + $0) }) ?? true,
                let range = text.range(of: "oobCode=")
            else { return nil }
            return String(text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }
}
