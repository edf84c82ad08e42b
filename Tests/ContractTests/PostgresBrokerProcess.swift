import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// A `broker serve` child process, as an operator runs one instance behind a load balancer, and a client
/// speaking HTTP to it.
final class BrokerProcess: Sendable {
    let child: ChildProcess
    /// `http://127.0.0.1:<port>`.
    let baseURL: String
    private let client: CurlHTTPClient

    private init(child: ChildProcess, baseURL: String, client: CurlHTTPClient) {
        self.child = child
        self.baseURL = baseURL
        self.client = client
    }

    /// Starts `broker serve --port 0` with `environment` and waits for its "listening" line.
    static func start(environment: [String: String]) async throws -> BrokerProcess {
        let child = try ProcessTests.spawn(["serve", "--port", "0"], environment: environment)
        let listening: String
        do {
            listening = try await child.waitForLog("\"listening\"")
        } catch {
            Issue.record("broker did not start: \(child.stderr)")
            throw error
        }
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue.map { String($0) })
        return BrokerProcess(child: child, baseURL: "http://127.0.0.1:\(port)", client: try CurlHTTPClient())
    }

    /// Sends a request; `bearer` adds `Authorization: Bearer`.
    func request(_ method: String, _ path: String, json: JSONValue? = nil, bearer: String? = nil) async throws
        -> InstanceResponse
    {
        var headers: [(name: String, value: String)] = []
        if json != nil { headers.append(("Content-Type", "application/json")) }
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let response = try await client.send(
            HTTPClientRequest(
                method: method, url: baseURL + path, headers: headers, body: json?.serialized() ?? [], timeout: 30))
        return InstanceResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// `POST path` with a JSON body.
    func post(_ path: String, _ json: JSONValue) async throws -> InstanceResponse {
        try await request("POST", path, json: json)
    }

    /// `GET path`.
    func get(_ path: String, bearer: String? = nil) async throws -> InstanceResponse {
        try await request("GET", path, bearer: bearer)
    }

    /// SIGTERM, then waits for the exit; returns the status.
    @discardableResult
    func stop() async throws -> Int32 {
        await client.shutdown()
        if child.isRunning { child.terminate() }
        return try await child.wait()
    }
}

/// A response from a ``BrokerProcess``.
struct InstanceResponse: Sendable {
    /// The status.
    var status: Int
    /// Headers, names lower-cased.
    var headers: [String: String]
    /// The body bytes.
    var body: [UInt8]
    /// The body as JSON, if it is.
    var json: JSONValue? { JSONValue.parse(body) }
    /// `error.code` of an error body.
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
}
