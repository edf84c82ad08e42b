import BrokerCore
public import BrokerModel
import FuzzSupport

/// The entry point SwiftPM links as `main`: libFuzzer's driver, fuzzing ``fuzzJSON(_:_:)``.
@_cdecl("fuzz_json_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzJSON)
}

/// `JSONValue.parse` on any bytes, then the serializer round trip: a parsed value, serialized and parsed again,
/// must give the same value (JSON has one number type: an integral `.double` is written as an integer and read back
/// as `.int`, the same number), and serializing that must give the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard let value = JSONValue.parse(bytes) else { return 0 }
    let text = value.serialized()
    guard let again = JSONValue.parse(text) else {
        fuzzFailure("the serializer wrote JSON its parser refuses: \(String(decoding: text.prefix(200), as: UTF8.self))")
    }
    guard same(again, value) else {
        fuzzFailure("parse(serialize(v)) != v: \(String(decoding: text.prefix(200), as: UTF8.self))")
    }
    guard again.serialized() == text else { fuzzFailure("serializing twice gave different bytes") }
    return 0
}

/// Whether `a` and `b` are the same JSON value: numbers compared as numbers, whichever case holds them.
func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(same)
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
    default: return a == b
    }
}
