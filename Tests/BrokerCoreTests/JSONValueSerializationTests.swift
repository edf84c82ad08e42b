import BrokerCore
import BrokerModel
import Testing

@Suite struct JSONValueSerializationTests {
    @Test func objectsWriteTheirMembersSortedByKeyEachWithItsOwnValue() {
        let value: JSONValue = [
            "zeta": 1, "alpha": "a\"b", "Mid": true,
            "nested": ["b": .null, "a": [2, "x"]],
        ]
        #expect(
            String(decoding: value.serialized(), as: UTF8.self)
                == #"{"Mid":true,"alpha":"a\"b","nested":{"a":[2,"x"],"b":null},"zeta":1}"#)
    }
}
