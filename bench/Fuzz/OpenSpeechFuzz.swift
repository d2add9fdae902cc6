import Foundation
import SpeechAssets

#if OPENSPEECH_FUZZ
/// libFuzzer's driver (linked by `-sanitize=fuzzer`), called from this program's own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
#endif

/// `openspeech-fuzz TARGET [libFuzzer options] [corpus...]`: fuzzes one reader of untrusted bytes (scripts/fuzz
/// builds it with `-sanitize=fuzzer,address -DOPENSPEECH_FUZZ`). Built without them (the ordinary build), it replays
/// files instead: `openspeech-fuzz TARGET FILE...` prints what the reader answered to each.
@main
struct OpenSpeechFuzz {
    /// The target chosen on the command line; set once before any input runs.
    nonisolated(unsafe) static var target = FuzzTarget.config
    nonisolated(unsafe) static var folder = URL(fileURLWithPath: "/")
    /// The model store the server's targets resolve model names in: the built-in catalog (nothing is installed).
    static let store = ModelStore(home: FileManager.default.temporaryDirectory.appendingPathComponent("openspeech-fuzz-home"),
                                  catalog: .builtIn)

    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            print("usage: openspeech-fuzz TARGET [options] [corpus...]\ntargets:")
            for target in FuzzTarget.allCases { print("  \(target.rawValue): \(target.summary)") }
            exit(2)
        }
        Self.target = target
        // The inputs' files live in memory where it can (/dev/shm), in a folder of this process's own.
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
            : FileManager.default.temporaryDirectory
        folder = base.appendingPathComponent("openspeech-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: OpenSpeechFuzz.folder) }
        #if OPENSPEECH_FUZZ
        var argc = CommandLine.argc - 1
        // libFuzzer sees the program's name followed by the options: the target's name is dropped.
        let argv = CommandLine.unsafeArgv
        argv[1] = argv[0]
        var shifted = argv + 1
        let code = runFuzzerDriver(&argc, &shifted) { data, size in
            let bytes = size == 0 || data == nil ? Data() : Data(bytes: data!, count: size)
            _ = OpenSpeechFuzz.runOne(bytes)
            return 0
        }
        exit(code)
        #else
        for path in arguments.dropFirst(2) {
            guard let bytes = FileManager.default.contents(atPath: path) else { print("\(path): unreadable"); continue }
            let start = ContinuousClock.now
            let outcome = runOne(bytes)
            let elapsed = (ContinuousClock.now - start).components
            print("\(path): \(outcome) (\(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15) ms)")
        }
        #endif
    }

    /// Runs the target on one input in a fresh folder.
    static func runOne(_ bytes: Data) -> String {
        let inputFolder = folder.appendingPathComponent("input", isDirectory: true)
        try? FileManager.default.removeItem(at: inputFolder)
        try? FileManager.default.createDirectory(at: inputFolder, withIntermediateDirectories: true)
        return target.run(bytes, in: inputFolder)
    }
}
