import BrokerCore
import BrokerModel
import CBrokerShims
import CCurl

// The one funnel every libcurl return code passes through. An easy-interface code becomes the
// `HTTPClientError` kind the broker reacts to; a multi-interface code is always a transport failure.

/// Returns when `code` is `CURLE_OK`; otherwise throws the ``HTTPClientError`` for it. `errorBuffer` is the
/// transfer's `CURLOPT_ERRORBUFFER`, whose text (host and port at most, never headers) joins the detail.
func curlCheck(
    _ code: CURLcode, _ operation: @autoclosure () -> String, errorBuffer: UnsafePointer<CChar>? = nil
) throws(HTTPClientError) {
    guard code != CURLE_OK else { return }
    var detail = "\(operation()): \(String(cString: curl_easy_strerror(code)))"
    if let errorBuffer, errorBuffer.pointee != 0 {
        detail += " (\(String(cString: errorBuffer)))"
    }
    throw HTTPClientError(curlErrorCode(code), detail)
}

/// Returns when `code` is `CURLM_OK`; otherwise throws a `.transport` ``HTTPClientError``.
func curlCheck(_ code: CURLMcode, _ operation: @autoclosure () -> String) throws(HTTPClientError) {
    guard code != CURLM_OK else { return }
    throw HTTPClientError(.transport, "\(operation()): \(String(cString: curl_multi_strerror(code)))")
}

/// The kind of failure a libcurl easy code stands for.
private func curlErrorCode(_ code: CURLcode) -> HTTPClientError.Code {
    switch code {
    case CURLE_OPERATION_TIMEDOUT:
        return .timeout
    case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR,
        CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
        CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE:
        return .connectionFailed
    default:
        return .transport
    }
}

/// `curl_global_init`, run once per process before the first handle is made (Swift initialises a global
/// lazily and exactly once, on whichever thread asks first).
let curlGlobalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32))
