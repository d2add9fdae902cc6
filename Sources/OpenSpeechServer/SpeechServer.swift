import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// OpenAI's audio API over HTTP, served by the library's file transcription: the routes, their middleware, the
/// queue and the metrics, as one service. `openspeech serve` runs it; a program can run it too.
public struct SpeechServer: Sendable {
    public let configuration: ServerConfiguration
    let logger: Logger
    let metrics = ServerMetrics()
    let limiter: ConcurrencyLimiter

    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "openspeech.server")) {
        self.configuration = configuration
        self.logger = logger
        let metrics = self.metrics
        limiter = ConcurrencyLimiter(slots: configuration.maxConcurrency, maxQueue: configuration.maxQueue) { running, waiting in
            metrics.slotsChanged(running: running, waiting: waiting)
        }
    }

    /// Serves until SIGTERM or SIGINT, then refuses new work (503), finishes the requests in flight and returns.
    /// `onListening` receives the bound port once the server accepts connections.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLogMiddleware(metrics: metrics, logger: logger))
        if let key = configuration.apiKey, !key.isEmpty {
            router.add(middleware: BearerAuthMiddleware(key: key))
        }
        router.get("/health") { _, _ in
            let draining = await limiter.isShuttingDown
            let body = #"{"status":"\#(draining ? "shutting_down" : "ok")"}"#
            return Response(status: draining ? .serviceUnavailable : .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        TranscriptionRoutes(configuration: configuration, limiter: limiter, metrics: metrics, logger: logger).add(to: router)
        ModelRoutes(configuration: configuration).add(to: router)
        // Realtime transcription sessions: WebSocket upgrades go to their own router; a refused one reaches this one.
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        RealtimeRoutes(configuration: configuration, limiter: limiter, metrics: metrics,
                       sessions: RealtimeSessionLimit(maxSessions: configuration.maxRealtimeSessions), logger: logger)
            .add(to: webSocketRouter)
        router.get("/v1/realtime") { _, _ -> Response in throw RealtimeRoutes.notUpgraded() }

        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSocketRouter,
                configuration: .init(ws: .init(maxFrameSize: RealtimeRoutes.maxMessageBytes))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "openspeech"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        // Services shut down in reverse order: the limiter refuses new work before the server drains.
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: app), .init(service: ShutdownNotice(limiter: limiter))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// Tells the limiter when graceful shutdown begins, so new requests get 503 while those in flight finish.
private struct ShutdownNotice: Service {
    let limiter: ConcurrencyLimiter

    func run() async throws {
        try? await gracefulShutdown()
        await limiter.shutDown()
    }
}
