import Synchronization

/// How many uploads may be in progress or on disk at once (`--max-uploads`): an upload takes a place before its body is
/// read and gives it back when its folder is removed, so the disk holds at most `maxUploads` × the upload limit. One
/// more is refused at once (429) without reading its body.
final class UploadLimit: Sendable {
    let maxUploads: Int
    private let count = Mutex(0)
    /// Called with the count after every change, for the metrics.
    private let onChange: @Sendable (Int) -> Void

    init(maxUploads: Int, onChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.maxUploads = max(1, maxUploads)
        self.onChange = onChange
    }

    var inProgress: Int { count.withLock { $0 } }

    /// A place for one upload, or 429 when every place is taken.
    func admit() throws -> Lease {
        let admitted = count.withLock { count in
            guard count < maxUploads else { return false }
            count += 1
            onChange(count)
            return true
        }
        guard admitted else {
            var error = APIError(.tooManyRequests, "The server is receiving \(maxUploads) uploads already; retry in 1 s.",
                                 type: "rate_limit_error", code: "too_many_uploads")
            error.headers[.retryAfter] = "1"
            throw error
        }
        return Lease { [self] in
            count.withLock { count in
                count -= 1
                onChange(count)
            }
        }
    }
}
