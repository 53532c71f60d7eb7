import Foundation
import Testing
@testable import ParleyCore

@Suite("audio formats: G.711, containers by their bytes, timed transcripts")
struct AudioFormatsTests {
    @Test(
        "G.711 μ-law and A-law: the reference codes for silence and full scale, and a round trip within one step of the curve",
        arguments: G711.allCases)
    func g711(law: G711) {
        // Silence is 0xFF in μ-law and 0xD5 in A-law; the largest positive sample 0x80 and 0xAA.
        #expect(law.encode([Float(0)]) == [law == .muLaw ? 0xFF : 0xD5])
        #expect(law.encode([Float(1)]) == [law == .muLaw ? 0x80 : 0xAA])
        #expect(law.encode([Float(-1)]) == [law == .muLaw ? 0x00 : 0x2A])
        // Every code decodes to a value that encodes back to the same code.
        for code in UInt8.min...UInt8.max {
            let value = law.decode([code])[0]
            let again = law.encode([value])[0]
            if law == .muLaw, code == 0x7F { continue }  // μ-law's negative zero encodes as positive zero
            #expect(again == code, "code \(code) → \(value) → \(again)")
        }
        // A sine keeps its shape: companding error stays small relative to the signal.
        let sine = (0..<800).map { Float(sin(Double($0) * 2 * .pi * 440 / 8_000) * 0.5) }
        let back = law.decode(law.encode(sine))
        let error = zip(sine, back).map { abs($0 - $1) }.max() ?? 1
        #expect(error < 0.02, "largest error \(error)")
    }

    @Test("a container is told from its first bytes, not its name")
    func sniffing() {
        func bytes(_ text: String, then rest: [UInt8] = []) -> [UInt8] { Array(text.utf8) + rest }
        #expect(AudioContainer.sniff(bytes("RIFF", then: [0, 0, 0, 0] + Array("WAVEfmt ".utf8))) == .wav)
        #expect(AudioContainer.sniff(bytes("OggS", then: [0, 2])) == .ogg)
        #expect(AudioContainer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x9F]) == .webm)
        #expect(AudioContainer.sniff(bytes("fLaC", then: [0, 0, 0, 34])) == .flac)
        #expect(AudioContainer.sniff([0, 0, 0, 0x20] + bytes("ftypM4A ")) == .mp4)
        #expect(AudioContainer.sniff(bytes("ID3", then: [4, 0])) == .mp3)
        #expect(AudioContainer.sniff([0xFF, 0xFB, 0x90, 0x64]) == .mp3)  // MPEG-1 layer III frame
        #expect(AudioContainer.sniff([0xFF, 0xF1, 0x50, 0x80]) == .aac)  // ADTS
        #expect(AudioContainer.sniff(bytes("FORM", then: [0, 0, 0, 0] + Array("AIFF".utf8))) == .aiff)
        #expect(AudioContainer.sniff(bytes("caff", then: [0, 1])) == .caf)
        #expect(AudioContainer.sniff(bytes("{\"text\": 1}")) == nil)
        #expect(AudioContainer.sniff([UInt8]()) == nil)
        #expect(AudioContainer.sniff([0xFF]) == nil)
    }

    @Test("subtitles: srt and vtt cues with clamped times, the whole text as one cue when nothing is timed")
    func subtitles() {
        let transcript = Transcript(
            text: "Hello there. How are you?",
            segments: [
                .init(start: 0, end: 1.25, text: " Hello there."), .init(start: 1.25, end: 3700.5, text: "How are you?"), .init(start: 2, end: 2, text: " "),
            ])
        let timed = TimedTranscript(transcript, duration: 3_661.2)
        #expect(timed.srt == "1\n00:00:00,000 --> 00:00:01,250\nHello there.\n\n2\n00:00:01,250 --> 01:01:01,200\nHow are you?\n")
        #expect(timed.vtt == "WEBVTT\n\n00:00:00.000 --> 00:00:01.250\nHello there.\n\n00:00:01.250 --> 01:01:01.200\nHow are you?\n")
        let untimed = TimedTranscript(Transcript(text: "Hi."), duration: 0.8)
        #expect(untimed.segments == [.init(start: 0, end: 0.8, text: "Hi.")])
        #expect(TimedTranscript(Transcript(text: ""), duration: 1).srt.isEmpty)
    }

    @Test("a streaming WAV header says its length is unknown; a whole WAV says its own")
    func streamingHeader() throws {
        let header = WAV.streamingHeader(sampleRate: 24_000)
        #expect(header.count == 44 && Array(header[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
        let audio = AudioBuffer(samples: [0, 0.5, -0.5, 0.25], sampleRate: 24_000)
        let stream = Data(header + PCM16.encode(audio.samples))
        #expect(try WAV.decode(stream, streamed: true).samples.count == 4)
        #expect(Array(WAV.encode(audio)[40..<44]) == [8, 0, 0, 0])
    }

    @Test("OpenAI's voice names are standard voices in any case; other names are the provider's own")
    func voices() {
        #expect(SpeechOptions(voice: "Nova").standardVoice == .nova)
        #expect(SpeechOptions(voice: "Nova").customVoice == nil)
        #expect(SpeechOptions(voice: "en-gb").customVoice == "en-gb")
        #expect(SpeechOptions(voice: "").customVoice == nil)
        #expect(StandardVoice.allCases.count == 13)
    }
}
