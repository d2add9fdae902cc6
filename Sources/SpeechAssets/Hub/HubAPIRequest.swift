import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One GET of the Hub's API: the response and its body, read up to a bound. Redirects are followed with the
/// credentials sent only to their own origin, as file downloads are (`HTTPCredentials`).
enum HubAPIRequest {
    typealias Answer = (response: HTTPURLResponse, body: Data)

    /// Performs the GET. Throws `ModelAssetError.invalidHubResponse` for a body longer than `limit` bytes and
    /// `ModelAssetError.downloadFailed` when no response arrives.
    static func get(_ url: URL, credentials: HTTPCredentials?, limit: Int,
                    timeout: TimeInterval = 60) async throws -> Answer {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        credentials?.apply(to: &request)
        let receiver = BoundedReceiver(limit: limit, credentials: credentials)
        return try await SingleRequestSession.run(request, timeout: timeout, delegate: receiver) {
            receiver.start($0, continuation: $1)
        }
    }

    /// Collects the body, failing once it passes the limit. Sendable: its state is behind a mutex.
    private final class BoundedReceiver: NSObject, URLSessionDataDelegate, Sendable {
        private struct State {
            var continuation: CheckedContinuation<Answer, any Error>?
            var response: HTTPURLResponse?
            var body = Data()
            var failure: (any Error)?
            var url = ""
        }

        private let limit: Int
        private let credentials: HTTPCredentials?
        private let state = Mutex(State())

        init(limit: Int, credentials: HTTPCredentials?) {
            self.limit = limit
            self.credentials = credentials
        }

        func start(_ task: URLSessionDataTask,
                   continuation: CheckedContinuation<Answer, any Error>) {
            state.withLock {
                $0.continuation = continuation
                $0.url = task.originalRequest?.url?.absoluteString ?? ""
            }
            task.resume()
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            state.withLock { $0.response = response as? HTTPURLResponse }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let tooLong = state.withLock { state -> Bool in
                guard state.failure == nil else { return false }
                state.body.append(data)
                guard state.body.count > limit else { return false }
                state.failure = ModelAssetError.invalidHubResponse(
                    url: state.url, reason: "its answer is longer than \(limit / (1 << 20)) MB")
                state.body = Data()
                return true
            }
            if tooLong { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(credentials?.redirect(request, from: task.originalRequest) ?? request)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let (continuation, outcome) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, Self.outcome(of: state, error: error))
            }
            continuation?.resume(with: outcome)
        }

        private static func outcome(of state: State, error: (any Error)?) -> Result<Answer, any Error> {
            if let failure = state.failure { return .failure(failure) }
            if let error {
                if (error as? URLError)?.code == .cancelled { return .failure(CancellationError()) }
                return .failure(ModelAssetError.downloadFailed(url: state.url, reason: error.localizedDescription))
            }
            guard let response = state.response else {
                return .failure(ModelAssetError.downloadFailed(url: state.url, reason: "no response"))
            }
            return .success((response, state.body))
        }
    }
}
