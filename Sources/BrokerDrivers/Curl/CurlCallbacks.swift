import BrokerCore
import CBrokerShims
import CCurl

// libcurl's write and header callbacks. They run on the client's transfer thread, so they are plain
// nonisolated functions passed to C as `@convention(c)` function pointers; `userdata` is the transfer.

/// `CURLOPT_WRITEFUNCTION`: appends a chunk of the response body. Returning less than was offered makes
/// libcurl abort the transfer (`CURLE_WRITE_ERROR`), which happens when the body passes the size limit.
func curlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    return transfer.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// `CURLOPT_HEADERFUNCTION`: one header line at a time, status line included.
func curlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}
