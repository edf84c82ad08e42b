import CCBOR

/// Reads CBOR with libcbor's streaming decoder (`cbor_stream_decode`), one item head per call, assembling
/// `CBORValue`s on an explicit stack: no recursion, so deep input costs no stack, and every bound of
/// `CBORLimits` is checked as the heads arrive, before anything is allocated for them.
public enum CBORDecoder {
    /// The one item that is the whole of `bytes`.
    ///
    /// - Throws: `CBORError` when the input is malformed, truncated, above `limits`, uses what is unsupported
    ///   (`CBORError.Code.unsupported`) or has bytes after the item.
    public static func decode(_ bytes: [UInt8], limits: CBORLimits = .webAuthn) throws(CBORError) -> CBORValue {
        let (value, consumed) = try decodeFirst(bytes[...], limits: limits)
        guard consumed == bytes.count else {
            throw CBORError(.trailingBytes, "\(bytes.count - consumed) bytes follow the CBOR item")
        }
        return value
    }

    /// The first item of `bytes` and how many bytes it took (WebAuthn's attested credential data has a COSE key
    /// followed by other bytes).
    public static func decodeFirst(
        _ bytes: ArraySlice<UInt8>, limits: CBORLimits = .webAuthn
    ) throws(CBORError) -> (value: CBORValue, consumed: Int) {
        guard bytes.count <= limits.maximumBytes else {
            throw CBORError(.tooLarge, "the input is \(bytes.count) bytes, above \(limits.maximumBytes)")
        }
        let assembly = CBORAssembly(limits: limits, inputSize: bytes.count)
        var callbacks = Self.callbacks
        var offset = 0
        let context = Unmanaged.passUnretained(assembly).toOpaque()
        while assembly.result == nil && assembly.error == nil {
            let result = bytes.withUnsafeBufferPointer { buffer -> cbor_decoder_result in
                guard let base = buffer.baseAddress else {
                    return cbor_decoder_result(read: 0, status: CBOR_DECODER_NEDATA, required: 1)
                }
                return cbor_stream_decode(base + offset, buffer.count - offset, &callbacks, context)
            }
            switch result.status {
            case CBOR_DECODER_FINISHED:
                offset += result.read
                assembly.remaining = bytes.count - offset
            case CBOR_DECODER_NEDATA:
                throw CBORError(.truncated, "the input ends inside a CBOR item")
            default:
                throw CBORError(.malformed, "libcbor found a malformed item at byte \(offset)")
            }
        }
        if let error = assembly.error { throw error }
        guard let value = assembly.result else { throw CBORError(.truncated, "no CBOR item") }
        return (value, offset)
    }

    /// The callbacks: each hands its item to the assembly; indefinite-length starts and breaks are refusals.
    private static var callbacks: cbor_callbacks {
        var callbacks = cbor_empty_callbacks
        callbacks.uint8 = { assembly($0)?.add(.unsigned(UInt64($1))) }
        callbacks.uint16 = { assembly($0)?.add(.unsigned(UInt64($1))) }
        callbacks.uint32 = { assembly($0)?.add(.unsigned(UInt64($1))) }
        callbacks.uint64 = { assembly($0)?.add(.unsigned($1)) }
        callbacks.negint8 = { assembly($0)?.add(.negative(UInt64($1))) }
        callbacks.negint16 = { assembly($0)?.add(.negative(UInt64($1))) }
        callbacks.negint32 = { assembly($0)?.add(.negative(UInt64($1))) }
        callbacks.negint64 = { assembly($0)?.add(.negative($1)) }
        callbacks.byte_string = { context, data, count in
            guard let assembly = assembly(context) else { return }
            guard count == 0 || data != nil else { return assembly.fail(.malformed, "a byte string without data") }
            assembly.add(.bytes(count == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: count))))
        }
        callbacks.string = { context, data, count in
            guard let assembly = assembly(context) else { return }
            let bytes = count == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: count))
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return assembly.fail(.unsupported, "a text string that is not UTF-8")
            }
            assembly.add(.text(text))
        }
        callbacks.array_start = { assembly($0)?.open(.array, count: $1) }
        callbacks.map_start = { assembly($0)?.open(.map, count: $1) }
        callbacks.tag = { assembly($0)?.open(.tag($1), count: 1) }
        callbacks.float2 = { assembly($0)?.add(.float(Double($1))) }
        callbacks.float4 = { assembly($0)?.add(.float(Double($1))) }
        callbacks.float8 = { assembly($0)?.add(.float($1)) }
        callbacks.boolean = { assembly($0)?.add(.bool($1)) }
        callbacks.null = { assembly($0)?.add(.null) }
        callbacks.undefined = { assembly($0)?.add(.undefined) }
        callbacks.byte_string_start = { assembly($0)?.refuseIndefinite() }
        callbacks.string_start = { assembly($0)?.refuseIndefinite() }
        callbacks.indef_array_start = { assembly($0)?.refuseIndefinite() }
        callbacks.indef_map_start = { assembly($0)?.refuseIndefinite() }
        callbacks.indef_break = { assembly($0)?.refuseIndefinite() }
        return callbacks
    }
}

