import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Counts the times any process opens a file, from the kernel's own account (inotify's `IN_OPEN` events): what a
/// test of "the file is read once" counts, without touching the code under test.
public final class FileOpenWatch {
    private let descriptor: Int32

    /// Starts counting opens of the file at `url` (which must exist).
    public init(_ url: URL) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, url.path, UInt32(IN_OPEN)) >= 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    deinit { close(descriptor) }

    /// The opens since the watch started (or since the last call).
    public func opens() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard read > 0 else { return count }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= read {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                if event.mask & UInt32(IN_OPEN) != 0 { count += 1 }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
    }
}
