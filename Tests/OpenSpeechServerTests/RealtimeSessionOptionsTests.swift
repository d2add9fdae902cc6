import Foundation
@testable import OpenSpeechServer
import Testing

/// `semantic_vad`, `input_audio_noise_reduction` and `include` in session updates, and the high-pass filter behind
/// noise reduction, without a model or a server.
@Suite struct RealtimeSessionOptionsTests {
    private func update(_ session: String) -> Result<RealtimeSessionUpdate, RealtimeEventError> {
        switch RealtimeClientEvent.decode(#"{"type":"transcription_session.update","session":\#(session)}"#) {
        case .failure(let error): return .failure(error)
        case .success(let received):
            guard case .updateSession(let update) = received.event else { Issue.record("not an update"); return .success(.init()) }
            return .success(update)
        }
    }

    private func error(_ session: String) -> RealtimeEventError? {
        if case .failure(let error) = update(session) { return error }
        return nil
    }

    @Test("semantic_vad's eagerness maps onto server VAD's silence duration; server_vad after it starts from its defaults")
    func semanticVAD() throws {
        let configuration = ServerConfiguration(defaultModelID: "whisper-tiny.en")
        var settings = try RealtimeSessionSettings(configuration: configuration)
        var silences: [String: Int] = [:]
        for eagerness in ["low", "medium", "high", "auto"] {
            let change = try update(#"{"turn_detection":{"type":"semantic_vad","eagerness":"\#(eagerness)"}}"#).get()
            #expect(change.turnDetection == .semanticVAD(eagerness: eagerness))
            settings = try settings.applying(change, configuration: configuration)
            let detection = try #require(settings.turnDetection)
            silences[eagerness] = detection.silenceDurationMilliseconds
            #expect(detection.threshold == 0.5 && detection.prefixPaddingMilliseconds == 300)
            let echoed = try #require(settings.sessionObject(id: "s")["turn_detection"] as? [String: Any])
            #expect(echoed["type"] as? String == "semantic_vad" && echoed["eagerness"] as? String == eagerness)
        }
        #expect(silences == ["high": 400, "medium": 800, "auto": 800, "low": 1_200])
        #expect(try update(#"{"turn_detection":{"type":"semantic_vad"}}"#).get().turnDetection == .semanticVAD(eagerness: "auto"))
        settings = try settings.applying(try update(#"{"turn_detection":{"type":"server_vad","threshold":0.6}}"#).get(),
                                         configuration: configuration)
        #expect(settings.turnDetection == .init(threshold: 0.6, prefixPaddingMilliseconds: 300, silenceDurationMilliseconds: 500))
        let bad = try #require(error(#"{"turn_detection":{"type":"semantic_vad","eagerness":"eager"}}"#))
        #expect(bad.code == "invalid_value" && bad.param == "session.turn_detection.eagerness" && bad.message.contains("`low`"))
        #expect(error(#"{"turn_detection":{"type":"push_to_talk"}}"#)?.param == "session.turn_detection.type")
    }

    @Test("input_audio_noise_reduction: near_field, far_field or null; anything else is an error naming the field")
    func noiseReduction() throws {
        let configuration = ServerConfiguration(defaultModelID: "whisper-tiny.en")
        let initial = try RealtimeSessionSettings(configuration: configuration)
        #expect(initial.noiseReduction == nil)
        let far = try initial.applying(try update(#"{"input_audio_noise_reduction":{"type":"far_field"}}"#).get(),
                                       configuration: configuration)
        #expect(far.noiseReduction == .farField && far.noiseReduction?.cutoffHertz == 120)
        #expect((far.sessionObject(id: "s")["input_audio_noise_reduction"] as? [String: Any])?["type"] as? String == "far_field")
        let off = try far.applying(try update(#"{"input_audio_noise_reduction":null}"#).get(), configuration: configuration)
        #expect(off.noiseReduction == nil && off.sessionObject(id: "s")["input_audio_noise_reduction"] is NSNull)
        #expect(try update(#"{"input_audio_noise_reduction":{"type":"near_field"}}"#).get().noiseReduction == .on(.nearField))
        for bad in [#"{"type":"studio"}"#, #""far_field""#, "{}"] {
            let failure = try #require(error(#"{"input_audio_noise_reduction":\#(bad)}"#), "\(bad)")
            #expect(failure.param == "session.input_audio_noise_reduction" && failure.message.contains("near_field"))
        }
    }

    @Test("include: logprobs asked for turns word times on and shows in the session; other values are errors")
    func include() throws {
        let configuration = ServerConfiguration(defaultModelID: "whisper-tiny.en")
        let initial = try RealtimeSessionSettings(configuration: configuration)
        #expect(!initial.includesLogprobs && !initial.options(configuration).wordTimestamps)
        let asked = try initial.applying(try update(#"{"include":["item.input_audio_transcription.logprobs"]}"#).get(),
                                         configuration: configuration)
        #expect(asked.includesLogprobs && asked.options(configuration).wordTimestamps)
        #expect(asked.sessionObject(id: "s")["include"] as? [String] == ["item.input_audio_transcription.logprobs"])
        let cleared = try asked.applying(try update(#"{"include":null}"#).get(), configuration: configuration)
        #expect(!cleared.includesLogprobs)
        let bad = try #require(error(#"{"include":["item.input_audio_transcription.everything"]}"#))
        #expect(bad.param == "session.include" && bad.code == "invalid_value")
    }

    /// The filter's gain at `frequency`, in dB, measured on a sine after it settled.
    private func gain(_ filter: HighPassFilter, at frequency: Double) -> Double {
        var filter = filter
        var samples = (0..<16_000).map { Float(sin(2 * Double.pi * frequency * Double($0) / 16_000)) }
        filter.process(&samples)
        let settled = samples[8_000...]
        let rms = (settled.map { Double($0 * $0) }.reduce(0, +) / Double(settled.count)).squareRoot()
        return 20 * log10(rms / (0.5).squareRoot())
    }

    @Test("the high-pass filter: rumble removed, voice kept, -3 dB at the cutoff, the same output however the audio is cut")
    func highPass() {
        let filter = HighPassFilter(cutoffHertz: 120)
        #expect(gain(filter, at: 30) < -20)
        #expect(abs(gain(filter, at: 120) + 3) < 0.5)
        #expect(abs(gain(filter, at: 1_000)) < 0.2)
        #expect(abs(gain(filter, at: 4_000)) < 0.2)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<5_000).map { _ in Float.random(in: -1...1, using: &generator) }
        var whole = filter, pieces = filter
        var all = noise
        whole.process(&all)
        var cut: [Float] = []
        for range in [0..<1, 1..<320, 320..<4_001, 4_001..<5_000] {
            var piece = Array(noise[range])
            pieces.process(&piece)
            cut += piece
        }
        #expect(cut == all)
    }
}
