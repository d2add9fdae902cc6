import Foundation

/// The Hugging Face settings of the environment, read as `huggingface_hub` reads them: which Hub to ask
/// (`HF_ENDPOINT`), with which token (`HF_TOKEN`, else the file at `HF_TOKEN_PATH`, else `$HF_HOME/token`),
/// whether to ask at all (`HF_HUB_OFFLINE`), and where the shared download cache is (`HF_HUB_CACHE`, else
/// `$HF_HOME/hub`; `HF_HOME` defaults to `$XDG_CACHE_HOME/huggingface`, else `~/.cache/huggingface`).
public struct HubEnvironment: Sendable, Hashable {
    /// The Hub's address, without a trailing `/` (`https://huggingface.co` unless `HF_ENDPOINT` says otherwise).
    public var endpoint: String
    /// The access token sent to the endpoint's own host, or nil.
    public var token: String?
    /// `HF_HUB_OFFLINE` is set: no request is made, only the cache is used.
    public var isOffline: Bool
    /// The Hugging Face cache, holding `models--OWNER--NAME` folders.
    public var cacheDirectory: URL

    public static let defaultEndpoint = "https://huggingface.co"

    /// The settings of `environment` (the process's by default). Reads the token file if no `HF_TOKEN` is set.
    public init(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let userHome = value("HOME").map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func folder(_ path: String) -> URL {
            let expanded = path == "~" ? userHome.path
                : path.hasPrefix("~/") ? userHome.path + path.dropFirst(1) : path
            return URL(fileURLWithPath: expanded, isDirectory: true).standardizedFileURL
        }
        let hfHome = value("HF_HOME").map(folder)
            ?? value("XDG_CACHE_HOME").map { folder($0).appendingPathComponent("huggingface", isDirectory: true) }
            ?? userHome.appendingPathComponent(".cache/huggingface", isDirectory: true)

        var endpoint = value("HF_ENDPOINT") ?? Self.defaultEndpoint
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        self.endpoint = endpoint
        isOffline = value("HF_HUB_OFFLINE").map { ["1", "ON", "YES", "TRUE"].contains($0.uppercased()) } ?? false
        cacheDirectory = value("HF_HUB_CACHE").map(folder) ?? hfHome.appendingPathComponent("hub", isDirectory: true)
        let tokenFile = value("HF_TOKEN_PATH").map { URL(fileURLWithPath: folder($0).path) }
            ?? hfHome.appendingPathComponent("token")
        token = (value("HF_TOKEN") ?? (try? RegularFile.contents(of: tokenFile)).map { String(decoding: $0, as: UTF8.self) })
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Explicit settings (tests, tools with settings of their own).
    public init(endpoint: String = HubEnvironment.defaultEndpoint, token: String? = nil, isOffline: Bool = false,
                cacheDirectory: URL) {
        var endpoint = endpoint
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        self.endpoint = endpoint
        self.token = token
        self.isOffline = isOffline
        self.cacheDirectory = cacheDirectory.standardizedFileURL
    }

    /// The endpoint as a URL; throws `ModelAssetError.invalidHubEndpoint` unless it is an http(s) address.
    func endpointURL() throws -> URL {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil, url.query == nil, url.fragment == nil
        else { throw ModelAssetError.invalidHubEndpoint(endpoint: endpoint) }
        return url
    }
}
