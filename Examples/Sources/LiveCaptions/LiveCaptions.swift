// Live captions from the microphone with Apple's SpeechAnalyzer API: the words being heard are shown dimmed and
// rewritten in place, each final result on its own line. `live-captions [en-US]`; Ctrl-C ends.
import Dispatch
import Foundation
import OpenSpeech

@main
struct LiveCaptions {
    static func main() async throws {
        let locale = Locale(identifier: CommandLine.arguments.dropFirst().first ?? "en-US")
        let transcriber = SpeechTranscriber(locale: locale, preset: .progressiveTranscription)
        if let request = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
            try await request.downloadAndInstall()
        }
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        guard let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]) else { return }

        // The microphone, converted to the analyzer's format as it arrives.
        let (inputs, feed) = AsyncStream<AnalyzerInput>.makeStream()
        let engine = AVAudioEngine()
        let microphone = engine.inputNode.outputFormat(forBus: 0)
        guard let converter = AVAudioConverter(from: microphone, to: format) else { return }
        engine.inputNode.installTap(onBus: 0, bufferSize: 4096, format: microphone) { buffer, _ in
            let frames = AVAudioFrameCount(Double(buffer.frameLength) * format.sampleRate / microphone.sampleRate) + 16
            guard let converted = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames),
                  (try? converter.convert(to: converted, from: buffer)) != nil else { return }
            feed.yield(AnalyzerInput(buffer: converted))
        }
        engine.prepare()
        try engine.start()
        try await analyzer.start(inputSequence: inputs)

        // Ctrl-C: stop listening; what was heard is finalized below.
        let (interrupted, interrupt) = AsyncStream<Void>.makeStream()
        signal(SIGINT, SIG_IGN)
        let signals = DispatchSource.makeSignalSource(signal: SIGINT)
        signals.setEventHandler { interrupt.finish() }
        signals.resume()

        let captions = Task {
            for try await result in transcriber.results {
                let text = String(result.text.characters).trimmingCharacters(in: .whitespaces)
                let line = result.isFinal ? "\r\u{1B}[K\(text)\n" : "\r\u{1B}[K\u{1B}[2m\(text)\u{1B}[0m"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        }
        for await _ in interrupted {}
        engine.stop()
        feed.finish()
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        try await captions.value
    }
}
