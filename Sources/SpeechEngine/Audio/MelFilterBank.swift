/// The Slaney-style mel filter bank Whisper uses (librosa's `mel(sr=16000, n_fft=400, htk=False,
/// norm="slaney")`), computed in double precision like the reference and stored as fp32.
enum MelFilterBank {
    /// `[melBins, nFFT/2 + 1]` weights.
    static func make(melBins: Int, sampleRate: Int = 16000, nFFT: Int = 400) -> Tensor {
        let bins = nFFT / 2 + 1
        let fftFrequencies = (0..<bins).map { Double($0) * Double(sampleRate) / Double(nFFT) }
        let maxMel = 45.245640471924965
        let fSp = 200.0 / 3
        let minLogHz = 1000.0, minLogMel = minLogHz / fSp
        let logStep = libmLog(6.4) / 27.0
        let frequencies: [Double] = (0..<(melBins + 2)).map { i in
            // As numpy's linspace: start + i·step, the last point exactly the end.
            let mel = i == melBins + 1 ? maxMel : Double(i) * (maxMel / Double(melBins + 1))
            return mel >= minLogMel ? minLogHz * libmExp(logStep * (mel - minLogMel)) : fSp * mel
        }
        var weights = [Float](repeating: 0, count: melBins * bins)
        for m in 0..<melBins {
            let lowerWidth = frequencies[m + 1] - frequencies[m]
            let upperWidth = frequencies[m + 2] - frequencies[m + 1]
            let norm = 2.0 / (frequencies[m + 2] - frequencies[m])
            for k in 0..<bins {
                let lower = -(frequencies[m] - fftFrequencies[k]) / lowerWidth
                let upper = (frequencies[m + 2] - fftFrequencies[k]) / upperWidth
                weights[m * bins + k] = Float(max(0, min(lower, upper)) * norm)
            }
        }
        return Tensor(shape: [melBins, bins], values: weights)
    }
}
