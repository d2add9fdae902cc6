import Hummingbird
import NIOCore

/// The context of one HTTP request: Hummingbird's, plus the connection it came on, so that an answer given before the
/// request's body was read can close the connection after it (`closeAfterResponse()`) instead of reading an upload
/// it refused.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Asks the connection to close once the response in progress is written (Hummingbird's connection handler closes
    /// a quiescing connection after its last response).
    func closeAfterResponse() {
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    }
}
