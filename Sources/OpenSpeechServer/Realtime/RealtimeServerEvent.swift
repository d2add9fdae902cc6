import Foundation

/// The server events of a Realtime transcription session, as JSON text in OpenAI's shapes (the `openai` package's
/// `types/beta/realtime`): each has a fresh `event_id` and its `type`.
enum RealtimeServerEvent {
    /// One entry of a completed event's `logprobs`.
    struct Logprob: Sendable, Equatable {
        var token: String
        var logprob: Double
        var bytes: [UInt8]
    }

    case sessionCreated(session: [String: Any])
    case sessionUpdated(session: [String: Any])
    case speechStarted(itemID: String, audioStartMilliseconds: Int)
    case speechStopped(itemID: String, audioEndMilliseconds: Int)
    case committed(itemID: String, previousItemID: String?)
    case cleared
    case transcriptionDelta(itemID: String, delta: String)
    /// `speaker`: who spoke the item, when the session labels speakers (an OpenSpeech extension).
    case transcriptionCompleted(itemID: String, transcript: String, audioSeconds: Double, logprobs: [Logprob]? = nil,
                                speaker: String? = nil)
    case transcriptionFailed(itemID: String, error: RealtimeEventError)
    case error(RealtimeEventError)

    var fields: [String: Any] {
        switch self {
        case .sessionCreated(let session):
            return ["type": "transcription_session.created", "session": session]
        case .sessionUpdated(let session):
            return ["type": "transcription_session.updated", "session": session]
        case .speechStarted(let itemID, let start):
            return ["type": "input_audio_buffer.speech_started", "item_id": itemID, "audio_start_ms": start]
        case .speechStopped(let itemID, let end):
            return ["type": "input_audio_buffer.speech_stopped", "item_id": itemID, "audio_end_ms": end]
        case .committed(let itemID, let previous):
            return ["type": "input_audio_buffer.committed", "item_id": itemID, "previous_item_id": Self.orNull(previous)]
        case .cleared:
            return ["type": "input_audio_buffer.cleared"]
        case .transcriptionDelta(let itemID, let delta):
            return ["type": "conversation.item.input_audio_transcription.delta", "item_id": itemID, "content_index": 0,
                    "delta": delta]
        case .transcriptionCompleted(let itemID, let transcript, let seconds, let logprobs, let speaker):
            var fields: [String: Any] = [
                "type": "conversation.item.input_audio_transcription.completed", "item_id": itemID,
                "content_index": 0, "transcript": transcript,
                "usage": ["type": "duration", "seconds": seconds] as [String: Any],
            ]
            if let speaker { fields["speaker"] = speaker }
            if let logprobs {
                fields["logprobs"] = logprobs.map { ["token": $0.token, "logprob": $0.logprob, "bytes": $0.bytes.map(Int.init)] as [String: Any] }
            }
            return fields
        case .transcriptionFailed(let itemID, let error):
            return ["type": "conversation.item.input_audio_transcription.failed", "item_id": itemID, "content_index": 0,
                    "error": Self.errorObject(error)]
        case .error(let error):
            return ["type": "error", "error": Self.errorObject(error)]
        }
    }

    private static func errorObject(_ error: RealtimeEventError) -> [String: Any] {
        ["type": error.type, "code": error.code, "message": error.message, "param": orNull(error.param),
         "event_id": orNull(error.eventID)]
    }

    /// The event as one JSON text message.
    var json: String {
        var fields = self.fields
        fields["event_id"] = Self.newID("event")
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"type":"error","error":{"type":"server_error","code":"encoding","message":"event encoding failed","param":null,"event_id":null}}"#.utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// JSON's null for nil.
    private static func orNull(_ value: String?) -> Any {
        value.map { $0 as Any } ?? NSNull()
    }

    /// `prefix_` and 20 random letters and digits, as OpenAI's ids.
    static func newID(_ prefix: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return prefix + "_" + String((0..<20).map { _ in alphabet.randomElement()! })
    }
}
