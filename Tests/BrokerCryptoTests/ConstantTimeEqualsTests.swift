import BrokerCrypto
import Testing

@Suite struct ConstantTimeEqualsTests {
    @Test(arguments: [
        ([UInt8](), [UInt8](), true),
        ([1, 2, 3], [1, 2, 3], true),
        ([1, 2, 3], [0, 2, 3], false),
        ([1, 2, 3], [1, 2, 4], false),
        ([1, 2, 3], [1, 2], false),
        ([1, 2], [1, 2, 3], false),
        ([], [0], false),
        ([0], [], false),
    ])
    func comparesBytes(a: [UInt8], b: [UInt8], equal: Bool) {
        #expect(constantTimeEquals(a, b) == equal)
    }

    @Test func comparesHMACTags() {
        let tag = HMAC.sha256(key: [1, 2, 3], message: [4, 5, 6])
        #expect(constantTimeEquals(tag, HMAC.sha256(key: [1, 2, 3], message: [4, 5, 6])))
        #expect(!constantTimeEquals(tag, TestSupport.flipping(tag, at: 31, bit: 7)))
    }
}
