// Apple's macOS/iOS 27 microphone path, `CaptureInputSequenceProvider` on an `AVCaptureSession`, written as Apple's
// documentation shows it, on a PulseAudio daemon's input while a corpus clip is played into it in real time.
import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

@Suite(.serialized) struct CaptureProviderTests {
    @Test("the default microphone through CaptureInputSequenceProvider: the clip's words, WER within 2 points of the file")
    func capturesTheMicrophone() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item(SeedMicrophoneTests.clipID))
        let fromFile = SeedMicrophoneTests.score(try await transcribeWithAssetProvider(clip.originalURL), clip)
        try await withPulseAudio { daemon in
            let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription)
            let modules: [any SpeechModule] = [transcriber]
            let analyzer = SpeechAnalyzer(modules: modules)
            guard let captureDevice = AVCaptureDevice.default(.microphone, for: .audio, position: .unspecified) else {
                Issue.record("no microphone on the daemon")
                return
            }
            let provider = try await CaptureInputSequenceProvider.providerWithSession(from: captureDevice,
                                                                                      compatibleWith: modules)
            let results = Task {
                var text = ""
                for try await result in transcriber.results { text += String(result.text.characters) }
                return text
            }
            let audio = provider.analyzerInputs
            let analysis = Task {
                let lastAudioTime = try await analyzer.analyzeSequence(audio)
                if let lastAudioTime {
                    try await analyzer.finalizeAndFinish(through: lastAudioTime)
                } else {
                    await analyzer.cancelAndFinishNow()
                }
                return lastAudioTime
            }
            provider.captureSession.startRunning()
            #expect(provider.captureSession.isRunning)
            try await daemon.play(try SeedMicrophoneTests.clipSamples(clip), rate: 48_000)
            try await Task.sleep(for: .milliseconds(500))
            provider.captureSession.stopRunning()
            let lastAudioTime = try #require(try await analysis.value)
            let text = try await results.value
            let live = SeedMicrophoneTests.score(text, clip)
            #expect(SeedMicrophoneTests.close(live, to: fromFile, clip), "live WER \(live) vs file \(fromFile): \(text)")
            // The timeline is the capture's: the clip and the half second after it, give or take start-up.
            #expect(lastAudioTime.seconds >= clip.durationSeconds, "\(lastAudioTime.seconds) s captured")
        }
    }

    @Test func devicesAreTheSoundServersInputs() async throws {
        try await withPulseAudio { daemon in
            let module = try daemon.addVirtualInput("second")
            defer { _ = try? daemon.pactl(["unload-module", module]) }
            let devices = AVCaptureDevice.DiscoverySession(deviceTypes: [.microphone], mediaType: .audio,
                                                           position: .unspecified).devices
            #expect(devices.contains { $0.uniqueID == "second.monitor" }, "\(devices.map(\.uniqueID))")
            let second = try #require(AVCaptureDevice(uniqueID: "second.monitor"))
            #expect(AVCaptureDevice(uniqueID: "no-such-input") == nil)
            let first = try #require(AVCaptureDevice.default(for: .audio))
            #expect(first != second)

            // A session captures one device: a provider for another on it is refused with a sentence.
            let session = AVCaptureSession()
            session.addInput(try AVCaptureDeviceInput(device: first))
            let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription)
            try await TestEnvironment.ready()
            do {
                _ = try await CaptureInputSequenceProvider.provider(from: second, in: session, compatibleWith: [transcriber])
                Issue.record("a second device was added to a session")
            } catch let error as SFSpeechError {
                #expect(error.code == .cannotConfigureAudioSystem && error.message.contains("one audio device"), "\(error)")
            }
            let provider = try await CaptureInputSequenceProvider.provider(from: first, in: session,
                                                                           compatibleWith: [transcriber])
            #expect(provider.captureSession === session && session.outputs.count == 1)
        }
    }

    @Test func aDeviceThatGoesAwayEndsTheSequenceWithItsError() async throws {
        try await TestEnvironment.ready()
        try await withPulseAudio { daemon in
            let module = try daemon.addVirtualInput("brief")
            let device = try #require(AVCaptureDevice(uniqueID: "brief.monitor"))
            let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription)
            let provider = try await CaptureInputSequenceProvider.providerWithSession(from: device,
                                                                                      compatibleWith: [transcriber])
            try daemon.pactl(["unload-module", module])
            // A new input of it is refused; the session made while it was there fails to start, and says why.
            #expect(throws: AudioError.self) { _ = try AVCaptureDeviceInput(device: device) }
            let inputs = provider.analyzerInputs
            provider.captureSession.startRunning()
            #expect(!provider.captureSession.isRunning)
            do {
                for try await _ in inputs {}
                Issue.record("the sequence ended without the capture's error")
            } catch let error as AudioError {
                #expect("\(error)".contains("brief.monitor"), "\(error)")
            }
        }
    }
}
