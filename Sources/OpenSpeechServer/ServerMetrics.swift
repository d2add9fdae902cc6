import Foundation
import Prometheus

/// The server's Prometheus metrics (`GET /metrics`): requests by route and status, queue depth and running
/// transcriptions, audio seconds transcribed and processing seconds (their ratio is the real-time factor), and the
/// real-time factor of each transcription; Realtime sessions open and asked for, and the audio they received.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let queueDepth: Gauge
    private let running: Gauge
    private let audioSeconds: Counter
    private let processingSeconds: Counter
    private let realTimeFactor: ValueHistogram
    private let realtimeOpen: Gauge
    private let realtimeAudioSeconds: Counter
    private let uploads: Gauge

    init() {
        queueDepth = registry.makeGauge(descriptor: Self.name("queue_depth", "Requests waiting for a transcription slot."))
        running = registry.makeGauge(descriptor: Self.name("transcriptions_running", "Transcriptions running now."))
        audioSeconds = registry.makeCounter(descriptor: Self.name("audio_seconds_total", "Seconds of audio transcribed."))
        processingSeconds = registry.makeCounter(descriptor: Self.name(
            "processing_seconds_total", "Seconds spent transcribing (wall clock, per request)."))
        realTimeFactor = registry.makeValueHistogram(
            descriptor: Self.name("real_time_factor", "Processing time over audio duration, per transcription."),
            buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2])
        realtimeOpen = registry.makeGauge(descriptor: Self.name("realtime_sessions_open", "Realtime sessions open now."))
        realtimeAudioSeconds = registry.makeCounter(descriptor: Self.name(
            "realtime_audio_seconds_total", "Seconds of audio received by Realtime sessions."))
        uploads = registry.makeGauge(descriptor: Self.name(
            "uploads_in_progress", "Uploads being received or held on disk now."))
    }

    func uploadsChanged(_ count: Int) {
        uploads.set(Double(count))
    }

    /// `openspeech_NAME` with its help text.
    private static func name(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "openspeech", metricName: name, unitName: "", helpText: help)
    }

    func requestFinished(route: String, status: Int) {
        registry.makeCounter(descriptor: Self.name("requests_total", "HTTP requests answered, by route and status."),
                             labels: [("route", route), ("status", String(status))]).increment()
    }

    func slotsChanged(running: Int, waiting: Int) {
        self.running.set(Double(running))
        queueDepth.set(Double(waiting))
    }

    func transcribed(audioSeconds audio: Double, processingSeconds processing: Double) {
        audioSeconds.increment(by: audio)
        processingSeconds.increment(by: processing)
        if audio > 0 { realTimeFactor.record(processing / audio) }
    }

    /// A Realtime session opened (`outcome` `accepted`) or was refused (`refused`: over the limit, wrong key...);
    /// `open`: the sessions open now.
    func realtimeSession(outcome: String, open: Int) {
        registry.makeCounter(descriptor: Self.name("realtime_sessions_total", "Realtime sessions asked for, by outcome."),
                             labels: [("outcome", outcome)]).increment()
        realtimeOpen.set(Double(open))
    }

    func realtimeSessionClosed(open: Int) {
        realtimeOpen.set(Double(open))
    }

    func realtimeAudio(seconds: Double) {
        realtimeAudioSeconds.increment(by: seconds)
    }

    func text() -> String { registry.emitToString() }
}
