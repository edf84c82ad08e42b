import Testing

@Test func placeholderBrokerCryptoTests() { #expect(Bool(true)) }
