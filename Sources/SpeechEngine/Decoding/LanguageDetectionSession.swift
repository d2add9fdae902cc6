import Foundation

/// Language detection with a `LanguageDetectionModel`: the window's encoding, then one decoder step on the
/// start-of-transcript token whose logits are those of the language tokens alone. The same probabilities as
/// `WhisperSession.detectLanguage` on the whole model (to rounding). Owns its scratch memory: one per task.
public final class LanguageDetectionSession {
    public let model: LanguageDetectionModel
    private let encoder: AudioEncoder
    private let decoder: TextDecoder
    private let melTables: LogMelSpectrogram.Tables
    private let melBuffer = Buffer()

    public init(model: LanguageDetectionModel) {
        self.model = model
        let parallel = Parallel(threads: model.threads)
        encoder = AudioEncoder(weights: model.weights, parallel: parallel)
        decoder = TextDecoder(weights: model.weights, maxBeams: 1, parallel: parallel)
        melTables = LogMelSpectrogram.Tables(melBins: model.dimensions.melBins)
    }

    /// Language probabilities on the first 30 s of `samples`, most likely first; `encodedPositions` as
    /// `WhisperSession.detectLanguage`'s (nil: the whole padded window). English-only models: English, surely.
    public func detectLanguage(samples: [Float], encodedPositions: Int? = nil)
        throws -> [(language: String, probability: Double)] {
        guard model.isMultilingual else { return [("en", 1)] }
        try WhisperSession.validate(samples)
        let mel = LogMelSpectrogram(samples: samples, tables: melTables)
        let context = model.dimensions.audioContext
        let positions = max(1, min(encodedPositions ?? context, context))
        let features = melBuffer.reserve(LogMelSpectrogram.windowFrames * model.dimensions.melBins)
        mel.window(start: 0, count: min(mel.contentFrames, LogMelSpectrogram.windowFrames), into: features)
        let encoded = StageTimes.measure(.encoder) { encoder.encode(features, positions: positions) }
        StageTimes.measure(.crossKeysValues) { decoder.setMemory(encoded, frames: positions) }
        // Token 0 of the model's reduced vocabulary is start of transcript; token 1 + i is language i.
        let logits = decoder.forward(tokens: [0], start: 0, outputRows: [0])
        let languages = model.tokens.languages
        let values = languages.indices.map { logits[1 + $0] }
        let m = values.max() ?? 0
        let exps = values.map { libmExp(Double($0 - m)) }
        let total = exps.reduce(0, +)
        return zip(languages, exps).compactMap { language, e in language.code.map { ($0, e / total) } }
            .sorted { $0.1 > $1.1 }
    }
}
