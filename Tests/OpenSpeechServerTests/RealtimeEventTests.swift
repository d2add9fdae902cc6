import Foundation
@testable import OpenSpeechServer
import Testing

/// The Realtime session's pure parts, without a model or a server: client-event decoding, audio decoding, session
/// settings, hotword lists and server VAD's turn policy.
@Suite struct RealtimeEventTests {
    private func decode(_ text: String) -> Result<RealtimeClientEvent.Received, RealtimeEventError> {
        RealtimeClientEvent.decode(text)
    }

    private func error(_ text: String) -> RealtimeEventError? {
        if case .failure(let error) = decode(text) { return error }
        return nil
    }

    @Test("each client event decodes, with its event_id")
    func clientEvents() throws {
        let audio = Data([1, 2, 3, 250]).base64EncodedString()
        #expect(try decode(#"{"type":"input_audio_buffer.append","audio":"\#(audio)","event_id":"e1"}"#).get()
                == .init(event: .appendAudio(Data([1, 2, 3, 250])), eventID: "e1"))
        #expect(try decode(#"{"type":"input_audio_buffer.commit"}"#).get().event == .commit)
        #expect(try decode(#"{"type":"input_audio_buffer.clear"}"#).get().event == .clear)
        let update = try decode(#"""
            {"type":"transcription_session.update","session":{"input_audio_format":"g711_ulaw",
             "input_audio_transcription":{"model":"whisper-1","language":"en","prompt":"names","hotwords":["Risdon","Gurr"]},
             "turn_detection":{"type":"server_vad","threshold":0.6,"prefix_padding_ms":200,"silence_duration_ms":800}}}
            """#).get().event
        #expect(update == .updateSession(RealtimeSessionUpdate(
            inputAudioFormat: .g711Ulaw, model: "whisper-1", language: "en", prompt: "names", hotwords: ["Risdon", "Gurr"],
            turnDetection: .serverVAD(threshold: 0.6, prefixPaddingMilliseconds: 200, silenceDurationMilliseconds: 800))))
        let off = try decode(#"{"type":"transcription_session.update","session":{"turn_detection":null}}"#).get().event
        #expect(off == .updateSession(RealtimeSessionUpdate(turnDetection: .off)))
        let untouched = try decode(#"{"type":"transcription_session.update","session":{}}"#).get().event
        #expect(untouched == .updateSession(RealtimeSessionUpdate()))
    }

    @Test("bad messages give typed errors naming the problem, with the client's event_id")
    func badMessages() throws {
        #expect(error("{not json")?.code == "invalid_json")
        #expect(error("")?.code == "invalid_json")
        #expect(error("[1,2]")?.code == "invalid_json")
        #expect(error(#"{"audio":"AAAA"}"#)?.param == "type")
        let unknown = try #require(error(#"{"type":"response.create","event_id":"c9"}"#))
        #expect(unknown.code == "unknown_event" && unknown.eventID == "c9" && unknown.message.contains("response.create"))
        #expect(error(#"{"type":"input_audio_buffer.append","audio":"%%%"}"#)?.code == "invalid_value")
        #expect(error(#"{"type":"input_audio_buffer.append","audio":"abc"}"#)?.param == "audio")
        #expect(error(#"{"type":"input_audio_buffer.append","audio":12}"#)?.code == "missing_required_parameter")
        #expect(error(#"{"type":"input_audio_buffer.append"}"#)?.code == "missing_required_parameter")
        #expect(error(#"{"type":"transcription_session.update"}"#)?.param == "session")
        #expect(error(#"{"type":"transcription_session.update","session":{"input_audio_format":"mp3"}}"#)?.param
                == "session.input_audio_format")
        #expect(error(#"{"type":"transcription_session.update","session":{"turn_detection":{"threshold":2}}}"#)?.param
                == "session.turn_detection.threshold")
        #expect(error(#"{"type":"transcription_session.update","session":{"turn_detection":{"threshold":true}}}"#)?.param
                == "session.turn_detection.threshold")
        #expect(error(#"{"type":"transcription_session.update","session":{"turn_detection":{"type":"push_to_talk"}}}"#)?
                .param == "session.turn_detection.type")
        #expect(error(#"{"type":"transcription_session.update","session":{"input_audio_transcription":{"hotwords":[1]}}}"#)?
                .param == "session.input_audio_transcription.hotwords")
        #expect(error(#"{"type":"transcription_session.update","session":{"input_audio_transcription":{"model":5}}}"#)?
                .code == "invalid_type")
        let diarize = error(#"{"type":"transcription_session.update","session":{"input_audio_transcription":{"diarize":"yes"}}}"#)
        #expect(diarize?.code == "invalid_type" && diarize?.param == "session.input_audio_transcription.diarize")
    }

    @Test("server events carry OpenAI's fields")
    func serverEvents() throws {
        func fields(_ event: RealtimeServerEvent) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
        }
        let error = try fields(.error(RealtimeEventError(code: "invalid_json", "bad", eventID: "c1")))
        #expect(error["type"] as? String == "error")
        #expect((error["event_id"] as? String)?.hasPrefix("event_") == true)
        let detail = try #require(error["error"] as? [String: Any])
        #expect(detail["code"] as? String == "invalid_json" && detail["event_id"] as? String == "c1")
        #expect(detail["type"] as? String == "invalid_request_error" && detail["param"] is NSNull)
        let completed = try fields(.transcriptionCompleted(itemID: "item_1", transcript: "Hello.", audioSeconds: 1.5))
        #expect(completed["type"] as? String == "conversation.item.input_audio_transcription.completed")
        #expect(completed["transcript"] as? String == "Hello." && completed["content_index"] as? Int == 0)
        let committed = try fields(.committed(itemID: "item_2", previousItemID: nil))
        #expect(committed["previous_item_id"] is NSNull && committed["item_id"] as? String == "item_2")
    }

    @Test("PCM16 decodes the same however the bytes are cut, odd cuts included; G.711 expands to known values")
    func audioDecoding() {
        let samples: [Int16] = (0..<999).map { Int16(truncatingIfNeeded: $0 &* 7919 &- 30_000) }
        let bytes = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        for cut in [1, 3, 7, 64, 1001] {
            var decoder = InputAudioDecoder(format: .pcm16)
            var decoded: [Int16] = []
            var offset = 0
            while offset < bytes.count {
                decoded += decoder.decode(bytes[offset..<min(bytes.count, offset + cut)])
                offset += cut
            }
            #expect(decoded == samples, "cut \(cut)")
            #expect(decoder.pendingByteCount == 0)
        }
        // G.711: silence codes and the extremes (ITU-T tables).
        #expect(InputAudioDecoder.expandULaw(0xFF) == 0 && InputAudioDecoder.expandULaw(0x7F) == 0)
        #expect(InputAudioDecoder.expandULaw(0x00) == -32124 && InputAudioDecoder.expandULaw(0x80) == 32124)
        #expect(InputAudioDecoder.expandALaw(0xD5) == 8 && InputAudioDecoder.expandALaw(0x55) == -8)
        #expect(InputAudioDecoder.expandALaw(0xAA) == 32256 && InputAudioDecoder.expandALaw(0x2A) == -32256)
    }

    @Test("hotwords: comma-separated phrases or space-separated words, trimmed, without repeats; at most 200 of at most 64 characters, else a sentence")
    func hotwordLists() throws {
        #expect(try HotwordList.parse("Risdon, Zoë Quinn ,gurr,, Risdon") == ["Risdon", "Zoë Quinn", "gurr"])
        #expect(try HotwordList.parse("  archy  risdon\ngurr ") == ["archy", "risdon", "gurr"])
        #expect(try HotwordList.parse(" , ").isEmpty)
        let many = (0..<HotwordList.maxCount).map { "word\($0)" }
        #expect(try HotwordList.clean(many).count == HotwordList.maxCount)
        #expect(throws: HotwordList.Refusal.self) { try HotwordList.clean(many + ["one more"]) }
        #expect(throws: HotwordList.Refusal.self) { try HotwordList.parse(String(repeating: "a,", count: 1_000_000)) }
        #expect(throws: HotwordList.Refusal.self) { try HotwordList.parse(String(repeating: "a", count: 65)) }
        // Repeats do not count.
        #expect(try HotwordList.parse(Array(repeating: "Risdon", count: 300).joined(separator: ", ")) == ["Risdon"])
        // The Realtime update refuses them with an event naming the parameter.
        let update = #"{"type":"transcription_session.update","session":{"input_audio_transcription":{"hotwords":"\#(String(repeating: "b", count: 100))"}}}"#
        guard case .failure(let error) = RealtimeClientEvent.decode(update) else {
            Issue.record("a 100-character hotword was accepted")
            return
        }
        #expect(error.param == "session.input_audio_transcription.hotwords", "\(error)")
    }

    @Test("settings: defaults as OpenAI's, an update applies whole or not at all")
    func settings() throws {
        let configuration = ServerConfiguration(defaultModelID: "whisper-tiny.en")
        let initial = try RealtimeSessionSettings(configuration: configuration)
        #expect(initial.inputAudioFormat == .pcm16 && initial.modelID == "whisper-tiny.en")
        #expect(initial.turnDetection == .init(threshold: 0.5, prefixPaddingMilliseconds: 300, silenceDurationMilliseconds: 500))
        let changed = try initial.applying(RealtimeSessionUpdate(inputAudioFormat: .g711Alaw, hotwords: ["Gurr"],
                                                                 turnDetection: .off), configuration: configuration)
        #expect(changed.inputAudioFormat == .g711Alaw && changed.turnDetection == nil && changed.hotwords == ["Gurr"])
        #expect(changed.options(configuration).contextualStrings == ["Gurr"])
        #expect(throws: RealtimeEventError.self) {
            try initial.applying(RealtimeSessionUpdate(inputAudioFormat: .g711Alaw, model: "no-such-model"),
                                 configuration: configuration)
        }
        #expect(throws: RealtimeEventError.self) {
            try initial.applying(RealtimeSessionUpdate(language: "xx-nonsense"), configuration: configuration)
        }
        let session = initial.sessionObject(id: "sess_1")
        #expect(session["object"] as? String == "realtime.transcription_session")
        #expect((session["turn_detection"] as? [String: Any])?["silence_duration_ms"] as? Int == 500)
    }

    @Test("server VAD: starts at the first loud chunk with prefix padding, stops after the silence duration")
    func turnDetection() {
        var policy = RealtimeTurnDetection(threshold: 0.5, prefixPaddingMilliseconds: 300, silenceDurationMilliseconds: 500)
        // 32 ms chunks: 20 of silence, 30 of speech (one dip to 0.4 stays speech: hysteresis), then silence.
        let probabilities: [Float] = Array(repeating: 0.05, count: 20) + Array(repeating: 0.9, count: 14) + [0.4]
            + Array(repeating: 0.9, count: 15) + Array(repeating: 0.1, count: 40)
        var events: [(Int, RealtimeTurnDetection.Event)] = []
        for (index, probability) in probabilities.enumerated() {
            if let event = policy.observe(probability, chunkEnd: Int64(index + 1) * 512, bufferStart: 0) {
                events.append((index, event))
            }
        }
        #expect(events.count == 2)
        let started = RealtimeTurnDetection.Event.speechStarted(speechStart: 10_240, audioStart: 10_240 - 4_800)
        #expect(events.first?.1 == started)
        // Speech ends after chunk 49; 500 ms = 15.6 chunks of silence: stopped at the end of chunk 65.
        let stopped = RealtimeTurnDetection.Event.speechStopped(speechEnd: 25_600, commitThrough: 33_792)
        #expect(events.last?.1 == stopped)
        #expect(!policy.isSpeaking)
        // Padding never reaches before the buffer's start.
        var late = RealtimeTurnDetection(threshold: 0.5, prefixPaddingMilliseconds: 300, silenceDurationMilliseconds: 500)
        #expect(late.observe(0.9, chunkEnd: 1024, bufferStart: 300) == .speechStarted(speechStart: 512, audioStart: 300))
    }
}
