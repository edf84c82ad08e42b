import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The broker's HTTP API: JSON in, JSON out, its error bodies turned into ``BrokerAuthError``. An ephemeral
/// session: no cache, no cookies, nothing on disk.
struct Transport: Sendable {
    let baseURL: URL
    private let session: URLSession

    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    /// Sends `method path` with `body` (JSON) and `bearer` (an ID token); returns the body of a 2xx answer and
    /// throws the broker's error for any other.
    func send(_ method: String, _ path: String, body: JSONBody? = nil, bearer: String? = nil) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw BrokerAuthError.network(message: (error as? URLError)?.code.summary ?? "\(type(of: error))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if (200..<300).contains(status) { return data }
        guard let error = try? JSONDecoder().decode(ErrorBody.self, from: data) else {
            throw BrokerAuthError.unexpectedResponse(status: status)
        }
        let retryAfter = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) }
        throw BrokerAuthError(body: error.error, retryAfter: retryAfter)
    }

    /// ``send(_:_:body:bearer:)``, decoding the answer as `type`.
    func send<Answer: Decodable>(
        _ type: Answer.Type, _ method: String, _ path: String, body: JSONBody? = nil, bearer: String? = nil
    ) async throws -> Answer {
        let data = try await send(method, path, body: body, bearer: bearer)
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw BrokerAuthError.unexpectedResponse(status: 200)
        }
    }
}

extension URLError.Code {
    /// A short name for a network failure, with no URL in it.
    var summary: String {
        switch self {
        case .notConnectedToInternet: "not connected to the internet"
        case .timedOut: "timed out"
        case .cannotConnectToHost: "cannot connect to the broker"
        case .cannotFindHost: "cannot find the broker's host"
        case .networkConnectionLost: "the connection was lost"
        default: "URLError \(rawValue)"
        }
    }
}

/// The contract's session body (section 2).
struct SessionBody: Decodable, Sendable {
    var user: BrokerUser
    var isNewUser: Bool?
    var idToken: String
    var refreshToken: String
    var expiresIn: Int
    var customToken: String?
}

/// A `/v1/me/identities` answer: a session body for a guest's upgrade, the user otherwise.
enum LinkAnswer: Decodable {
    case session(SessionBody)
    case user(BrokerUser)

    init(from decoder: any Decoder) throws {
        if let session = try? SessionBody(from: decoder) {
            self = .session(session)
        } else {
            self = .user(try BrokerUser(from: decoder))
        }
    }
}
