import Foundation

/// One Piper voice on disk: its ONNX model (`NAME.onnx`) and the JSON configuration beside it
/// (`NAME.onnx.json`), as Piper's voices are published.
///
/// A voice answers to its file name without the extension (`en_US-joe-medium`), to its
/// speaker's name (`joe`), and to its catalog id (`piper-joe`).
public struct PiperVoice: Sendable, Equatable, Hashable {
    /// The ONNX model.
    public var model: URL

    /// Creates a voice from the path of its model.
    public init(model: URL) {
        self.model = model
    }

    /// The JSON configuration beside the model.
    public var configuration: URL { model.appendingPathExtension("json") }

    /// The model's file name without `.onnx`, e.g. `en_US-joe-medium`.
    public var name: String { model.deletingPathExtension().lastPathComponent }

    /// The speaker's name, between the language and the quality (`joe` in
    /// `en_US-joe-medium`); the whole name when it has no such parts.
    public var speaker: String {
        let parts = name.split(separator: "-")
        return parts.count >= 3 ? parts.dropFirst().dropLast().joined(separator: "-") : name
    }

    /// The names a request may use for this voice.
    public var names: [String] { [speaker, "piper-\(speaker)", name] }

    /// Whether `voice` names this voice (case-insensitive).
    public func answers(to voice: String) -> Bool {
        names.contains { $0.caseInsensitiveCompare(voice) == .orderedSame }
    }

    /// Whether both files are there.
    public var isInstalled: Bool {
        FileManager.default.fileExists(atPath: model.path) && FileManager.default.fileExists(atPath: configuration.path)
    }

    /// The Piper voices in `folder`: every `*.onnx` with a `*.onnx.json` beside it, by name.
    public static func installed(in folder: URL) -> [PiperVoice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".onnx") && names.contains($0 + ".json") }.sorted()
            .map { PiperVoice(model: folder.appendingPathComponent($0)) }
    }
}
