extension FileTranscriber.Options {
    /// These options with `encoderBatchSize` set (at least 1): 30 s windows encoded together, with the same text.
    /// Not in Apple's API.
    public func encodingBatches(of size: Int) -> Self {
        var options = self
        options.encoderBatchSize = max(1, size)
        return options
    }
}
