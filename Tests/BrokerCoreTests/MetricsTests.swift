import BrokerCore
import BrokerModel
import Testing

@Suite struct MetricsTests {
    @Test func countersWithTheSameLabelsAddUpAndValuesAreEscapedWhenRendered() {
        let metrics = Metrics()
        metrics.describe("requests_total", type: "counter", help: "Requests.")
        metrics.increment("requests_total", labels: ["route": "/v1/me", "status": "200"])
        metrics.increment("requests_total", labels: ["route": "/v1/me", "status": "200"], by: 2)
        metrics.increment("requests_total", labels: ["route": "a\"b\\c\nd", "status": "500"])
        #expect(metrics.value("requests_total", labels: ["route": "/v1/me", "status": "200"]) == 3)
        #expect(metrics.value("requests_total", labels: ["status": "200", "route": "/v1/me"]) == 0)  // order is part of the key

        let text = metrics.exposition()
        #expect(text.contains("# HELP requests_total Requests.\n# TYPE requests_total counter\n"))
        #expect(text.contains("requests_total{route=\"/v1/me\",status=\"200\"} 3\n"))
        #expect(text.contains("requests_total{route=\"a\\\"b\\\\c\\nd\",status=\"500\"} 1\n"))
    }

    @Test func histogramsCountEveryBucketAtOrAboveTheObservation() {
        let metrics = Metrics()
        metrics.observe("latency_seconds", labels: ["provider": "kakao"], seconds: 0.02)
        metrics.observe("latency_seconds", seconds: 7)
        let text = metrics.exposition()
        #expect(text.contains("latency_seconds_bucket{provider=\"kakao\",le=\"0.01\"} 0\n"))
        #expect(text.contains("latency_seconds_bucket{provider=\"kakao\",le=\"0.025\"} 1\n"))
        #expect(text.contains("latency_seconds_bucket{provider=\"kakao\",le=\"+Inf\"} 1\n"))
        #expect(text.contains("latency_seconds_count{provider=\"kakao\"} 1\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"5\"} 0\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"10\"} 1\n"))
        #expect(text.contains("latency_seconds_sum 7\n"))
    }

    @Test func anUndescribedFamilyStillGetsHelpAndType() {
        let metrics = Metrics()
        metrics.increment("plain_total")
        metrics.observe("plain_seconds", seconds: 0.2)
        let text = metrics.exposition()
        #expect(text.contains("# HELP plain_total plain_total (no description).\n# TYPE plain_total counter\nplain_total 1\n"))
        #expect(text.contains("# HELP plain_seconds plain_seconds (no description).\n# TYPE plain_seconds histogram\n"))
    }
}
