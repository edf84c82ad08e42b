import Testing

@Test func placeholderBrokerCoreTests() { #expect(Bool(true)) }
