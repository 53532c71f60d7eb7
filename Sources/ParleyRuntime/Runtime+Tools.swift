import Foundation
import Logging
import ParleyCore
import ParleyStore

extension Runtime {
    /// The tools every face offers `owner`: the built-ins over this runtime's store (with its
    /// embedder, when there is one), unless `builtIns` is off, then the options' own tools
    /// (``RuntimeOptions/tools``: an MCP server's, …). One of those named like a tool already
    /// in the box is left out, with a warning.
    public func toolbox(owner: Owner, builtIns: Bool = true, warn: Bool = true, language: LanguageSetting? = nil) async throws -> ToolBox {
        var box =
            builtIns
            ? try BuiltInTools.toolbox(
                store: try? store(), owner: owner, embedder: onDeviceEmbedder(warn: warn),
                language: language?.code)
            : try ToolBox()
        for tool in options.tools {
            do {
                try box.register(tool)
            } catch {
                Logger(label: "parley.tools").warning("the tool \(tool.definition.name) is left out: \(error)")
            }
        }
        return box
    }
}
