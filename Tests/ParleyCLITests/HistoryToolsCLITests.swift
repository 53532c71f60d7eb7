import Foundation
import ParleyCore
import ParleyStore
import Testing

/// `parley history show` on a conversation in which the model called tools.
@Suite("parley history show with tool calls")
struct HistoryToolsCLITests {
    @Test("an assistant's calls show their name, arguments and id; a tool's result its name, whether it failed, and its start")
    func showsToolExchange() async throws {
        let database = CLI.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let store = try ConversationStore(path: database)
        let thread = try store.createThread(title: "Weather", settings: ThreadSettings())
        let long = String(repeating: "sunny ", count: 60)
        let exchange = [
            NewMessage(role: .user, text: "Weather in Lyon and Oslo?"),
            NewMessage(
                role: .assistant, text: "", provider: "openai",
                toolCalls: [
                    ToolCall(id: "call_lyon", name: "weather", arguments: #"{"city":"Lyon"}"#),
                    ToolCall(id: "call_oslo", name: "weather", arguments: #"{"city":"Oslo"}"#),
                ]),
            NewMessage(role: .tool, text: long, toolCallID: "call_lyon", toolName: "weather"),
            NewMessage(role: .tool, text: "the weather service did not answer", toolCallID: "call_oslo", toolName: "weather", isToolError: true),
            NewMessage(role: .assistant, text: "Lyon is sunny.", provider: "openai"),
        ]
        let ids = try exchange.map { try store.append($0, to: thread.id).id }

        let shown = try await CLI.run(["history", "show", String(thread.id), "--database", database.path])
        #expect(shown.status == 0, "stderr: \(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("#\(ids[1]) assistant [openai]:"), "\(shown.stdout)")
        #expect(lines.contains(#"    call: weather({"city":"Lyon"}) (call_lyon)"#), "\(shown.stdout)")
        #expect(lines.contains(#"    call: weather({"city":"Oslo"}) (call_oslo)"#), "\(shown.stdout)")
        let cut = String(long.trimmingCharacters(in: .whitespaces).prefix(199)) + "…"
        #expect(lines.contains("#\(ids[2]) tool weather (call_lyon): \(cut)"), "\(shown.stdout)")
        #expect(lines.contains("#\(ids[3]) tool weather (call_oslo) failed: the weather service did not answer"), "\(shown.stdout)")
        #expect(lines.contains("#\(ids[4]) assistant [openai]: Lyon is sunny."), "\(shown.stdout)")

        let json = try await CLI.run(["history", "show", String(thread.id), "--json", "--database", database.path])
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let export = try ConversationExport.decode(Data(json.stdout.utf8))
        #expect(export.threads.first?.messages.map(\.content) == exchange)
        #expect(json.stdout.contains(#""tool_calls""#) && json.stdout.contains(#""is_tool_error" : true"#))
    }
}
