import BrokerCore
import BrokerModel
extension HTTPRequest {
    /// Refuses query parameters outside `allowed` with 400 `INVALID_REQUEST` naming the first: a misspelt filter
    /// (`?emial=`) must not be ignored, answering everything as if no filter had been asked for.
    func allowOnlyQuery(_ allowed: Set<String>) throws {
        if let unknown = query.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.invalidRequest("\(NativeBody.printable(unknown)) is not a parameter of this request.")
        }
    }
}
