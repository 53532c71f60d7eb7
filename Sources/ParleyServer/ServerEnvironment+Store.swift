import Hummingbird
import ParleyData

extension ServerEnvironment {
    /// The runtime's conversation store: the shared PostgreSQL database the server opened at
    /// start, else the SQLite file (opened on first use). A store that cannot be opened is a
    /// server error.
    func store() async throws(OpenAIError) -> any ConversationStoring {
        do {
            return try await runtime.store()
        } catch {
            throw OpenAIError(status: .internalServerError, message: "The conversation store cannot be opened: \(error)", type: "server_error")
        }
    }
}

extension ServerRequestContext {
    /// The integer id in path parameter `name`; an id that is not an integer names nothing, so
    /// it is `notFound` like any unknown id.
    func id(_ name: String, notFound: (String) -> OpenAIError) throws(OpenAIError) -> Int64 {
        let text = parameters.get(name) ?? ""
        guard let id = Int64(text) else { throw notFound(text) }
        return id
    }
}
