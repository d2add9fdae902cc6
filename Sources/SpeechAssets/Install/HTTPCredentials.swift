import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Headers carrying a secret (the Hub's `Authorization: Bearer TOKEN`) that go to one origin only (scheme, host
/// and port): a redirect anywhere else drops them. URLSession copies every header of a request onto the request
/// that follows a redirect, so without this rule a token would reach the CDN the Hub sends downloads to.
struct HTTPCredentials: Sendable, Equatable {
    /// Header name → value.
    var headers: [String: String]
    /// The origin the headers belong to.
    private var origin: Origin

    private struct Origin: Sendable, Equatable {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL?) {
            guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        }
    }

    /// `headers` for requests to the origin of `url`; nil when there is nothing to send or `url` has no host.
    init?(headers: [String: String], for url: URL) {
        guard !headers.isEmpty, let origin = Origin(url) else { return nil }
        self.headers = headers
        self.origin = origin
    }

    /// Whether the headers may be sent to `url`.
    func belongs(to url: URL?) -> Bool { Origin(url) == origin }

    /// Adds the headers to `request` if it goes to their origin.
    func apply(to request: inout URLRequest) {
        guard belongs(to: request.url) else { return }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    }

    /// The request to send for a redirect: `proposed` (URLSession's), holding the headers of `original` but the
    /// credentials only if it goes to their origin.
    func redirect(_ proposed: URLRequest, from original: URLRequest?) -> URLRequest {
        var request = proposed
        let secret = Set(headers.keys.map { $0.lowercased() })
        for (name, value) in original?.allHTTPHeaderFields ?? [:] where !secret.contains(name.lowercased()) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        for name in headers.keys { request.setValue(nil, forHTTPHeaderField: name) }
        apply(to: &request)
        return request
    }
}
