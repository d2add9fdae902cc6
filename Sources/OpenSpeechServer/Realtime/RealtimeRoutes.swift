import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// `GET /v1/realtime?intent=transcription` upgraded to a WebSocket: OpenAI's Realtime API transcription session.
/// The key is checked as on the HTTP routes (`Authorization: Bearer KEY`), or, for browsers that cannot set headers,
/// as OpenAI's `openai-insecure-api-key.KEY` subprotocol. A connection that is refused (no or wrong key, no
/// `intent=transcription`) gets an `error` event saying why, then a close (1008, policy violation); one over
/// `--max-realtime-sessions` gets `session_limit_reached`, then a close (1013, try again later).
struct RealtimeRoutes: Sendable {
    /// The largest client message, and frame (OpenAI's limit for one `append` is 15 MiB of base64); a larger one
    /// closes the connection with code 1009 (message too big).
    static let maxMessageBytes = 16 << 20

    let configuration: ServerConfiguration
    let limiter: ConcurrencyLimiter
    let metrics: ServerMetrics
    let sessions: RealtimeSessionLimit
    /// The web origins allowed to connect (a server without a key); nil: any (the key decides).
    let origins: OriginPolicy?
    let logger: Logger

    func add(to router: Router<RealtimeRequestContext>) {
        router.ws("/v1/realtime") { request, _ in
            // A page of another origin (or a rebound host name) gets no WebSocket from a server without a key.
            if let origins, !origins.permits(origin: request.headers[.origin],
                                             host: request.head.authority) {
                return .dontUpgrade
            }
            var headers: HTTPFields = [:]
            // A client that offers subprotocols must get one back; OpenAI's is `realtime`.
            let offered = (request.headers[.secWebSocketProtocol] ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if let chosen = offered.first(where: { $0 == "realtime" }) ?? offered.first(where: { !$0.hasPrefix("openai-insecure-api-key.") }) {
                headers[.secWebSocketProtocol] = chosen
            }
            return .upgrade(headers)
        } onUpgrade: { inbound, outbound, context in
            // A refused connection gets the reason as an `error` event, then a close: a failed handshake could only
            // say "400" with no body.
            if let refusal = refusal(context.request) {
                logger.info("realtime session refused", metadata: ["code": .string(refusal.code)])
                metrics.realtimeSession(outcome: "refused", open: sessions.openSessions)
                try await outbound.write(.text(RealtimeServerEvent.error(refusal).json))
                try await outbound.close(.policyViolation, reason: refusal.code)
                return
            }
            let channel = context.requestContext.channel
            guard let place = sessions.tryOpen(end: { channel.close(promise: nil) }) else {
                let refusal = sessions.refusal()
                logger.info("realtime session refused", metadata: ["code": .string(refusal.code)])
                metrics.realtimeSession(outcome: "limited", open: sessions.openSessions)
                try await outbound.write(.text(RealtimeServerEvent.error(refusal).json))
                try await outbound.close(.unknown(1013), reason: refusal.code)
                return
            }
            metrics.realtimeSession(outcome: "accepted", open: sessions.openSessions)
            defer {
                place.release()
                metrics.realtimeSessionClosed(open: sessions.openSessions)
            }
            try await serve(inbound: inbound, outbound: outbound, channel: channel)
        }
    }

    /// What the HTTP router answers on `/v1/realtime` to a request that is not a WebSocket upgrade.
    static func notUpgraded() -> APIError {
        APIError(.badRequest, "This endpoint takes WebSocket connections for Realtime transcription sessions: connect "
                 + "with a WebSocket client to /v1/realtime?intent=transcription.", param: "intent",
                 code: "websocket_required")
    }

    /// Why the connection may not start a session (no or wrong key, not a transcription session), or nil.
    private func refusal(_ request: Request) -> RealtimeEventError? {
        guard authorized(request) else {
            return RealtimeEventError(code: "invalid_api_key", "Incorrect or missing API key: send it as "
                                      + "`Authorization: Bearer KEY`.", type: "invalid_request_error")
        }
        guard !limiter.isShuttingDown else {
            return RealtimeEventError(code: "shutting_down", "The server is shutting down and takes no new sessions.",
                                      type: "server_error")
        }
        guard request.uri.queryParameters["intent"] == "transcription" else {
            return RealtimeEventError(code: "unsupported_intent", "This server serves Realtime transcription sessions "
                                      + "only: connect to /v1/realtime?intent=transcription.", param: "intent")
        }
        return nil
    }

    private func authorized(_ request: Request) -> Bool {
        guard let key = configuration.apiKey, !key.isEmpty else { return true }
        let expected = Array(key.utf8)
        if let header = request.headers[.authorization], header.hasPrefix("Bearer "),
           BearerAuthMiddleware<ServerRequestContext>.constantTimeEqual(Array(header.dropFirst("Bearer ".count).utf8), expected) {
            return true
        }
        let prefix = "openai-insecure-api-key."
        let offered = (request.headers[.secWebSocketProtocol] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        return offered.contains { $0.hasPrefix(prefix)
            && BearerAuthMiddleware<ServerRequestContext>.constantTimeEqual(Array($0.dropFirst(prefix.count).utf8), expected) }
    }

    /// Runs one session: client messages in, at the pace `MessagePacing` allows, server events out through a bounded
    /// outbox. A client that stops reading (the outbox overflows) gets its connection closed; a message too large
    /// closes it with 1009.
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel) async throws {
        let outbox = RealtimeOutbox()
        let session: RealtimeTranscriptionSession
        do {
            session = try RealtimeTranscriptionSession(configuration: configuration, limiter: limiter, metrics: metrics,
                                                       logger: logger, output: outbox)
        } catch let error as RealtimeEventError {
            try await outbound.write(.text(RealtimeServerEvent.error(error).json))
            return
        }
        logger.info("realtime session started", metadata: ["session": .string(session.id)])
        await session.start()
        defer { logger.info("realtime session ended", metadata: ["session": .string(session.id)]) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in outbox.events {
                    do {
                        try await outbound.write(.text(text))
                    } catch {
                        // The client is gone: so is the session, whatever it has not read yet.
                        channel.close(promise: nil)
                        break
                    }
                    outbox.written(text)
                }
            }
            group.addTask {
                for await _ in outbox.overflowed {
                    logger.info("realtime session closed: its client does not read",
                                metadata: ["session": .string(session.id)])
                    // The client reads nothing, so a close frame would not reach it either: the connection ends here.
                    channel.close(promise: nil)
                }
            }
            defer { group.cancelAll() }
            do {
                var pacing = MessagePacing()
                for try await message in inbound.messages(maxSize: Self.maxMessageBytes) {
                    // A closed connection (the client gone, cut off, or the server draining) ends the session at
                    // once, whatever it had sent that was not read yet.
                    guard channel.isActive else { break }
                    let wait = pacing.wait(at: .now)
                    if wait > .zero { try await Task.sleep(for: wait) }
                    let goesOn: Bool
                    switch message {
                    case .text(let text): goesOn = await session.receive(text)
                    case .binary: goesOn = await session.receiveBinary()
                    }
                    guard goesOn else {
                        logger.info("realtime session closed: its messages are refused",
                                    metadata: ["session": .string(session.id)])
                        // The last error events (the reason) go out before the close.
                        await session.close()
                        try? await group.waitForAll()
                        try? await outbound.close(.policyViolation, reason: "too_many_errors")
                        return
                    }
                }
            } catch {
                // The WebSocket layer closes with the code its error carries (1009 for a message too large).
                logger.info("realtime session read failed", metadata: ["session": .string(session.id), "error": "\(error)"])
                await session.close()
                throw error
            }
            await session.close()
        }
    }
}
