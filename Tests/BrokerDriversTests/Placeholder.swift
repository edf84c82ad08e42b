import Testing

@Test func placeholderBrokerDriversTests() { #expect(Bool(true)) }
