/// One engine's run over a corpus, as JSON: the layout `bench/reference_faster_whisper.py` writes,
/// which the OpenSpeech side writes too (snake_case keys).
struct BenchRun: Codable {
    var engine: String
    var model: String
    var multilingual: Bool?
    var options: Options
    var loadSeconds: Double
    var wallSeconds: Double
    var audioSeconds: Double
    var peakRssBytes: Int
    /// The matrix libraries and instruction set (OpenSpeech runs only).
    var blasCore: String?
    /// `ONEDNN_MAX_CPU_ISA` / `CT2_FORCE_CPU_ISA` of the run ("none": the CPU's full ISA).
    var isaLimit: String?
    var clips: [Clip]

    struct Options: Codable {
        var computeType: String
        var beamSize: Int
        var temperatures: [Double]
        var wordTimestamps: Bool
        var threads: Int?
    }

    struct Clip: Codable {
        var id: String
        var subset: String
        var language: String
        var duration: Double
        var reference: String
        var text: String
        var seconds: Double
        var error: String?
        var segments: [Segment]
    }

    struct Segment: Codable {
        var start: Double
        var end: Double
        var text: String
        var tokens: [Int]
    }
}
