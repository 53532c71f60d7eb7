import Foundation
import ParleyCore

/// One provider's answer in a comparison: who, how fast, what, and what it cost.
public struct ProviderComparison: Sendable, Equatable, Codable {
    /// How the provider fared.
    public enum Outcome: String, Sendable, Codable {
        /// It answered.
        case answered
        /// It could not be asked (no key, server down, model missing); ``detail`` says why.
        case unavailable
        /// It was asked and failed; ``detail`` has its error.
        case failed
    }

    /// The catalog entry (`openai`, `ollama`, `local`, …).
    public var entry: String
    /// The provider and model (`llama.cpp (Qwen2.5-…)`).
    public var provider: String
    /// Where it runs: `cloud`, `selfHosted` or `onDevice`.
    public var placement: String
    /// Whether it answered, could not be asked, or failed.
    public var outcome: Outcome
    /// Why it was not asked, or its error.
    public var detail: String?
    /// The text it wrote or heard; for a voice, how long its speech is.
    public var output: String?
    /// Milliseconds to the first token (language models) or the first audio (voices).
    public var firstMilliseconds: Double?
    /// Milliseconds to the whole answer.
    public var totalMilliseconds: Double?
    /// US dollars, by the prices configured (`PARLEY_PRICE_<PROVIDER>_…`); 0 for a provider
    /// with none (on device, self-hosted).
    public var cost: Double?
    /// A voice's speech, as a 16-bit WAV (not encoded in JSON; the server sends it base64).
    public var audio: Data?
    /// The tokens a language model reported using (not encoded; the server charges them).
    public var usage: Usage?

    enum CodingKeys: String, CodingKey {
        case entry, provider, placement, outcome, detail, output, firstMilliseconds = "first_ms", totalMilliseconds = "total_ms", cost
    }
}

extension Runtime {
    /// The longest a comparison waits for one provider.
    static var comparisonTimeout: Duration { .seconds(120) }

    /// `prompt` answered by every configured language model at once (each on its own, not
    /// as a chain), in the catalog's order.
    public nonisolated func compareLanguageModels(prompt: String, maxTokens: Int = 128) async -> [ProviderComparison] {
        let request = ChatRequest(messages: [.user(prompt)], sampling: SamplingOptions(maxTokens: maxTokens))
        return await compare(.languageModel, \.languageModel, erase: { $0 }) { (provider: any LanguageModelProvider) in
            let clock = ContinuousClock(), start = clock.now
            var text = "", first: Duration?, usage = Usage()
            for try await event in provider.complete(request) {
                switch event {
                case .text(let piece):
                    if first == nil, !piece.isEmpty { first = start.duration(to: clock.now) }
                    text += piece
                case .finished(_, let used):
                    usage = used
                default:
                    break
                }
            }
            let cost = self.settings.price(of: provider.identity.name)?.cost(of: MeteredUsage(usage)) ?? 0
            return (text.trimmingCharacters(in: .whitespacesAndNewlines), first, start.duration(to: clock.now), cost, nil, usage)
        }
    }

    /// `audio` transcribed by every configured speech-to-text provider at once.
    public nonisolated func compareSpeechToText(audio: AudioBuffer, options: TranscriptionOptions = TranscriptionOptions()) async -> [ProviderComparison] {
        await compare(.speechToText, \.speechToText, erase: { $0 }) { (provider: any SpeechToTextProvider) in
            let clock = ContinuousClock(), start = clock.now
            let transcript = try await provider.transcribe(audio, options: options)
            let cost = self.settings.price(of: provider.identity.name)?.cost(of: MeteredUsage(audioSeconds: audio.duration)) ?? 0
            return (transcript.text, nil, start.duration(to: clock.now), cost, nil, nil)
        }
    }

