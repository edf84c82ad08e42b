import Testing

@testable import BrokerCrypto

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 16, SecureRandom.pooledLimit, SecureRandom.pooledLimit + 1, RandomPool.size + 1])
    func givesTheCountAskedFor(count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func pooledBytesAreNeverHandedOutTwiceAcrossRefills() {
        // 1,000 ids of 16 bytes take four refills of the pool; any byte served twice would repeat an id.
        var seen = Set<[UInt8]>()
        for _ in 0..<1000 {
            seen.insert(SecureRandom.bytes(16))
        }
        #expect(seen.count == 1000)
    }

    @Test func pooledBytesAreTheRandomOnesNotTheZeroedOnes() {
        // The pool zeroes what it hands out: a copy taken after the zeroing would be all zeros.
        for _ in 0..<100 {
            #expect(SecureRandom.bytes(SecureRandom.pooledLimit).contains { $0 != 0 })
        }
    }

    @Test func aRequestThatDoesNotFitWhatIsLeftRefillsThePool() {
        var pool = RandomPool()
        let first = pool.take(RandomPool.size - 8)
        let second = pool.take(16)
        #expect(first.count == RandomPool.size - 8)
        #expect(second.count == 16)
        #expect(second.contains { $0 != 0 })
        #expect(pool.take(RandomPool.size).count == RandomPool.size)
    }

    @Test func concurrentCallersNeverShareBytes() async {
        let ids = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<250).map { _ in SecureRandom.bytes(16) } }
            }
            var all: [[UInt8]] = []
            for await part in group { all += part }
            return all
        }
        #expect(ids.count == 2000)
        #expect(Set(ids).count == 2000)
    }
}
