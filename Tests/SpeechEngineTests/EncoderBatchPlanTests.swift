import Testing
@testable import SpeechEngine

/// Which long-form windows are encoded together, without a model: the decoder's window first, then full windows
/// whose audio has arrived (strictly before the complete frames while the stream goes on), never more than the batch.
@Suite("Encoder batch plan")
struct EncoderBatchPlanTests {
    typealias Window = EncoderBatchPlan.Window

    @Test("batch 1, or a short window: the decoder's window alone")
    func single() {
        #expect(EncoderBatchPlan(batchSize: 1).windows(seek: 0, count: 3000, completeFrames: 90_000, contentFrames: 90_000,
                                                       ended: true) == [Window(start: 0, count: 3000)])
        #expect(EncoderBatchPlan(batchSize: 4).windows(seek: 500, count: 1200, completeFrames: 1700, contentFrames: 1700,
                                                       ended: true) == [Window(start: 500, count: 1200)])
        // Batch sizes below 1 are 1.
        #expect(EncoderBatchPlan(batchSize: 0).batchSize == 1)
    }

    @Test("full windows ahead while the batch has room and their audio has arrived")
    func ahead() {
        let plan = EncoderBatchPlan(batchSize: 4)
        #expect(plan.windows(seek: 100, count: 3000, completeFrames: 20_000, contentFrames: 20_100, ended: false)
            == [Window(start: 100, count: 3000), Window(start: 3100, count: 3000), Window(start: 6100, count: 3000),
                Window(start: 9100, count: 3000)])
        // Streaming: a window ending at the complete frames is not taken (its floor could change when the stream ends).
        #expect(plan.windows(seek: 0, count: 3000, completeFrames: 9000, contentFrames: 9100, ended: false)
            == [Window(start: 0, count: 3000), Window(start: 3000, count: 3000)])
        #expect(plan.windows(seek: 0, count: 3000, completeFrames: 9001, contentFrames: 9100, ended: false).count == 3)
    }

    @Test("after the end: the last window as the decoder will ask for it, shorter, and nothing after it")
    func ended() {
        let plan = EncoderBatchPlan(batchSize: 8)
        #expect(plan.windows(seek: 0, count: 3000, completeFrames: 7500, contentFrames: 7500, ended: true)
            == [Window(start: 0, count: 3000), Window(start: 3000, count: 3000), Window(start: 6000, count: 1500)])
        #expect(plan.windows(seek: 0, count: 3000, completeFrames: 6000, contentFrames: 6000, ended: true)
            == [Window(start: 0, count: 3000), Window(start: 3000, count: 3000)])
    }

    @Test("a window encoded ahead is used only where the seek lands on it with the same length")
    func reuse() {
        let plan = EncoderBatchPlan(batchSize: 3)
        let ahead = [Window(start: 3000, count: 3000), Window(start: 6000, count: 1500)]
        #expect(plan.reusable(ahead, seek: 3000, count: 3000) == 0)
        #expect(plan.reusable(ahead, seek: 6000, count: 1500) == 1)
        #expect(plan.reusable(ahead, seek: 2980, count: 3000) == nil)
        #expect(plan.reusable(ahead, seek: 6000, count: 3000) == nil)
        #expect(plan.reusable([], seek: 0, count: 3000) == nil)
    }
}
