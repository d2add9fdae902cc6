import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Hub's HTTP API as an install uses it: a revision resolved to a commit with the repository's files
/// (`GET {endpoint}/api/models/OWNER/NAME/revision/REVISION?blobs=true`), the address of each file
/// (`{endpoint}/OWNER/NAME/resolve/COMMIT/FILE`, which the Hub may redirect to a CDN), the token sent to the
/// endpoint's own origin only, and the Hub's refusals turned into sentences saying what to do.
struct HubClient: Sendable {
    let environment: HubEnvironment
    /// The most bytes of a listing read; a repository of thousands of files lists in far less.
    var listingLimit = 8 << 20

    /// `Authorization: Bearer TOKEN` for the endpoint, when there is a token.
    func credentials() throws -> HTTPCredentials? {
        let endpoint = try environment.endpointURL()
        return environment.token.flatMap { HTTPCredentials(headers: ["Authorization": "Bearer \($0)"], for: endpoint) }
    }

    /// The commit `reference`'s revision names and the files of the repository at that commit.
    func listing(of reference: HuggingFaceReference) async throws -> HubListing {
        let url = try address("api/models/\(reference.owner)/\(reference.name)/revision/\(reference.encodedRevision)?blobs=true")
        let (response, body) = try await HubAPIRequest.get(url, credentials: try credentials(), limit: listingLimit)
        guard response.statusCode == 200 else { throw refusal(reference, file: nil)(response) }
        return try HubListing(json: body, url: url.absoluteString)
    }

    /// Where `file` of the repository at `commit` is downloaded from.
    func fileURL(_ reference: HuggingFaceReference, commit: String, file: String) throws -> URL {
        try address("\(reference.owner)/\(reference.name)/resolve/\(commit)/\(HuggingFaceReference.pathSegment(file))")
    }

    /// The error for a refused request about `reference` (and `file`, for a download), read from the status and
    /// the Hub's `X-Error-Code` header (`RepoNotFound`, `RevisionNotFound`, `EntryNotFound`, `GatedRepo`).
    func refusal(_ reference: HuggingFaceReference, file: String?) -> HTTPDownloader.Refusal {
        let endpoint = environment.endpoint
        let hasToken = environment.token != nil
        return { response in
            let code = response.value(forHTTPHeaderField: "X-Error-Code")
            switch (response.statusCode, code) {
            case (_, "RepoNotFound"):
                return ModelAssetError.hubRepositoryNotFound(repository: reference.repository, endpoint: endpoint)
            case (_, "RevisionNotFound"):
                return ModelAssetError.hubRevisionNotFound(repository: reference.repository, revision: reference.revision)
            case (_, "EntryNotFound"):
                return ModelAssetError.hubFileNotFound(repository: reference.repository, revision: reference.revision,
                                                       file: file ?? "?")
            case (_, "GatedRepo"), (401, _), (403, _):
                return ModelAssetError.hubAccessDenied(repository: reference.repository, endpoint: endpoint, hadToken: hasToken)
            case (404, _):
                if let file {
                    return ModelAssetError.hubFileNotFound(repository: reference.repository, revision: reference.revision, file: file)
                }
                return ModelAssetError.hubRepositoryNotFound(repository: reference.repository, endpoint: endpoint)
            default:
                return ModelAssetError.hubUnavailable(url: response.url?.absoluteString ?? endpoint, status: response.statusCode)
            }
        }
    }

    /// `{endpoint}/{path}`; the parts put in `path` are checked names or percent-encoded.
    private func address(_ path: String) throws -> URL {
        let endpoint = try environment.endpointURL()
        guard let url = URL(string: endpoint.absoluteString + "/" + path) else {
            throw ModelAssetError.invalidHubEndpoint(endpoint: environment.endpoint)
        }
        return url
    }
}
