import Foundation
import Hummingbird
import Logging

/// The outermost middleware: answers every error in OpenAI's JSON shape (the router's own 404s and 405s too), an
/// error of the server's own without its internals (they go to the log, under the request id every answer carries in
/// `X-Request-ID`), counts requests by route and status, and logs one structured line per request.
struct RequestLogMiddleware: RouterMiddleware {
    let metrics: ServerMetrics
    let logger: Logger

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error).answer(requestID: context.id, logger: logger)
            response = try apiError.response(from: request, context: context)
        }
        response.headers[.requestID] = context.id
        let route = Self.route(of: request.uri.path)
        if route.hasPrefix("/v1/audio/") {
            // These requests watch their connection to cancel the work if the client leaves, and may be answered
            // before their upload is read: the connection closes after the answer (and says so).
            response.headers[.connection] = "close"
            context.closeAfterResponse()
        }
        metrics.requestFinished(route: route, status: response.status.code)
        let elapsed = ContinuousClock.now - start
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path),
            "status": .stringConvertible(response.status.code), "request": .string(context.id),
            "ms": .stringConvertible(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)),
        ])
        return response
    }

    static func apiError(for error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            let message = error.body ?? (error.status == .notFound ? "No such route." : error.status.reasonPhrase)
            return APIError(error.status, message, type: error.status.code >= 500 ? "server_error" : "invalid_request_error")
        case let error as any HTTPResponseError:
            return APIError(error.status, error.status.reasonPhrase)
        case is CancellationError:
            return APIError(.init(code: 499), "The request was cancelled.", code: "cancelled")
        default:
            return .internalError(error)
        }
    }

    /// The route, with model ids collapsed, as a metrics label of bounded cardinality.
    static func route(of path: String) -> String {
        let known = ["/v1/audio/transcriptions", "/v1/audio/translations", "/v1/models", "/health", "/metrics"]
        if known.contains(path) { return path }
        if path.hasPrefix("/v1/models/") { return "/v1/models/{id}" }
        return "other"
    }
}
