import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// OpenAI's audio API over HTTP, served by the library's file transcription: the routes, their middleware, the
/// queue and the metrics, as one service. `openspeech serve` runs it; a program can run it too.
public struct SpeechServer: Sendable {
    public let configuration: ServerConfiguration
    let logger: Logger
    let metrics = ServerMetrics()
    let limiter: ConcurrencyLimiter
    let uploads: UploadLimit
    let realtimeSessions: RealtimeSessionLimit

    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "openspeech.server")) {
        self.configuration = configuration
        self.logger = logger
        let metrics = self.metrics
        limiter = ConcurrencyLimiter(slots: configuration.maxConcurrency, maxQueue: configuration.maxQueue) { running, waiting in
            metrics.slotsChanged(running: running, waiting: waiting)
        }
        uploads = UploadLimit(maxUploads: configuration.maxUploads) { metrics.uploadsChanged($0) }
        realtimeSessions = RealtimeSessionLimit(maxSessions: configuration.maxRealtimeSessions)
    }

    /// Serves until SIGTERM or SIGINT, then drains: new work is refused (503, and `/health` says so) while the work in
    /// flight finishes, the listener still open for health checks; then Realtime sessions end, the server closes and
    /// returns. A second signal
    /// closes it at once. `onListening` receives the bound port once the server accepts connections.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestLogMiddleware(metrics: metrics, logger: logger))
        let origins = OriginPolicy(allowedOrigins: configuration.allowedOrigins)
        if let key = configuration.apiKey, !key.isEmpty {
            router.add(middleware: BearerAuthMiddleware(key: key))
        } else {
            router.add(middleware: OriginMiddleware(policy: origins))
        }
        router.get("/health") { _, _ in
            let draining = limiter.isShuttingDown
            let body = #"{"status":"\#(draining ? "shutting_down" : "ok")"}"#
            return Response(status: draining ? .serviceUnavailable : .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        TranscriptionRoutes(configuration: configuration, limiter: limiter, uploads: uploads, metrics: metrics,
                            logger: logger).add(to: router)
        ModelRoutes(configuration: configuration).add(to: router)
        // Realtime transcription sessions: WebSocket upgrades go to their own router; a refused one reaches this one.
        let webSocketRouter = Router(context: RealtimeRequestContext.self)
        RealtimeRoutes(configuration: configuration, limiter: limiter, metrics: metrics, sessions: realtimeSessions,
                       origins: configuration.apiKey?.isEmpty == false ? nil : origins, logger: logger)
            .add(to: webSocketRouter)
        router.get("/v1/realtime") { _, _ -> Response in throw RealtimeRoutes.notUpgraded() }

        let timeout = TimeAmount.nanoseconds(Int64(configuration.requestTimeout * 1e9))
        let webSocketResponder = webSocketRouter.buildResponder()
        // Hummingbird's HTTP/1.1 with WebSocket upgrades, each connection behind a `ConnectionGuard`; its idle timeout
        // closes a kept-alive connection between requests and a body that stops arriving.
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(idleTimeout: timeout),
                                         ws: .init(maxFrameSize: RealtimeRoutes.maxMessageBytes))),
                headTimeout: timeout)
        }
        let app = Application(
            router: router, server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "openspeech"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        // Signals are handled here, not by the group: the listener must stay open while the work in flight drains.
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask { await drainOnSignal(group) }
            try await tasks.next()
            tasks.cancelAll()
        }
    }

    /// At the first SIGTERM or SIGINT: refuse new work, wait for the work in flight, then shut the server down; at a
    /// second one, shut it down at once.
    private func drainOnSignal(_ group: ServiceGroup) async {
        var drain: Task<Void, Never>?
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
            guard drain == nil else {
                logger.info("second signal: closing now", metadata: ["signal": "\(signal)"])
                await group.triggerGracefulShutdown()
                break
            }
            logger.info("draining: new work is refused, the work in flight finishes", metadata: ["signal": "\(signal)"])
            limiter.shutDown()
            drain = Task {
                await limiter.waitUntilIdle()
                // Realtime sessions take no new items now; the ones still open end with their connections.
                realtimeSessions.endAll()
                await group.triggerGracefulShutdown()
            }
        }
        drain?.cancel()
    }
}
