import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request on an ephemeral session of its own, its delegate called on a serial queue, awaited: `start`
/// hands the task and the continuation to the delegate, which resumes it; cancelling the calling task cancels the
/// request. Shared by file downloads (`HTTPDownloader`) and the Hub's API calls (`HubAPIRequest`).
enum SingleRequestSession {
    static func run<Answer>(_ request: URLRequest, timeout: TimeInterval, delegate: any URLSessionDataDelegate,
                            start: (URLSessionDataTask, CheckedContinuation<Answer, any Error>) -> Void)
        async throws -> Answer {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in start(task, continuation) }
        } onCancel: {
            task.cancel()
        }
    }
}