    /// `text` spoken by every configured voice at once; each answer carries its WAV.
    public nonisolated func compareTextToSpeech(text: String, options: SpeechOptions = SpeechOptions()) async -> [ProviderComparison] {
        await compare(.textToSpeech, \.textToSpeech, erase: { $0 }) { (provider: any TextToSpeechProvider) in
            let clock = ContinuousClock(), start = clock.now
            var first: Duration?
            var speech: AudioBuffer?
            for try await chunk in provider.synthesize(text, options: options) {
                if first == nil { first = start.duration(to: clock.now) }
                if speech == nil { speech = AudioBuffer(samples: [], sampleRate: chunk.sampleRate) }
                speech?.appendConverting(chunk)
            }
            let audio = speech ?? AudioBuffer(samples: [], sampleRate: 16_000)
            let cost = self.settings.price(of: provider.identity.name)?.cost(of: MeteredUsage(characters: text.count)) ?? 0
            return (String(format: "%.1f s of speech", audio.duration), first, start.duration(to: clock.now), cost, WAV.encode(audio), nil)
        }
    }

    /// Runs `ask` on a fresh provider of every configured entry of `capability`, all at once,
    /// each bounded by ``comparisonTimeout``; results in the catalog's order.
    /// `maker` reads the capability's factory; `erase` sees what it built as a provider.
    private nonisolated func compare<P: Sendable>(
        _ capability: ProviderCapability, _ maker: @escaping @Sendable (ProviderFactory) -> (@Sendable (ProviderContext) -> P)?,
        erase: @escaping @Sendable (P) -> any Provider,
        _ ask: @escaping @Sendable (P) async throws -> (String, Duration?, Duration, Double, Data?, Usage?)
    ) async -> [ProviderComparison] {
        let entries = (try? entries(capability, for: .auto)) ?? []
        let context = context()
        return await withTaskGroup(of: (Int, ProviderComparison).self) { group in
            for (index, entry) in entries.enumerated() {
                group.addTask {
                    guard let provider = maker(entry.factory)?(context) else {
                        let made = entry.make(context)
                        var result = ProviderComparison(
                            entry: entry.name, provider: made.identity.description, placement: "\(entry.placement)",
                            outcome: .unavailable)
                        result.detail = "not a provider of this capability"
                        return (index, result)
                    }
                    let made = erase(provider)
                    var result = ProviderComparison(
                        entry: entry.name, provider: made.identity.description, placement: "\(entry.placement)",
                        outcome: .answered)
                    let availability = await made.availability()
                    guard availability.isReady else {
                        result.outcome = .unavailable
                        result.detail = availability.description
                        return (index, result)
                    }
                    do {
                        let (output, first, total, cost, audio, usage) = try await Self.within(Self.comparisonTimeout) { try await ask(provider) }
                        result.output = output
                        result.firstMilliseconds = first.map(Self.milliseconds)
                        result.totalMilliseconds = Self.milliseconds(total)
                        result.cost = cost
                        result.audio = audio
                        result.usage = usage
                        result.provider = made.identity.description
                    } catch {
                        result.outcome = .failed
                        result.detail = "\(error)"
                    }
                    return (index, result)
                }
            }
            var results: [(Int, ProviderComparison)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// `work`'s result, or a ``ComparisonTimeout`` once `limit` has passed (the work is cancelled).
    private nonisolated static func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw ComparisonTimeout(limit: limit)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw ComparisonTimeout(limit: limit) }
            return first
        }
    }

    private nonisolated static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1_000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}

extension RuntimeSettings {
    /// The price of provider `name` (`PARLEY_PRICE_<NAME>_INPUT` and `_OUTPUT` per million
    /// tokens, `_AUDIO_MINUTE`, `_MILLION_CHARACTERS`); `nil` when none is set (free).
    public func price(of name: String) -> Price? {
        let key = "PARLEY_PRICE_\(name.uppercased().replacingOccurrences(of: "-", with: "_").replacingOccurrences(of: ".", with: "_"))"
        let values = ["INPUT", "OUTPUT", "AUDIO_MINUTE", "MILLION_CHARACTERS"].map { value("\(key)_\($0)").flatMap(Double.init) }
        guard values.contains(where: { $0 != nil }) else { return nil }
        return Price(
            perMillionInputTokens: values[0] ?? 0, perMillionOutputTokens: values[1] ?? 0, perAudioMinute: values[2] ?? 0,
            perMillionCharacters: values[3] ?? 0)
    }
}

/// A provider gave no whole answer within a comparison's time.
public struct ComparisonTimeout: Error, Sendable, CustomStringConvertible {
    /// The time the comparison gave each provider.
    public var limit: Duration
    public var description: String { "no whole answer within \(limit)" }
}
