import ParleyCore

/// Who wrote a message: the role of ParleyCore's messages (`system`, `user`, `assistant`).
public typealias MessageRole = ChatMessage.Role
