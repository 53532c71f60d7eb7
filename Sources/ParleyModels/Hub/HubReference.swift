import Foundation

/// A GGUF named the way Ollama and llama.cpp take one from the hub:
/// `hf.co/OWNER/REPO[:QUANT]` (the file of that quantization, `Q4_K_M` by default) or
/// `hf.co/OWNER/REPO/FILE.gguf` (that file). `huggingface.co/` works as well as `hf.co/`.
public struct HubReference: Sendable, Hashable {
    /// How the file is chosen.
    public enum Selection: Sendable, Hashable {
        /// The single-file GGUF whose name carries this quantization (upper-cased).
        case quantization(String)
        /// This path in the repository.
        case file(String)
    }

    /// The quantization Ollama takes when none is named.
    public static let defaultQuantization = "Q4_K_M"

    /// `OWNER/REPO`.
    public var repository: String
    /// Which file.
    public var selection: Selection
    /// The branch, tag or commit the file is read at.
    public var revision: String

    /// Creates a reference.
    public init(repository: String, selection: Selection, revision: String = "main") {
        self.repository = repository
        self.selection = selection
        self.revision = revision
    }

    /// Parses `hf.co/OWNER/REPO[:QUANT]` or `hf.co/OWNER/REPO/FILE.gguf`; `nil` for anything else.
    public init?(_ text: String) {
        var rest = Substring(text)
        for scheme in ["https://", "http://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        guard let host = ["hf.co/", "huggingface.co/"].first(where: { rest.lowercased().hasPrefix($0) }) else { return nil }
        rest = rest.dropFirst(host.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != ".." }) else { return nil }
        if parts.count == 2 {
            let name = parts[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let repo = name.first, !repo.isEmpty else { return nil }
            let quant = name.count == 2 ? name[1] : Self.defaultQuantization
            guard !quant.isEmpty else { return nil }
            self.init(repository: "\(parts[0])/\(repo)", selection: .quantization(quant.uppercased()))
        } else {
            let file = parts[2...].joined(separator: "/")
            guard file.lowercased().hasSuffix(".gguf") else { return nil }
            self.init(repository: "\(parts[0])/\(parts[1])", selection: .file(file))
        }
    }

    /// The file of `quantization` among `paths`: a `.gguf` whose name has the quantization as a
    /// whole word (`Q4_K` does not match `Q4_K_M`), not a split part or a projector; the shortest
    /// name wins (`model-Q4_K_M.gguf` over `model-Q4_K_M-imat.gguf`).
    public static func choose(_ quantization: String, among paths: [String]) -> String? {
        let wanted = quantization.uppercased()
        let candidates = ggufFiles(paths).filter { path in
            let name = (path as NSString).lastPathComponent.uppercased()
            var search = name.startIndex..<name.endIndex
            while let found = name.range(of: wanted, range: search) {
                let before = found.lowerBound == name.startIndex ? nil : name[name.index(before: found.lowerBound)]
                let after = found.upperBound == name.endIndex ? nil : name[found.upperBound]
                if !isWordCharacter(before), !isWordCharacter(after) { return true }
                search = found.upperBound..<name.endIndex
            }
            return false
        }
        return candidates.min { ($0.count, $0) < ($1.count, $1) }
    }

    /// The single-file GGUFs among `paths`: no split parts (`-00001-of-00002`), no vision projectors.
    public static func ggufFiles(_ paths: [String]) -> [String] {
        paths.filter { path in
            let name = (path as NSString).lastPathComponent.lowercased()
            return name.hasSuffix(".gguf") && !name.contains("mmproj") && name.range(of: #"-\d{5}-of-\d{5}"#, options: .regularExpression) == nil
        }.sorted()
    }

    private static func isWordCharacter(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "_"
    }
}
