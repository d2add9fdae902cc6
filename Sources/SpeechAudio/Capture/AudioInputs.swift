import Foundation

/// The sound server's inputs, looked up through a short-lived connection.
enum AudioInputs {
    /// The input the engine opens: the session's preferred input, else `PULSE_SOURCE`, else nil (the server's
    /// default source).
    static func selectedSourceName() -> String? {
        if let preferred = AVAudioSession.sharedInstance().preferredInput { return preferred.uid }
        if let name = ProcessInfo.processInfo.environment["PULSE_SOURCE"], !name.isEmpty { return name }
        return nil
    }

    /// The input engines open, among `sources` (the server's): the selected one, else the server's default; nil when
    /// it is not among them.
    static func opened(among sources: [AudioSource]) -> AudioSource? {
        let name = selectedSourceName() ?? (try? defaultName())
        return sources.first { $0.name == name }
    }

    /// Every input, microphones first; throws when no server is reachable.
    static func all() throws(AudioError) -> [AudioSource] {
        #if canImport(CPulse)
        let connection = try PulseAudioConnection(clientName: "OpenSpeech")
        let sources = try connection.sources()
        return sources.filter { !$0.isMonitor } + sources.filter(\.isMonitor)
        #else
        throw .captureUnsupported
        #endif
    }

    /// The name of the server's default input; throws when no server is reachable.
    static func defaultName() throws(AudioError) -> String {
        #if canImport(CPulse)
        try PulseAudioConnection(clientName: "OpenSpeech").defaultSourceName()
        #else
        throw .captureUnsupported
        #endif
    }

    /// The capture format of `name` (nil: the default input); nil when it cannot be reached.
    static func format(ofSource name: String?) -> AVAudioFormat? {
        #if canImport(CPulse)
        guard let connection = try? PulseAudioConnection(clientName: "OpenSpeech", timeout: .seconds(2)),
              let source = try? connection.source(named: name) else { return nil }
        return AVAudioFormat(standardFormatWithSampleRate: source.sampleRate, channels: AVAudioChannelCount(source.channelCount))
        #else
        return nil
        #endif
    }
}
