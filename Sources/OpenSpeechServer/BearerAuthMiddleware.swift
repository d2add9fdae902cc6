import Hummingbird

/// Requires `Authorization: Bearer KEY` on every route but `/health` and `/metrics` (for load balancers and
/// scrapers), comparing keys in time that does not depend on where they differ.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: [UInt8]

    init(key: String) {
        self.key = Array(key.utf8)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health" || request.uri.path == "/metrics" {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              Self.constantTimeEqual(Array(header.dropFirst("Bearer ".count).utf8), key) else {
            throw APIError.unauthorized()
        }
        return try await next(request, context)
    }

    /// Whether `a` equals `b`, looking at every byte of the longer whatever the contents.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        let length = max(a.count, b.count)
        for index in 0..<length {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
