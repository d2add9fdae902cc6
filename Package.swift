// swift-tools-version:6.0
// OpenSpeech: Apple's SpeechAnalyzer API for Linux on open Whisper models. Layers, data flowing one way: SpeechAudio
// (audio), SpeechAssets (models) and SpeechEngine (inference) under OpenSpeech (the public API), the CLI and the server on top.
import Foundation
import PackageDescription

/// `OPENSPEECH_TARGET_CPU=native` (or any `-target-cpu` name: znver4, haswell, x86-64...) compiles the engine's
/// Swift code for that CPU. Not needed for speed: the element-wise loops are C kernels compiled per ISA level and
/// chosen at run time (CVectorKernels). Unset (the scripts' default, and any package depending on OpenSpeech), the
/// build is portable.
let engineSettings: [SwiftSetting] = Context.environment["OPENSPEECH_TARGET_CPU"].map {
    [.unsafeFlags(["-target-cpu", $0])]
} ?? []

/// oneDNN runs the engine's weight products where its headers are installed (`libdnnl-dev`, scripts/setup); elsewhere
/// (aarch64 without it, Apple) OpenBLAS or Accelerate do.
let oneDNN: [Target.Dependency] = FileManager.default.fileExists(atPath: "/usr/include/oneapi/dnnl/dnnl.h")
    ? [.target(name: "CDNNL", condition: .when(platforms: [.linux]))] : []

/// Modules named for Apple's frameworks that speech code imports (`Speech`, and beside it `AVFoundation` and
/// `CoreMedia`), each re-exporting the OpenSpeech module that stands for it where the frameworks do not exist
/// (Linux): such code compiles unchanged. On Apple platforms the system's frameworks are imported instead.
#if os(Linux)
let appleFrameworkStandIns: [(module: String, reexports: String)] = [
    ("Speech", "OpenSpeech"), ("AVFoundation", "SpeechAudio"), ("CoreMedia", "SpeechAudio"),
]
#else
let appleFrameworkStandIns: [(module: String, reexports: String)] = []
#endif
let appleFrameworkModules = appleFrameworkStandIns.map(\.module)

/// Clients written for Apple's frameworks, built unchanged against the stand-ins (Linux only, where they exist).
#if os(Linux)
let appleClients: [Target] = [
    // A tool written for Apple's Speech, unedited: raw PCM from a pipe through SpeechAnalyzer or SFSpeechRecognizer,
    // its speech code under `#if canImport(Speech)`; the Apple-client tests run it.
    .executableTarget(name: "apple-speech-pipe", dependencies: ["OpenSpeech"] + appleFrameworkModules.map { .target(name: $0) },
                      path: "Tests/AppleClients/SpeechPipe"),
]
#else
let appleClients: [Target] = []
#endif