/// The assembly behind a callback's context pointer (always `decodeFirst`'s, alive for the whole call). A free
/// function: a C callback may capture nothing, not even the type it is declared in.
private func assembly(_ context: UnsafeMutableRawPointer?) -> CBORAssembly? {
    guard let context else { return nil }
    return Unmanaged<CBORAssembly>.fromOpaque(context).takeUnretainedValue()
}

/// The state of one decode: the open containers, the finished item, the first refusal. Used by one call of
/// `CBORDecoder.decodeFirst` on one thread only (libcbor calls back synchronously).
private final class CBORAssembly {
    /// What an open container is.
    enum Kind {
        case array
        case map
        case tag(UInt64)
    }

    /// A container whose items are still arriving.
    struct Frame {
        var kind: Kind
        var expected: Int
        var items: [CBORValue] = []
    }

    let limits: CBORLimits
    /// Input bytes not yet consumed: a container declaring more items than this cannot be honest.
    var remaining: Int
    var stack: [Frame] = []
    var itemCount = 0
    var result: CBORValue?
    var error: CBORError?

    init(limits: CBORLimits, inputSize: Int) {
        self.limits = limits
        remaining = inputSize
    }

    func fail(_ code: CBORError.Code, _ message: String) {
        if error == nil { error = CBORError(code, message) }
    }

    func refuseIndefinite() {
        fail(.unsupported, "an indefinite-length item")
    }

    /// Counts one item against the limit; false (and the refusal recorded) past it.
    private func count() -> Bool {
        guard error == nil else { return false }
        itemCount += 1
        guard itemCount <= limits.maximumItems else {
            fail(.tooLarge, "more than \(limits.maximumItems) items")
            return false
        }
        return true
    }

    /// A finished item: the result at the top level, else the next item of the innermost container, closing
    /// every container it completes.
    func add(_ value: CBORValue) {
        guard count() else { return }
        deliver(value)
    }

    private func deliver(_ value: CBORValue) {
        var value = value
        while true {
            guard var frame = stack.popLast() else {
                result = value
                return
            }
            frame.items.append(value)
            guard frame.items.count == frame.expected else {
                stack.append(frame)
                return
            }
            guard let closed = close(frame) else { return }
            value = closed
        }
    }

    /// A container head announcing `count` items (pairs for a map).
    func open(_ kind: Kind, count declared: Int) {
        guard count() else { return }
        guard stack.count < limits.maximumDepth else {
            return fail(.tooLarge, "nesting deeper than \(limits.maximumDepth)")
        }
        let (expected, overflow) = declared.multipliedReportingOverflow(by: { if case .map = kind { 2 } else { 1 } }())
        // Each item takes at least one byte, so a count above the bytes left is a lie (and never allocated for).
        guard !overflow, expected <= remaining, expected <= limits.maximumItems else {
            return fail(.tooLarge, "a container declaring \(declared) items in \(remaining) bytes")
        }
        let frame = Frame(kind: kind, expected: expected)
        if expected == 0 {
            if let closed = close(frame) { deliver(closed) }
        } else {
            stack.append(frame)
        }
    }

    /// The value of a complete container; nil (and the refusal recorded) for a map with a repeated key.
    private func close(_ frame: Frame) -> CBORValue? {
        switch frame.kind {
        case .array:
            return .array(frame.items)
        case .tag(let tag):
            return .tagged(tag, frame.items[0])
        case .map:
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(frame.items.count / 2)
            var keys = Set<CBORValue>()
            for index in stride(from: 0, to: frame.items.count, by: 2) {
                guard keys.insert(frame.items[index]).inserted else {
                    fail(.unsupported, "a map with a repeated key")
                    return nil
                }
                entries.append(CBORMapEntry(frame.items[index], frame.items[index + 1]))
            }
            return .map(entries)
        }
    }
}
