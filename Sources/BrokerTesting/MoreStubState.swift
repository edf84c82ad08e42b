import Foundation

/// The Naver, LINE and OIDC stubs' users, faults and counters (`StubProviders+More.swift`), guarded by `lock`.
final class MoreStubState: @unchecked Sendable {
    let lock = NSLock()
    var naverTokens: [String: NaverStubUser] = [:]
    var lineTokens: [String: LineStubUser] = [:]
    var faults: [String: StubFault] = [:]
    var calls: [String: Int] = [:]
    var oidcIssuer: String?
}
