@preconcurrency import Speech
import AVFoundation

/// SpeechAnalyzer with a SpeechTranscriber, the pipe's buffers converted to the analyzer's format as they come.
@available(macOS 26.0, iOS 26.0, *)
enum AnalyzerTranscription {
    enum Failure: Error { case noAudioFormat }

    static func transcribe(_ source: RawPCMSource, locale: Locale) async throws -> String {
        let transcriber = SpeechTranscriber(locale: locale, preset: .transcription)
        if let request = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
            try await request.downloadAndInstall()
        }
        guard let analyzerFormat = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]) else {
            throw Failure.noAudioFormat
        }
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let (inputSequence, inputBuilder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        let collector = Task {
            var text = AttributedString()
            for try await result in transcriber.results where result.isFinal {
                text += result.text
            }
            return String(text.characters)
        }
        try await analyzer.start(inputSequence: inputSequence)
        let converter = BufferConverter(to: analyzerFormat)
        for await buffer in source.buffers() {
            inputBuilder.yield(AnalyzerInput(buffer: try converter.convert(buffer)))
        }
        inputBuilder.finish()
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        return try await collector.value.trimmingCharacters(in: .whitespaces)
    }
}
