import Foundation
import ParleyCore

/// An image in a message body: a data URL (`"data:image/png;base64,…"`), or the form messages
/// are sent back in (`{"data": "<base64>", "mime_type": "image/png"}`), so a message read from
/// the API can be posted again as it is. Remote URLs are refused: the server fetches nothing.
enum ImageInput: Decodable, Sendable {
    case dataURL(String)
    case attachment(ImageAttachment)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let url = try? container.decode(String.self) {
            self = .dataURL(url)
        } else if let attachment = try? container.decode(ImageAttachment.self) {
            self = .attachment(attachment)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: #"expected a data URL ("data:image/png;base64,…") or {"data": "<base64>", "mime_type": "image/png"}."#)
        }
    }

    /// The image to keep; `param` names it in errors.
    func attachment(param: String) throws(OpenAIError) -> ImageAttachment {
        switch self {
        case .dataURL(let url):
            guard case .image(let data, let mimeType) = try ChatCompletionRequest.image(fromDataURL: url, param: param) else {
                throw .invalidRequest("The image is not a data URL.", param: param, code: "invalid_image_url")
            }
            return ImageAttachment(data: data, mimeType: mimeType)
        case .attachment(let attachment):
            guard attachment.mimeType.lowercased().hasPrefix("image/"), !attachment.data.isEmpty else {
                throw .invalidRequest("An image needs base64 'data' and an image/* 'mime_type'.", param: param, code: "invalid_image")
            }
            do {
                return try ImageAttachment.validated(attachment.data, name: "in \(param)")
            } catch {
                throw .invalidRequest(error.description, param: param, code: "invalid_image")
            }
        }
    }
}
