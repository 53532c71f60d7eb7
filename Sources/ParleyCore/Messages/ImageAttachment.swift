import Foundation

/// An image that belongs to a message: its bytes and their media type.
///
/// Encoded as `{"data": "<base64>", "mime_type": "image/png"}`.
public struct ImageAttachment: Sendable, Equatable, Hashable, Codable {
    /// The encoded image (PNG, JPEG, …).
    public var data: Data
    /// The media type of ``data``, e.g. `image/png`.
    public var mimeType: String

    /// Creates an attachment.
    public init(data: Data, mimeType: String) {
        self.data = data
        self.mimeType = mimeType
    }

    /// The image as a part of a model message.
    public var part: ChatMessage.Part {
        .image(data: data, mimeType: mimeType)
    }

    enum CodingKeys: String, CodingKey {
        case data
        case mimeType = "mime_type"
    }
}
