import Foundation

/// One client event of OpenAI's Realtime transcription session, decoded from a WebSocket text message. Decoding is
/// pure and total: a message that is not valid JSON, not an object, of an unknown type or with a field of the wrong
/// kind gives a `RealtimeEventError` naming the problem, never a crash.
package enum RealtimeClientEvent: Sendable, Equatable {
    /// `transcription_session.update`.
    case updateSession(RealtimeSessionUpdate)
    /// `input_audio_buffer.append`: the decoded bytes of its base64 `audio`.
    case appendAudio(Data)
    /// `input_audio_buffer.commit`.
    case commit
    /// `input_audio_buffer.clear`.
    case clear

    /// A decoded event with the client's `event_id`, if it sent one.
    package struct Received: Sendable, Equatable {
        package var event: RealtimeClientEvent
        var eventID: String?
    }

    /// The event types this server takes.
    static let supportedTypes = [
        "transcription_session.update", "input_audio_buffer.append", "input_audio_buffer.commit",
        "input_audio_buffer.clear",
    ]

    package static func decode(_ text: String) -> Result<Received, RealtimeEventError> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return .failure(RealtimeEventError(code: "invalid_json", "The message is not valid JSON: send each client "
                                               + "event as one JSON object."))
        }
        guard let fields = object as? [String: Any] else {
            return .failure(RealtimeEventError(code: "invalid_json", "The message is JSON but not an object: send each "
                                               + "client event as one JSON object with a `type`."))
        }
        let eventID = fields["event_id"] as? String
        do {
            let event = try decode(fields)
            return .success(Received(event: event, eventID: eventID))
        } catch {
            return .failure(error.about(eventID))
        }
    }

    /// Letters, digits, `+`, `/`, `=`, and the line breaks some encoders insert.
    private static func isBase64Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
            return true
        default:
            return false
        }
    }

    private static func decode(_ fields: [String: Any]) throws(RealtimeEventError) -> RealtimeClientEvent {
        guard let type = fields["type"] as? String else {
            throw RealtimeEventError(code: "missing_required_parameter", "The event has no `type` (a string such as "
                                     + "`input_audio_buffer.append`).", param: "type")
        }
        switch type {
        case "transcription_session.update":
            guard let session = fields["session"] as? [String: Any] else {
                throw RealtimeEventError(code: "missing_required_parameter",
                                         "`transcription_session.update` needs a `session` object.", param: "session")
            }
            return .updateSession(try RealtimeSessionUpdate(session))
        case "input_audio_buffer.append":
            guard let audio = fields["audio"] as? String else {
                throw RealtimeEventError(code: "missing_required_parameter",
                                         "`input_audio_buffer.append` needs `audio`: the audio bytes in base64.",
                                         param: "audio")
            }
            guard let bytes = Data(base64Encoded: audio, options: [.ignoreUnknownCharacters]),
                  bytes.count > 0 || audio.isEmpty,
                  audio.utf8.allSatisfy(isBase64Byte) else {
                throw RealtimeEventError(code: "invalid_value", "`audio` is not valid base64: encode the audio bytes "
                                         + "(see the session's `input_audio_format`) in standard base64.", param: "audio")
            }
            return .appendAudio(bytes)
        case "input_audio_buffer.commit":
            return .commit
        case "input_audio_buffer.clear":
            return .clear
        default:
            throw RealtimeEventError(code: "unknown_event", "This server does not handle `\(type)` events: a "
                                     + "transcription session takes \(supportedTypes.map { "`\($0)`" }.joined(separator: ", ")).",
                                     param: "type")
        }
    }
}
