extension VoiceActivityDetector {
    /// Finds the speech segments in a whole buffer. Positions are in samples of `audio` at its
    /// own rate; segment ends are clamped to the audio.
    public func segments(
        in audio: AudioBuffer, configuration: SpeechSegmenter.Configuration = .init()
    ) throws -> [SpeechSegment] {
        let converted = audio.resampled(to: sampleRate)
        var session = try makeSession()
        var segmenter = SpeechSegmenter(configuration: configuration, frameSize: frameSize, sampleRate: sampleRate)
        var found: [SpeechSegment] = []
        var offset = 0
        var frame = [Float](repeating: 0, count: frameSize)
        while offset < converted.samples.count {
            let count = min(frameSize, converted.samples.count - offset)
            for index in 0..<frameSize { frame[index] = index < count ? converted.samples[offset + index] : 0 }
            if case .speechEnded(let segment) = segmenter.process(probability: session.speechProbability(of: frame)) {
                found.append(segment)
            }
            offset += frameSize
        }
        if let last = segmenter.finish() { found.append(last) }
        let scale = Double(audio.sampleRate) / Double(sampleRate)
        return found.map {
            SpeechSegment(
                start: Int(Double($0.start) * scale),
                end: min(audio.samples.count, Int(Double($0.end) * scale)),
                sampleRate: audio.sampleRate)
        }
    }
}
