import Foundation

/// A problem with one client event of a Realtime session, sent back as an `error` event in OpenAI's shape
/// (`{"type": "error", "event_id", "error": {"type", "code", "message", "param", "event_id"}}`). The session goes on.
package struct RealtimeEventError: Error, Sendable, Equatable {
    var type = "invalid_request_error"
    var code: String
    var message: String
    var param: String?
    /// The `event_id` of the client event that caused it, when the client gave one.
    var eventID: String?

    init(code: String, _ message: String, param: String? = nil, eventID: String? = nil, type: String = "invalid_request_error") {
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.eventID = eventID
    }

    /// The same error, tied to the client event `id`.
    func about(_ id: String?) -> RealtimeEventError {
        var error = self
        if error.eventID == nil { error.eventID = id }
        return error
    }
}
