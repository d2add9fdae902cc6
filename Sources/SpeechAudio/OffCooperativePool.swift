import Dispatch

/// Runs `work` on a dispatch thread and awaits its result: blocking or long CPU work (reading a file, loading a
/// model) must not hold a thread of Swift's cooperative pool, which every task of the process shares.
package func offCooperativePool<T>(qos: DispatchQoS.QoSClass = .default,
                                   _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: qos).async { continuation.resume(with: Result { try work() }) }
    }
}