let package = Package(
    name: "OpenSpeech",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SpeechAudio", targets: ["SpeechAudio"]),
        .library(name: "SpeechAssets", targets: ["SpeechAssets"]),
        .library(name: "SpeechEngine", targets: ["SpeechEngine"]),
        .library(name: "OpenSpeech", targets: ["OpenSpeech"] + appleFrameworkModules),
        .executable(name: "openspeech", targets: ["openspeech"]),
        .executable(name: "audio-decode-bench", targets: ["audio-decode-bench"]),
        .executable(name: "whisper-bench", targets: ["whisper-bench"]),
        .executable(name: "vad-bench", targets: ["vad-bench"]),
        .executable(name: "api-bench", targets: ["api-bench"]),
        .executable(name: "live-bench", targets: ["live-bench"]),
        .executable(name: "openspeech-fuzz", targets: ["openspeech-fuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        // The byte-pair encoder's merge queue (HeapModule).
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        // The server (OpenSpeechServer): HTTP, multipart uploads, logs, Prometheus metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` (scripts/docs): the DocC catalog of the OpenSpeech module.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries.
        // FFmpeg (libavformat-dev, libavcodec-dev, libavutil-dev, libswresample-dev): its headers, and its functions
        // forwarded to its libraries, loaded on first use (they bring ~130 more; most runs read WAV without them).
        .target(name: "CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
        // oneDNN (x86 Linux): the weight products, kernels chosen for the CPU at run time. Without it, OpenBLAS.
        .systemLibrary(name: "CDNNL", path: "Sources/CDNNL", providers: [.apt(["libdnnl-dev"])]),
        .systemLibrary(
            name: "CBLAS", path: "Sources/CBLAS", pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]),
        // PulseAudio's client library (microphone capture; also PipeWire's PulseAudio server). Linux only.
        .systemLibrary(name: "CPulse", path: "Sources/CPulse", pkgConfig: "libpulse", providers: [.apt(["libpulse-dev"])]),
        // Open Chinese Convert: Chinese transcripts written in the script of the locale (Simplified or Traditional).
        .systemLibrary(name: "COpenCC", path: "Sources/COpenCC", pkgConfig: "opencc", providers: [.apt(["libopencc-dev"])]),

        // The engine's element-wise loops in C, compiled per x86 ISA level and chosen at run time (portable builds
        // run them at the CPU's vector width).
        .target(name: "CVectorKernels"),

        // zlib's inflate, for ArchiveReading.
        .systemLibrary(name: "CInflate", path: "Sources/CInflate", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Zip archives (wheels, PyTorch checkpoints) read with every length checked: what SpeechAssets and
        // SpeechEngine read untrusted archives with.
        .target(name: "ArchiveReading", dependencies: ["CInflate"]),

        // Layers.
        .target(
            name: "SpeechAudio",
            dependencies: ["CFFmpeg", .target(name: "CPulse", condition: .when(platforms: [.linux]))]),
        .target(
            name: "SpeechAssets",
            dependencies: [
                "ArchiveReading",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.process("Resources")]),
        .target(
            name: "SpeechEngine",
            dependencies: ["ArchiveReading", "CBLAS", "CVectorKernels", .product(name: "Logging", package: "swift-log"),
                           .product(name: "HeapModule", package: "swift-collections")] + oneDNN,
            swiftSettings: engineSettings),
        .target(
            name: "OpenSpeech",
            dependencies: ["SpeechAudio", "SpeechAssets", "SpeechEngine",
                           .target(name: "COpenCC", condition: .when(platforms: [.linux]))]),
    ] + appleFrameworkStandIns.map { .target(name: $0.module, dependencies: [.target(name: $0.reexports)]) } + [
        // OpenAI's audio API over HTTP, a thin client of OpenSpeech's FileTranscriber.
        .target(
            name: "OpenSpeechServer",
            dependencies: [
                "OpenSpeech", "SpeechAssets", "SpeechAudio", "SpeechEngine",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        // Normalizers and word error rate, shared by the tests and the benchmark.
        .target(name: "SpeechEvaluation"),

        // Command-line tool.
        .executableTarget(
            name: "openspeech",
            dependencies: [
                "OpenSpeech", "OpenSpeechServer", "SpeechAudio", "SpeechAssets", "SpeechEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Benchmarks (bench/).
        .executableTarget(name: "audio-decode-bench", dependencies: ["SpeechAudio"], path: "bench/AudioDecodeBench"),
        .executableTarget(
            name: "whisper-bench",
            dependencies: [
                "SpeechEngine", "SpeechEvaluation", "SpeechAssets",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "bench/WhisperBench"),
        .executableTarget(name: "vad-bench", dependencies: ["SpeechEngine", "SpeechAudio", "SpeechAssets"], path: "bench/VADBench"),
        .executableTarget(name: "api-bench", dependencies: ["OpenSpeech", "SpeechEngine"], path: "bench/APIBench"),
        // The microphone's latency through a PulseAudio daemon of its own (TestSupport's).
        .executableTarget(
            name: "live-bench", dependencies: ["OpenSpeech", "SpeechEngine", "SpeechEvaluation", "TestSupport"],
            path: "bench/LiveBench"),
        // libFuzzer targets over every reader of untrusted bytes (scripts/fuzz); a replayer in the ordinary build.
        .executableTarget(
            name: "openspeech-fuzz",
            dependencies: [
                "SpeechEngine", "SpeechAssets", "SpeechAudio", "OpenSpeechServer",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "bench/Fuzz", exclude: ["make_seeds.py", "Findings"]),

        // Clients of the legacy API in the shapes apps and tools write them, in Swift 5 mode as most are, built with
        // only `import OpenSpeech`; the legacy API's tests run them.
        .executableTarget(name: "legacy-cli", dependencies: ["OpenSpeech"], path: "Tests/LegacyClients/CommandLineClient",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "legacy-app", dependencies: ["OpenSpeech"] + appleFrameworkModules.map { .target(name: $0) },
                          path: "Tests/LegacyClients/AppStyleClient",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
    ] + appleClients + [
        // The examples of Examples/ (a package of its own, depending on this one as a user's would), built here as
        // well so that every build compiles them against this very package for the cost of two small targets:
        // building Examples/ as a package rebuilds every dependency in a folder of its own.
        .executableTarget(name: "example-transcribe-file", dependencies: ["OpenSpeech"], path: "Examples/Sources/TranscribeFile"),
        .executableTarget(name: "example-live-captions", dependencies: ["OpenSpeech"], path: "Examples/Sources/LiveCaptions"),

        // Tests. TestSupport holds what several test targets share (corpus, ffmpeg, temp dirs).
        .target(name: "TestSupport", dependencies: ["SpeechAudio", "SpeechAssets", "SpeechEvaluation"], path: "Tests/TestSupport"),
        .testTarget(name: "SpeechAudioTests", dependencies: ["SpeechAudio", "TestSupport"]),
        // ZIPFoundation writes the tests' archives (the readers under test are ArchiveReading's).
        .testTarget(name: "SpeechAssetsTests", dependencies: ["SpeechAssets", "ArchiveReading", "TestSupport",
                                                           .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "OpenSpeechTests", dependencies: ["OpenSpeech", "SpeechEvaluation", "TestSupport"]),
        // The server through real clients: the official `openai` Python package (Clients/) and curl.
        .testTarget(name: "OpenSpeechServerTests", dependencies: ["OpenSpeech", "OpenSpeechServer", "SpeechEvaluation", "TestSupport",
                                                              .product(name: "Hummingbird", package: "hummingbird"),
                                                              .product(name: "Logging", package: "swift-log")],
                    exclude: ["Clients"]),
        .testTarget(name: "SpeechEngineTests", dependencies: ["SpeechEngine", "SpeechAssets", "SpeechAudio", "SpeechEvaluation", "TestSupport",
                                                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

/// `OPENSPEECH_SANITIZE=address|thread|fuzzer` (scripts/sanitize, scripts/fuzz) builds OpenSpeech's own targets with that
/// sanitizer (`fuzzer`: AddressSanitizer plus libFuzzer's coverage; the fuzz targets' executable also links libFuzzer's
/// driver, the test runner does not, so the tests run in that build too). Dependencies are built as usual: they are
/// not the code under test, and switching sanitizers in one build folder then recompiles only our modules.
if let sanitizer = Context.environment["OPENSPEECH_SANITIZE"] {
    let (swiftFlags, cFlags, linkFlags): ([String], [String], [String]) = switch sanitizer {
    case "address", "thread": (["-sanitize=\(sanitizer)"], ["-fsanitize=\(sanitizer)"], ["-sanitize=\(sanitizer)"])
    // gold fails on the fuzz targets' executable (an internal error in its DWARF reader): lld links it.
    case "fuzzer": (["-sanitize=fuzzer,address", "-DOPENSPEECH_FUZZ"], ["-fsanitize=fuzzer-no-link,address"],
                    ["-sanitize=address", "-use-ld=lld"])
    default: fatalError("OPENSPEECH_SANITIZE must be address, thread or fuzzer, not \(sanitizer)")
    }
    for target in package.targets where target.type != .system {
        let driver = sanitizer == "fuzzer" && target.name == "openspeech-fuzz" ? ["-sanitize=fuzzer"] : []
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(swiftFlags)]
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(cFlags)]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(linkFlags + driver)]
    }
}

/// `OPENSPEECH_SANITIZE_FAST_ONLY=1` (scripts/sanitize without a suite filter, as CI runs it): the sanitized build
/// holds only what the fast suites and the fuzz targets compile (the layers, the server's readers, their test
/// targets), not the tests of minutes of inference, the command-line tool, the benchmarks or the legacy clients, so
/// each sanitizer's build recompiles about half as much. The fast suites are the layers' own (audio, assets, engine):
/// without the fuzz targets (`address`, `thread`) the layers above them are left out too.
if let sanitizer = Context.environment["OPENSPEECH_SANITIZE"], Context.environment["OPENSPEECH_SANITIZE_FAST_ONLY"] == "1" {
    var left: Set = ["OpenSpeechTests", "OpenSpeechServerTests", "openspeech", "audio-decode-bench", "whisper-bench",
                     "vad-bench", "api-bench", "live-bench", "legacy-cli", "legacy-app", "apple-speech-pipe",
                     "example-transcribe-file", "example-live-captions"]
    if sanitizer != "fuzzer" { left.formUnion(["OpenSpeech", "OpenSpeechServer", "openspeech-fuzz"] + appleFrameworkModules) }
    package.targets.removeAll { left.contains($0.name) }
    package.products.removeAll { left.contains($0.name) }
}
