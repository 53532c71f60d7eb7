import Foundation

/// The files sherpa-onnx reads for a Piper voice, made once from the voice's own and kept in a
/// cache folder: a copy of the model carrying the metadata sherpa-onnx looks for (Piper's
/// models have none), and the tokens file (the voice's phoneme table).
///
/// The metadata is ONNX's `metadata_props`, field 14 of the `ModelProto` message. Protocol
/// buffers merge repeated fields that come later in the bytes, so the copy is the model's
/// bytes followed by the encoded entries: nothing of the model is decoded or changed.
struct SherpaVoiceFiles: Sendable, Equatable {
    /// The model with metadata.
    var model: URL
    /// The tokens file.
    var tokens: URL

    /// The metadata sherpa-onnx's VITS loader reads (`comment` = `piper` selects Piper's
    /// inputs; the language and voice are informative).
    static func metadata(sampleRate: Int, speakers: Int, espeakVoice: String) -> [(String, String)] {
        [
            ("model_type", "vits"), ("comment", "piper"), ("language", "English"), ("voice", espeakVoice),
            ("has_espeak", "1"), ("n_speakers", String(speakers)), ("sample_rate", String(sampleRate)),
        ]
    }

    /// The protocol-buffer bytes of `entries` as `ModelProto.metadata_props` (field 14).
    static func encodedMetadata(_ entries: [(String, String)]) -> Data {
        func varint(_ value: Int) -> Data {
            var value = UInt64(value)
            var bytes = Data()
            repeat {
                let low = UInt8(value & 0x7f)
                value >>= 7
                bytes.append(value == 0 ? low : low | 0x80)
            } while value != 0
            return bytes
        }
        // A length-delimited field: its tag (number << 3 | wire type 2), length and bytes.
        func field(_ number: Int, _ bytes: Data) -> Data { varint(number << 3 | 2) + varint(bytes.count) + bytes }
        return entries.reduce(into: Data()) { data, entry in
            data += field(14, field(1, Data(entry.0.utf8)) + field(2, Data(entry.1.utf8)))
        }
    }

    /// The files for `voice` under `cache`, made if they are missing or older than the voice.
    static func prepare(_ voice: PiperVoice, configuration: PiperVoiceConfiguration, cache: URL) throws(PiperVoiceError) -> SherpaVoiceFiles {
        let manager = FileManager.default
        let attributes = try? manager.attributesOfItem(atPath: voice.model.path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let modified = Int((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        // A folder per version of the voice file: a voice pulled again gets fresh copies.
        let folder = cache.appendingPathComponent("\(voice.name)-\(size)-\(modified)", isDirectory: true)
        let files = SherpaVoiceFiles(
            model: folder.appendingPathComponent("model.onnx"),
            tokens: folder.appendingPathComponent("tokens.txt"))
        if manager.fileExists(atPath: files.model.path), manager.fileExists(atPath: files.tokens.path) { return files }
        do {
            // Earlier versions of this voice's copies go.
            for name in (try? manager.contentsOfDirectory(atPath: cache.path)) ?? [] where name.hasPrefix(voice.name + "-") {
                try? manager.removeItem(at: cache.appendingPathComponent(name))
            }
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(configuration.tokensFile.utf8).write(to: files.tokens, options: .atomic)
            let staging = files.model.appendingPathExtension("partial")
            try? manager.removeItem(at: staging)
            try manager.copyItem(at: voice.model, to: staging)
            do {
                let handle = try FileHandle(forWritingTo: staging)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(
                    contentsOf: encodedMetadata(
                        metadata(
                            sampleRate: configuration.audio.sample_rate, speakers: configuration.speakers, espeakVoice: configuration.espeakVoice)))
            }
            try manager.moveItem(at: staging, to: files.model)
        } catch {
            throw .preparationFailed(path: folder.path, reason: error.localizedDescription)
        }
        return files
    }
}
