import Foundation
import Logging

/// A language model that answers about images even when nothing it wraps can see them: a
/// request with images goes to the wrapped model (a chain routes it to the providers that read
/// images); when none can, or every one that can fails before any text, the images are read
/// as text by an ``ImageTextReader`` (Tesseract on device) and the question is answered from
/// that text, with a warning saying the images were read as text only.
///
/// Requests without images pass through unchanged. A failure after part of the answer was
/// delivered is not retried here (the chain below already continued what it could).
public struct ImageReadingLanguageModel: LanguageModelProvider {
    /// The model that answers (and reads images, unless ``seeing`` is given).
    public let base: any LanguageModelProvider
    /// The model for requests with images, when it is not ``base`` (the same providers in the
    /// vision task's order, say).
    public let seeing: any LanguageModelProvider
    /// What reads an image's text when no model can see it.
    public let reader: any ImageTextReader
    private let logger: Logger

    /// Wraps `base`, sending requests with images to `seeing` (by default `base`) and falling
    /// back to `reader` when it cannot see them.
    public init(
        _ base: any LanguageModelProvider, seeing: (any LanguageModelProvider)? = nil, reader: any ImageTextReader,
        logger: Logger = Logger(label: "parley.vision")
    ) {
        self.base = base
        self.seeing = seeing ?? base
        self.reader = reader
        self.logger = logger
    }

    public var identity: ProviderIdentity { base.identity }

    /// The base model's capabilities; images are always taken (seen, or read as text).
    public var capabilities: LanguageModelCapabilities {
        var capabilities = base.capabilities
        capabilities.images = true
        return capabilities
    }

    public func availability() async -> Availability { await base.availability() }

    /// The members of the model `request` goes to: ``seeing`` for images, else ``base``.
    public func members(for request: ChatRequest) -> [any LanguageModelProvider] {
        (request.hasImages ? seeing : base).members(for: request)
    }

    public func answerer() async -> any LanguageModelProvider { await base.answerer() }

    public func failover(for request: ChatRequest) -> LanguageModelFailover? {
        (request.hasImages ? seeing : base).failover(for: request)
    }

    public var runsOnDevice: Bool { base.runsOnDevice }

    public func complete(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, any Error> {
        guard request.hasImages else { return base.complete(request) }
        return .producing { output in
            let why: String
            if seeing.capabilities.images {
                var delivered = false
                do {
                    for try await event in seeing.complete(request) {
                        if case .text = event { delivered = true }
                        output.yield(event)
                    }
                    return
                } catch {
                    guard !delivered, !(error is CancellationError), !Task.isCancelled else { throw error }
                    why = "no provider that can see images answered (\(error))"
                }
            } else {
                why = "no configured provider can see images (\(seeing.identity))"
            }
            let readable = try await readingImages(of: request, why: why)
            logger.warning("[vision] images read as text only by \(reader.identity): \(why)")
            for try await event in base.complete(readable) { output.yield(event) }
        }
    }

    /// `request` with each image replaced by the text `reader` finds in it.
    public func readingImages(of request: ChatRequest, why: String) async throws -> ChatRequest {
        let availability = await reader.availability()
        guard availability.isReady else {
            throw ImageReadingError.noReader(why: why, reader: reader.identity.description, availability: availability)
        }
        var readable = request
        var number = 0
        for (index, message) in request.messages.enumerated() where message.hasImages {
            var parts: [ChatMessage.Part] = []
            for part in message.parts {
                guard case .image(let data, let mimeType) = part else {
                    parts.append(part)
                    continue
                }
                number += 1
                let text: String
                do {
                    text = try await reader.readText(in: ImageAttachment(data: data, mimeType: mimeType))
                } catch let error as ImageReadingError {
                    throw error
                } catch {
                    throw ImageReadingError.failed(reader: reader.identity.description, reason: "\(error)")
                }
                parts.append(.text(Self.describe(text, image: number)))
            }
            readable.messages[index] = ChatMessage(role: message.role, parts: parts)
        }
        return readable
    }

    /// How an image's text is put to the model: marked as read from an image, so the model
    /// does not claim to have seen it.
    static func describe(_ text: String, image number: Int) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "\n[Image \(number): no text could be read in it.]\n" }
        return "\n[Text read from image \(number):]\n\(trimmed)\n[End of image \(number)]\n"
    }
}
