// swift-tools-version:6.0
// OpenSpeech's examples, a package depending on OpenSpeech as yours would: here by path, in yours
// `.package(url: "https://github.com/OWNER/OpenSpeech", from: "0.1.0")` (OWNER: where you got it).
import PackageDescription

let package = Package(
    name: "OpenSpeechExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "OpenSpeech", path: "..")],
    targets: [
        // Transcribes a file with Apple's SpeechAnalyzer API, then writes its subtitles (FileTranscriber).
        .executableTarget(name: "transcribe-file", dependencies: [.product(name: "OpenSpeech", package: "OpenSpeech")],
                          path: "Sources/TranscribeFile"),
        // Live captions from the microphone (AVAudioEngine on PulseAudio) with volatile results.
        .executableTarget(name: "live-captions", dependencies: [.product(name: "OpenSpeech", package: "OpenSpeech")],
                          path: "Sources/LiveCaptions"),
    ]
)
