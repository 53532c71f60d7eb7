/// Reads the text in an image (OCR): the offline way to answer about a picture when no
/// provider that can see images is configured or reachable.
public protocol ImageTextReader: Provider {
    /// The image's text, with its layout kept as lines and blank-line-separated paragraphs;
    /// empty when the image has no text.
    func readText(in image: ImageAttachment) async throws -> String
}

/// Why an image could not be read as text.
public enum ImageReadingError: Error, Sendable, Equatable, ClassifiedError, CustomStringConvertible {
    /// No provider could see the image and the text reader cannot run either.
    case noReader(why: String, reader: String, availability: Availability)
    /// The reader ran and failed.
    case failed(reader: String, reason: String)

    public var failureKind: FailureKind { .configuration }

    public var description: String {
        switch self {
        case .noReader(let why, let reader, let availability):
            return "The image cannot be read: \(why), and \(reader) cannot read its text (\(availability)); "
                + "\(LanguageModelCapabilities.Feature.images.remedy), or install tesseract-ocr (scripts/setup does)."
        case .failed(let reader, let reason):
            return "\(reader) could not read the image's text: \(reason)."
        }
    }
}
