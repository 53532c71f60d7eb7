import Foundation
import ParleyCore
import ParleyLocal

/// How a runtime sets up its on-device engines.
public struct RuntimeOptions: Sendable {
    /// Model paths, voice and threads of the on-device engines (`nil` paths are the defaults
    /// in the data directory).
    public var engines: LocalEngines.Overrides
    /// A smaller GGUF model that answers on-device while memory is short or the device too
    /// hot for the main one (which then steps aside and is unloaded).
    public var smallModel: String?
    /// The conversation database; `nil` uses the settings' (`PARLEY_DATABASE`, else
    /// `parley.sqlite` in the data directory).
    public var database: URL?
    /// The data directory; `nil` uses the settings' (`PARLEY_HOME`, …).
    public var paths: ParleyPaths?
    /// Tools every face offers beside the built-ins (an MCP server's, a host app's), in
    /// ``Runtime/toolbox(owner:builtIns:warn:language:)``. One named like a built-in is left out.
    public var tools: [Tool]

    /// Creates options; the defaults use the data directory's models and every core.
    public init(
        engines: LocalEngines.Overrides = .init(), smallModel: String? = nil, database: URL? = nil,
        paths: ParleyPaths? = nil, tools: [Tool] = []
    ) {
        self.engines = engines
        self.smallModel = smallModel
        self.database = database
        self.paths = paths
        self.tools = tools
    }
}
