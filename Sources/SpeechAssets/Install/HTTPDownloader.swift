import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads one file over HTTP(S) into a partial file that survives interruptions: each attempt asks for the
/// remaining bytes with a `Range` request, so a cut connection, a killed process or a cancelled install resumes
/// where it stopped. Redirects are followed; credentials go only to their own origin (`HTTPCredentials`).
struct HTTPDownloader: Sendable {
    /// Turns a response that is not the file (a status other than 200, 206 or 416) into the error thrown.
    typealias Refusal = @Sendable (HTTPURLResponse) -> any Error

    /// Attempts per file after the connection drops before giving up.
    var maximumAttempts = 5
    /// Time without any byte before an attempt fails.
    var idleTimeout: TimeInterval = 60

    /// Downloads `url` to `partial` until it holds `expectedSize` bytes (or the server says the file is complete),
    /// writing through `sink`, which has already absorbed the bytes present in `partial`. `credentials` are sent to
    /// their origin only; `refusal` names a refused request (default: `ModelAssetError.httpStatus`).
    func download(_ url: URL, expectedSize: Int64, sink: HashingSink, credentials: HTTPCredentials? = nil,
                  refusal: Refusal? = nil, reportBytes: @escaping @Sendable (Int64) -> Void) async throws {
        var attempt = 0
        var lastError: (any Error)?
        while sink.byteCount < expectedSize || (expectedSize <= 0 && attempt == 0) {
            try Task.checkCancellation()
            attempt += 1
            if attempt > maximumAttempts {
                throw lastError ?? ModelAssetError.downloadFailed(url: url.absoluteString, reason: "too many attempts")
            }
            do {
                let outcome = try await fetch(url, from: sink.byteCount, sink: sink, credentials: credentials,
                                              refusal: refusal, reportBytes: reportBytes)
                if outcome == .complete { return }
                lastError = ModelAssetError.downloadFailed(
                    url: url.absoluteString, reason: "the connection ended after \(sink.byteCount) of \(expectedSize) bytes")
            } catch let error as ModelAssetError {
                if case .downloadFailed = error {
                    lastError = error
                    try await Task.sleep(nanoseconds: UInt64(200_000_000 * attempt))
                    continue
                }
                throw error
            }
        }
    }

    enum Outcome: Equatable { case complete, partial }

    /// One request from byte `offset`. Returns `.complete` when the server reported the whole file delivered.
    private func fetch(_ url: URL, from offset: Int64, sink: HashingSink, credentials: HTTPCredentials?, refusal: Refusal?,
                       reportBytes: @escaping @Sendable (Int64) -> Void) async throws -> Outcome {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: idleTimeout)
        if offset > 0 { request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        credentials?.apply(to: &request)
        let receiver = DownloadReceiver(sink: sink, offset: offset, credentials: credentials, refusal: refusal,
                                        reportBytes: reportBytes)
        return try await SingleRequestSession.run(request, timeout: idleTimeout, delegate: receiver) {
            receiver.start($0, continuation: $1)
        }
    }
}

/// The URLSession delegate that streams a response body into a `HashingSink`.
/// `@unchecked Sendable` is safe: every mutable field is touched only on the session's serial delegate queue
/// (`maxConcurrentOperationCount = 1`) after `start`, and `start` runs before the task is resumed.
private final class DownloadReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let sink: HashingSink
    private let offset: Int64
    private let credentials: HTTPCredentials?
    private let refusal: HTTPDownloader.Refusal?
    private let reportBytes: @Sendable (Int64) -> Void
    private var continuation: CheckedContinuation<HTTPDownloader.Outcome, any Error>?
    private var failure: (any Error)?
    private var expectedBody: Int64 = -1
    private var received: Int64 = 0
    private var url = ""

    init(sink: HashingSink, offset: Int64, credentials: HTTPCredentials?, refusal: HTTPDownloader.Refusal?,
         reportBytes: @escaping @Sendable (Int64) -> Void) {
        self.sink = sink
        self.offset = offset
        self.credentials = credentials
        self.refusal = refusal
        self.reportBytes = reportBytes
    }

    func start(_ task: URLSessionDataTask,
               continuation: CheckedContinuation<HTTPDownloader.Outcome, any Error>) {
        self.continuation = continuation
        url = task.originalRequest?.url?.absoluteString ?? ""
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        switch http.statusCode {
        case 206 where offset > 0:
            expectedBody = http.expectedContentLength
            completionHandler(.allow)
        case 200:
            if offset > 0 {
                // The server ignored the Range request: start the file again.
                failure = RestartNeeded()
                completionHandler(.cancel)
                return
            }
            expectedBody = http.expectedContentLength
            completionHandler(.allow)
        case 416 where offset > 0:
            // Nothing left to send: the partial file is already whole.
            expectedBody = 0
            completionHandler(.cancel)
            failure = AlreadyComplete()
        default:
            failure = refusal?(http) ?? ModelAssetError.httpStatus(url: url, status: http.statusCode)
            completionHandler(.cancel)
        }
    }

    /// Follows a redirect (the Hub sends large files to a CDN) keeping the `Range` header and sending the
    /// credentials only to their own origin.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(credentials?.redirect(request, from: task.originalRequest) ?? request)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        do {
            try sink.write(data)
            received += Int64(data.count)
            reportBytes(Int64(data.count))
        } catch {
            failure = error
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let continuation else { return }
        self.continuation = nil
        if let failure {
            if failure is AlreadyComplete { return continuation.resume(returning: .complete) }
            if failure is RestartNeeded {
                return continuation.resume(throwing: ModelAssetError.downloadFailed(
                    url: url, reason: "the server does not support resuming; delete the partial download and retry"))
            }
            return continuation.resume(throwing: failure)
        }
        if let error {
            if (error as? URLError)?.code == .cancelled {
                return continuation.resume(throwing: CancellationError())
            }
            return continuation.resume(throwing: ModelAssetError.downloadFailed(url: url, reason: error.localizedDescription))
        }
        if expectedBody >= 0 && received < expectedBody {
            return continuation.resume(returning: .partial)
        }
        continuation.resume(returning: .complete)
    }
}

private struct AlreadyComplete: Error {}
private struct RestartNeeded: Error {}
