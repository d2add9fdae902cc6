import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// `TranscriptionOptions.alternatives`: the window's ranked hypotheses per segment, decoding unchanged.
@Suite("Alternatives", .serialized)
struct AlternativesEngineTests {
    static let clips = ["1089-134686-0002", "1221-135766-0001", "1995-1837-0001", "4198-12281-0002",
                        "7018-75788-0004"].compactMap(Corpus.item)

    /// `segments` with `alternatives` cleared, to compare with a run that did not ask for them.
    static func withoutAlternatives(_ segments: [Segment]) -> [Segment] {
        segments.map { var segment = $0; segment.alternatives = nil; return segment }
    }

    @Test("beam 5: same segments as without the flag; per segment the text first, then distinct others, ≤ 5")
    func transcribe() async throws {
        try #require(Self.clips.count == 5)
        let session = WhisperSession(model: try await SharedModels.tinyEn())
        var asked = TranscriptionOptions(beamSize: 5)
        asked.alternatives = true
        var several = 0
        for clip in Self.clips {
            let samples = try WAV.read(clip.wav16kURL)
            let plain = try session.transcribe(samples: samples, options: TranscriptionOptions(beamSize: 5))
            let with = try session.transcribe(samples: samples, options: asked)
            #expect(plain.allSatisfy { $0.alternatives == nil }, "\(clip.id): alternatives not asked for")
            #expect(Self.withoutAlternatives(with) == plain, "\(clip.id): asking for alternatives changed decoding")
            for segment in with {
                let texts = try #require(segment.alternatives)
                #expect(texts.first == segment.text)
                #expect(Set(texts).count == texts.count && texts.count <= 5, "\(clip.id): \(texts)")
                #expect(texts.allSatisfy { !$0.allSatisfy(\.isWhitespace) })
                if texts.count >= 2 { several += 1 }
            }
        }
        #expect(several >= 1, "no segment had a second hypothesis")
    }

    @Test("greedy decoding has one alternative per segment; decodeWindow gives them too, tokens unchanged")
    func greedyAndWindow() async throws {
        let session = WhisperSession(model: try await SharedModels.tinyEn())
        let samples = try WAV.read(try #require(Corpus.item("jfk")).wav16kURL)
        var greedy = TranscriptionOptions.greedy
        greedy.alternatives = true
        let segments = try session.transcribe(samples: samples, options: greedy)
        #expect(!segments.isEmpty && segments.allSatisfy { $0.alternatives == [$0.text] })

        var beam = TranscriptionOptions(beamSize: 5)
        beam.temperatures = [0]
        let plain = try session.decodeWindow(samples: samples, previousTokens: [], timeOffset: 3, options: beam)
        beam.alternatives = true
        let with = try session.decodeWindow(samples: samples, previousTokens: [], timeOffset: 3, options: beam)
        #expect(Self.withoutAlternatives(with) == plain)
        #expect(with.allSatisfy { $0.alternatives?.first == $0.text })
    }
}
