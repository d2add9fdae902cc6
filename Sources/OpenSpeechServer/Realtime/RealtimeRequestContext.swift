import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The context of a WebSocket upgrade: Hummingbird's, plus the connection, which a session whose client stops reading
/// closes outright.
struct RealtimeRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
