import Foundation

/// Which web pages may call a server that has no API key. Without a key, anything that reaches the port is served, so
/// a page in a browser on this machine (any site's script, `Origin: https://evil.example`) or a site whose name is
/// made to resolve to this machine (DNS rebinding: `Host: evil.example`) must be refused. A request passes when its
/// `Origin`, if any, is a loopback one or an allowed one, and its `Host` is a loopback name, an IP address (what
/// load balancers and health checks send), or an allowed origin's host. `--allow-origin` adds origins
/// (`https://app.example.com`); `*` turns the check off.
struct OriginPolicy: Sendable {
    /// The allowed origins, normalized (`scheme://host[:port]`, lower-cased).
    private let origins: Set<String>
    private let hosts: Set<String>
    private let allowsAll: Bool

    init(allowedOrigins: [String]) {
        allowsAll = allowedOrigins.contains("*")
        let normalized = allowedOrigins.filter { $0 != "*" }.map { Self.normalized($0) }
        origins = Set(normalized)
        hosts = Set(normalized.compactMap { URL(string: $0)?.host?.lowercased() })
    }

    /// Whether a request with these headers may be served.
    func permits(origin: String?, host: String?) -> Bool {
        if allowsAll { return true }
        if let host {
            let name = Self.hostName(host)
            guard Self.isLoopback(name) || Self.isAddress(name) || hosts.contains(name) else { return false }
        }
        if let origin {
            let normalized = Self.normalized(origin)
            if origins.contains(normalized) { return true }
            guard let name = URL(string: normalized)?.host?.lowercased() else { return false }
            return Self.isLoopback(Self.hostName(name))
        }
        return true
    }

    /// A sentence for a refused request.
    static let refusal = "This server has no API key, so it serves only requests from this machine's own pages and "
        + "tools: a page of another origin, or a request for another host name, is refused. Start it with "
        + "`--api-key`, or allow the origin with `--allow-origin`."

    private static func normalized(_ origin: String) -> String {
        var text = origin.trimmingCharacters(in: .whitespaces).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The name in a `Host` value, without its port or an IPv6 literal's brackets.
    private static func hostName(_ host: String) -> String {
        let value = host.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<end])
        }
        if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            return String(value[..<colon])
        }
        return value
    }

    private static func isLoopback(_ name: String) -> Bool {
        name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name.hasPrefix("127.")
            && isAddress(name)
    }

    /// An IPv4 or IPv6 literal.
    private static func isAddress(_ name: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }
}
