import Foundation
import NIOCore

/// The first handler of every connection, on its raw bytes, before the HTTP parser: each request head must arrive
/// whole within `headTimeout` of its first byte (the first request's, of the connection's start), with unambiguous
/// framing and within the head's size and field limits (`RequestHeadScanner`); otherwise the client gets a 408, 400
/// or 431 in OpenAI's error shape and the connection closes. A connection still waiting for its first request closes
/// at once when the server quiesces (a draining server does not wait for a slow client). After a WebSocket upgrade the
/// bytes pass untouched. (Hummingbird's own idle timeout covers a kept-alive connection between requests and a body
/// that stops arriving; its parser reaches the guard's refusals only in the upgrade negotiation, where it answers
/// nothing.)
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let headTimeout: TimeAmount
    private var scanner = RequestHeadScanner()
    private var deadline: Scheduled<Void>?
    /// Whether any byte has arrived (a connection that sent nothing yet may be closed when the server quiesces).
    private var receivedAny = false
    private var refused = false

    init(headTimeout: TimeAmount) {
        self.headTimeout = headTimeout
    }

    func channelActive(context: ChannelHandlerContext) {
        startDeadline(context)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startDeadline(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        receivedAny = true
        guard !scanner.isDone else {
            context.fireChannelRead(data)
            return
        }
        let buffer = unwrapInboundIn(data)
        let wasInsideHead = scanner.isInsideHead
        do {
            try scanner.scan(buffer.readableBytesView)
        } catch {
            refuse(context, status: error.status, message: error.message)
            return
        }
        // A head's clock starts at its first byte and stops when it is complete; the first one's at the connection.
        if scanner.isInsideHead && !wasInsideHead && deadline == nil {
            startDeadline(context)
        } else if !scanner.isInsideHead && (wasInsideHead || deadline != nil) {
            cancelDeadline()
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !receivedAny || scanner.isInsideHead {
            // No request has started on this connection (or its head is still arriving): nothing to finish.
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func startDeadline(_ context: ChannelHandlerContext) {
        guard deadline == nil, !scanner.isDone else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) { [self] in
            deadline = nil
            // Only a head that has not arrived in time is refused: a connection past its first head, between
            // requests, is Hummingbird's idle timeout's.
            if !receivedAny || scanner.isInsideHead {
                refuse(context, status: 408, message: "The request's head did not arrive within "
                       + "\(headTimeout.nanoseconds / 1_000_000_000) s.")
            }
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }

    /// Answers `status` with `message` in OpenAI's error shape and closes the connection.
    private func refuse(_ context: ChannelHandlerContext, status: Int, message: String) {
        guard !refused else { return }
        refused = true
        cancelDeadline()
        let reason = [400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large"][status]
            ?? "Bad Request"
        let code = [400: "invalid_request", 408: "request_timeout", 431: "request_header_too_large"][status]
            ?? "invalid_request"
        let body = APIError(.init(code: status), message, code: code).json
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count + 160)
        buffer.writeString("HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\n"
                           + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
