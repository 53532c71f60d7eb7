import Foundation

/// What a Piper voice's `.onnx.json` says that synthesis needs: the sample rate, the espeak-ng
/// voice its phonemes come from, the phoneme to id table and the default noise and length.
struct PiperVoiceConfiguration: Sendable, Equatable, Decodable {
    struct Audio: Sendable, Equatable, Decodable {
        var sample_rate: Int
    }

    struct Espeak: Sendable, Equatable, Decodable {
        var voice: String
    }

    struct Inference: Sendable, Equatable, Decodable {
        var noise_scale: Double?
        var length_scale: Double?
        var noise_w: Double?
    }

    var audio: Audio
    var espeak: Espeak?
    var inference: Inference?
    var phoneme_type: String?
    var num_speakers: Int?
    var phoneme_id_map: [String: [Int]]

    /// The espeak-ng voice that phonemizes for this voice.
    var espeakVoice: String { espeak?.voice ?? "en-us" }
    var noiseScale: Float { Float(inference?.noise_scale ?? 0.667) }
    var lengthScale: Float { Float(inference?.length_scale ?? 1) }
    var noiseWidth: Float { Float(inference?.noise_w ?? 0.8) }
    var speakers: Int { num_speakers ?? 1 }

    /// The code points the voice has ids for (each key of the table is one character).
    var phonemes: Set<Unicode.Scalar> {
        Set(phoneme_id_map.keys.compactMap { key in key.unicodeScalars.count == 1 ? key.unicodeScalars.first : nil })
    }

    /// Reads the configuration at `url`.
    static func read(_ url: URL) throws(PiperVoiceError) -> PiperVoiceConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadableConfiguration(path: url.path, reason: error.localizedDescription)
        }
        let configuration: PiperVoiceConfiguration
        do {
            configuration = try JSONDecoder().decode(PiperVoiceConfiguration.self, from: data)
        } catch {
            throw .unreadableConfiguration(path: url.path, reason: "\(error)")
        }
        guard configuration.phoneme_type == nil || configuration.phoneme_type == "espeak" else {
            throw .unreadableConfiguration(
                path: url.path, reason: "its phonemes are \(configuration.phoneme_type ?? "?"), and only espeak phonemes are supported")
        }
        return configuration
    }

    /// sherpa-onnx's tokens file: one `SYMBOL ID` line per phoneme, ordered by id.
    var tokensFile: String {
        phoneme_id_map.compactMap { key, ids in ids.first.map { (key, $0) } }
            .sorted { $0.1 < $1.1 }
            .map { "\($0.0) \($0.1)\n" }
            .joined()
    }
}
