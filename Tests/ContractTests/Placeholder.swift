import Testing

@Test func placeholderContractTests() { #expect(Bool(true)) }
