import Hummingbird

/// Refuses (403) the requests `OriginPolicy` does not permit: installed on a server without an API key.
struct OriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: OriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard policy.permits(origin: request.headers[.origin], host: request.head.authority)
        else {
            throw APIError(.forbidden, OriginPolicy.refusal, code: "origin_not_allowed")
        }
        return try await next(request, context)
    }
}
