import Foundation
import SpeechAudio
import SpeechEngine

/// The first speech of a recording, window after window of at most 30 s, as a voice activity detector finds it
/// (silences of 2 s or more left out, the speech's stretches joined, each with 0.3 s around it, as the transcriber
/// beside a `SpeechDetector` hears it): what language detection hears. Reads only as much
/// of the audio as the windows asked for need, and at most `maxScannedSeconds` looking for speech. Without a detector
/// the windows are the audio's first 30 s pieces, as faster-whisper's.
///
/// Owned by one task (not `Sendable`, like the reader and detector it drives).
final class FirstSpeech {
    /// Whisper hears 30 s at a time.
    static let windowSamples = 30 * 16_000
    /// Audio read looking for speech, at most (a long silent recording is not read to its end).
    static let maxScannedSeconds = 600.0

    private let next: () throws -> [Float]
    private let detector: (any VoiceActivityDetector)?
    private var segmenter: SpeechSegmenter
    /// Audio read and not yet dropped, from timeline sample `audioStart`.
    private var audio: [Float] = []
    private var audioStart = 0
    /// Speech found and not yet handed out.
    private var speech: [Float] = []
    private var ended = false
    private var scanned = 0

    /// `next` gives the following 16 kHz mono samples (empty at the end); `detector` nil: no speech detection.
    init(next: @escaping () throws -> [Float], detector: (any VoiceActivityDetector)?) {
        self.next = next
        self.detector = detector
        detector?.reset()
        segmenter = SpeechSegmenter(options: SpeechSegmentationOptions(
            threshold: 0.5, minSpeechDuration: 0.25, minSilenceDuration: FinalOnlyTranscription.joiningSilence,
            speechPad: SpeechGate.margin, maxSpeechDuration: 30))
    }

    /// The next window of speech (30 s, or what is left of it at the end), nil when there is no more.
    func nextWindow() throws -> [Float]? {
        while speech.count < Self.windowSamples && !ended { try readMore() }
        guard !speech.isEmpty else { return nil }
        let count = min(speech.count, Self.windowSamples)
        defer { speech.removeFirst(count) }
        return Array(speech[..<count])
    }

    /// The speech the next window starts with, up to `maxSamples` (fewer at the end), without taking it: the next
    /// `nextWindow()` still starts there.
    func peek(maxSamples: Int) throws -> [Float] {
        while speech.count < min(maxSamples, Self.windowSamples) && !ended { try readMore() }
        return Array(speech.prefix(maxSamples))
    }

    private func readMore() throws {
        let samples = scanned < Int(Self.maxScannedSeconds * 16_000) ? try next() : []
        scanned += samples.count
        guard let detector else {
            if samples.isEmpty { ended = true } else { speech += samples }
            return
        }
        audio += samples
        var probabilities = detector.process(samples)
        var regions: [SpeechRegion]
        if samples.isEmpty {
            ended = true
            if let last = detector.finish() { probabilities.append(last) }
            regions = segmenter.consume(probabilities)
            regions += segmenter.finish(totalSamples: audioStart + audio.count)
        } else {
            regions = segmenter.consume(probabilities)
        }
        for region in regions {
            let lower = max(region.samples.lowerBound - audioStart, 0)
            let upper = min(region.samples.upperBound - audioStart, audio.count)
            if lower < upper { speech += audio[lower..<upper] }
        }
        // Keep the audio a region still open (or about to open, with its padding) may need.
        let keepFrom = (segmenter.openRegionStart ?? segmenter.chunkCount * VoiceActivityDetection.chunkLength) - 16_000
        let drop = min(max(keepFrom - audioStart, 0), audio.count)
        if drop > 0 {
            audio.removeFirst(drop)
            audioStart += drop
        }
    }
}
