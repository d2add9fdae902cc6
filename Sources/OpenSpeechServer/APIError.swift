import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// An error answered in OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, with its HTTP status.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String
    let type: String
    let param: String?
    let code: String?
    /// Extra response headers (`Retry-After` on 429).
    var headers: HTTPFields = [:]
    /// What went wrong inside the server, for its log only: an answer never carries internals (paths, types).
    var detail: String?

    init(_ status: HTTPResponse.Status, _ message: String, type: String = "invalid_request_error",
         param: String? = nil, code: String? = nil) {
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
    }

    private struct Body: Encodable {
        struct Detail: Encodable {
            let message: String
            let type: String
            let param: String?
            let code: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(message, forKey: .message)
                try container.encode(type, forKey: .type)
                // OpenAI sends null rather than leaving the keys out.
                try container.encode(param, forKey: .param)
                try container.encode(code, forKey: .code)
            }

            enum CodingKeys: String, CodingKey { case message, type, param, code }
        }
        let error: Detail
    }

    var json: String {
        let body = Body(error: .init(message: message, type: type, param: param, code: code))
        return (try? String(decoding: JSONEncoder().encode(body), as: UTF8.self)) ?? #"{"error":{"message":"error"}}"#
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    /// The answer for an error of the server's own: a sentence with the request's id, the error in the log under it.
    func answer(requestID: String, logger: Logger) -> APIError {
        guard let detail else { return self }
        logger.error("request failed", metadata: ["request": .string(requestID), "error": .string(detail)])
        var answer = APIError(status, "\(message) The server's log has the details under request id \(requestID).",
                              type: type, param: param, code: code)
        answer.headers = headers
        return answer
    }

    // The errors requests meet, in one place so their wording stays consistent.

    static func internalError(_ error: any Error) -> APIError {
        var answer = APIError(.internalServerError, "The server failed to handle this request.", type: "server_error")
        answer.detail = String(describing: error)
        return answer
    }

    static func missingFile() -> APIError {
        APIError(.badRequest, "No audio file: send the recording as the multipart field `file`.", param: "file",
                 code: "missing_file")
    }

    static func emptyFile() -> APIError {
        APIError(.badRequest, "The uploaded file is empty.", param: "file", code: "empty_file")
    }

    static func undecodableAudio(_ reason: String) -> APIError {
        APIError(.badRequest, "The file could not be read as audio: \(reason)", param: "file", code: "invalid_audio")
    }

    static func tooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, "The upload is larger than this server's limit of \(limit >> 20) MB.",
                 param: "file", code: "file_too_large")
    }

    static func unknownModel(_ id: String) -> APIError {
        APIError(.notFound, "The model `\(id)` does not exist; GET /v1/models lists the models this server has.",
                 param: "model", code: "model_not_found")
    }

    static func diarizationModelMissing(_ id: String) -> APIError {
        APIError(.notFound, "Telling speakers apart needs the model `\(id)`, which is not installed on this server; "
                 + "install it with `openspeech models install \(id)`.", code: "model_not_installed")
    }

    static func unauthorized() -> APIError {
        APIError(.unauthorized, "Incorrect or missing API key: send it as `Authorization: Bearer KEY`.",
                 code: "invalid_api_key")
    }

    static func queueFull(retryAfter seconds: Int) -> APIError {
        var error = APIError(.tooManyRequests, "The server is busy: every transcription slot and queue place is taken; "
                             + "retry in \(seconds) s.", type: "rate_limit_error", code: "queue_full")
        error.headers[.retryAfter] = String(seconds)
        return error
    }

    static func shuttingDown() -> APIError {
        APIError(.serviceUnavailable, "The server is shutting down and takes no new work.", type: "server_error",
                 code: "shutting_down")
    }
}

extension HTTPField.Name {
    /// The id a request is logged under, in every answer.
    static let requestID = HTTPField.Name("X-Request-ID")!
}
