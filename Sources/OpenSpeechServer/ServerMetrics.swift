import Foundation
import Prometheus

/// The server's Prometheus metrics (`GET /metrics`): requests by route and status, queue depth and running
/// transcriptions, audio seconds transcribed and processing seconds (their ratio is the real-time factor), and the
/// real-time factor of each transcription.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let queueDepth: Gauge
    private let running: Gauge
    private let audioSeconds: Counter
    private let processingSeconds: Counter
    private let realTimeFactor: ValueHistogram

    init() {
        queueDepth = registry.makeGauge(name: "openspeech_queue_depth", help: "Requests waiting for a transcription slot.")
        running = registry.makeGauge(name: "openspeech_transcriptions_running", help: "Transcriptions running now.")
        audioSeconds = registry.makeCounter(name: "openspeech_audio_seconds_total", help: "Seconds of audio transcribed.")
        processingSeconds = registry.makeCounter(
            name: "openspeech_processing_seconds_total", help: "Seconds spent transcribing (wall clock, per request).")
        realTimeFactor = registry.makeValueHistogram(
            name: "openspeech_real_time_factor", buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2],
            help: "Processing time over audio duration, per transcription.")
    }

    func requestFinished(route: String, status: Int) {
        registry.makeCounter(name: "openspeech_requests_total", labels: [("route", route), ("status", String(status))],
                             help: "HTTP requests answered, by route and status.").increment()
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

    func text() -> String { registry.emitToString() }
}
