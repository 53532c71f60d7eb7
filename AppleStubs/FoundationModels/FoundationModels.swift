// Stub of FoundationModels for scripts/check-apple, written from Apple's documentation
// (https://developer.apple.com/documentation/foundationmodels/…); bodies never run.
// Availability as documented: iOS, iPadOS, Mac Catalyst, macOS and visionOS 26.0.
import Foundation

/// https://developer.apple.com/documentation/foundationmodels/systemlanguagemodel (final, Sendable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public final class SystemLanguageModel: Sendable {
    /// …/default
    public static let `default` = SystemLanguageModel()
    private init() {}
    /// …/availability-swift.property
    public var availability: SystemLanguageModel.Availability { .unavailable(.deviceNotEligible) }
    /// …/isavailable
    public var isAvailable: Bool { false }
    /// …/supportslocale(_:)
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool { false }

    /// …/availability-swift.enum
    public enum Availability: Equatable, Sendable {
        case available
        case unavailable(SystemLanguageModel.Availability.UnavailableReason)

        /// …/availability-swift.enum/unavailablereason
        public enum UnavailableReason: Equatable, Sendable {
            case deviceNotEligible
            case appleIntelligenceNotEnabled
            case modelNotReady
        }
    }
}

/// https://developer.apple.com/documentation/foundationmodels/generationid
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct GenerationID: Sendable, Hashable {
    public init() {}
}

/// https://developer.apple.com/documentation/foundationmodels/convertiblefromgeneratedcontent
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    init(_ content: GeneratedContent) throws
}

/// https://developer.apple.com/documentation/foundationmodels/convertibletogeneratedcontent
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable {
    var generatedContent: GeneratedContent { get }
}

/// https://developer.apple.com/documentation/foundationmodels/promptrepresentable
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public protocol PromptRepresentable {}

/// https://developer.apple.com/documentation/foundationmodels/instructionsrepresentable
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public protocol InstructionsRepresentable {}

/// https://developer.apple.com/documentation/foundationmodels/generable
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self
    static var generationSchema: GenerationSchema { get }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension String: Generable {
    public init(_ content: GeneratedContent) throws { self = "" }
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .string(self)) }
    public static var generationSchema: GenerationSchema { fatalError("stub") }
}
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension Int: Generable {
    public init(_ content: GeneratedContent) throws { self = 0 }
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
    public static var generationSchema: GenerationSchema { fatalError("stub") }
}
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension Double: Generable {
    public init(_ content: GeneratedContent) throws { self = 0 }
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(self)) }
    public static var generationSchema: GenerationSchema { fatalError("stub") }
}
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension Bool: Generable {
    public init(_ content: GeneratedContent) throws { self = false }
    public var generatedContent: GeneratedContent { GeneratedContent(kind: .bool(self)) }
    public static var generationSchema: GenerationSchema { fatalError("stub") }
}

/// https://developer.apple.com/documentation/foundationmodels/generatedcontent (Sendable, Equatable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct GeneratedContent: Sendable, Equatable, Generable, CustomDebugStringConvertible {
    /// …/kind-swift.enum
    public enum Kind: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([GeneratedContent])
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }
    /// …/kind-swift.property
    public var kind: GeneratedContent.Kind
    /// …/id
    public var id: GenerationID?
    /// …/init(kind:id:)
    public init(kind: GeneratedContent.Kind, id: GenerationID? = nil) { self.kind = kind; self.id = id }
    /// …/init(json:)
    public init(json: String) throws { kind = .null }
    /// …/init(_:) (ConvertibleFromGeneratedContent)
    public init(_ content: GeneratedContent) throws { self = content }
    /// …/jsonstring
    public var jsonString: String { "" }
    /// …/iscomplete
    public var isComplete: Bool { true }
    /// …/generatedcontent
    public var generatedContent: GeneratedContent { self }
    /// …/debugdescription
    public var debugDescription: String { "" }
    public static var generationSchema: GenerationSchema { fatalError("stub") }
}

/// https://developer.apple.com/documentation/foundationmodels/generationschema (Sendable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct GenerationSchema: Sendable {
    /// …/init(root:dependencies:)
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {}
}

/// https://developer.apple.com/documentation/foundationmodels/dynamicgenerationschema (Sendable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct DynamicGenerationSchema: Sendable {
    /// …/init(arrayof:minimumelements:maximumelements:)
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {}
    /// …/init(dictionaryof:)
    public init(dictionaryOf valueSchema: DynamicGenerationSchema) {}
    /// …/init(name:description:anyof:) (alternative schemas)
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {}
    /// …/init(name:description:anyof:) (string choices)
    public init(name: String, description: String? = nil, anyOf choices: [String]) {}
    /// …/init(name:description:properties:)
    public init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property]) {}
    /// …/init(referenceto:)
    public init(referenceTo name: String) {}
    /// …/init(type:guides:)
    public init<Value: Generable>(type: Value.Type, guides: [GenerationGuide<Value>] = []) {}

    /// …/property
    public struct Property: Sendable {
        /// …/property/init(name:description:schema:isoptional:)
        public init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false) {}
    }
}

/// https://developer.apple.com/documentation/foundationmodels/generationguide (Sendable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct GenerationGuide<Value>: Sendable {}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension GenerationGuide where Value == String {
    /// …/generationguide/anyof(_:)
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> { GenerationGuide() }
    /// …/generationguide/constant(_:)
    public static func constant(_ value: String) -> GenerationGuide<String> { GenerationGuide() }
    /// …/generationguide/pattern(_:)
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> { GenerationGuide() }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension GenerationGuide where Value == Int {
    /// …/generationguide/range(_:) (Int)
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> { GenerationGuide() }
    /// …/generationguide/minimum(_:) (Int)
    public static func minimum(_ value: Int) -> GenerationGuide<Int> { GenerationGuide() }
    /// …/generationguide/maximum(_:) (Int)
    public static func maximum(_ value: Int) -> GenerationGuide<Int> { GenerationGuide() }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension GenerationGuide where Value == Double {
    /// …/generationguide/range(_:) (Double)
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> { GenerationGuide() }
    /// …/generationguide/minimum(_:) (Double)
    public static func minimum(_ value: Double) -> GenerationGuide<Double> { GenerationGuide() }
    /// …/generationguide/maximum(_:) (Double)
    public static func maximum(_ value: Double) -> GenerationGuide<Double> { GenerationGuide() }
}

/// https://developer.apple.com/documentation/foundationmodels/generationoptions (Sendable, Equatable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct GenerationOptions: Sendable, Equatable {
    /// …/samplingmode-swift.struct
    public struct SamplingMode: Sendable, Equatable {
        /// …/samplingmode-swift.struct/greedy
        public static let greedy = SamplingMode()
    }
    /// …/temperature
    public var temperature: Double?
    /// …/maximumresponsetokens
    public var maximumResponseTokens: Int?
    /// …/sampling
    public var sampling: GenerationOptions.SamplingMode?
    /// …/init(sampling:temperature:maximumresponsetokens:)
    public init(sampling: GenerationOptions.SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling; self.temperature = temperature; self.maximumResponseTokens = maximumResponseTokens
    }
}

/// https://developer.apple.com/documentation/foundationmodels/tool (protocol Tool<Arguments, Output>: Sendable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public protocol Tool<Arguments, Output>: Sendable {
    /// …/tool/arguments
    associatedtype Arguments: ConvertibleFromGeneratedContent
    /// …/tool/output
    associatedtype Output: PromptRepresentable
    /// …/tool/name
    var name: String { get }
    /// …/tool/description
    var description: String { get }
    /// …/tool/parameters
    var parameters: GenerationSchema { get }
    /// …/tool/includesschemaininstructions
    var includesSchemaInInstructions: Bool { get }
    /// …/tool/call(arguments:)
    func call(arguments: Self.Arguments) async throws -> Self.Output
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension Tool {
    public var includesSchemaInInstructions: Bool { true }
}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension String: PromptRepresentable, InstructionsRepresentable {}

/// https://developer.apple.com/documentation/foundationmodels/transcript (Sendable, Equatable, a collection of entries)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public struct Transcript: Sendable, Equatable, RandomAccessCollection {
    private var entries: [Transcript.Entry]
    /// …/transcript/init(entries:)
    public init(entries: some Sequence<Transcript.Entry> = []) { self.entries = Array(entries) }
    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Transcript.Entry { entries[position] }

    /// …/transcript/entry
    public enum Entry: Sendable, Equatable, Identifiable {
        case instructions(Transcript.Instructions)
        case prompt(Transcript.Prompt)
        case toolCalls(Transcript.ToolCalls)
        case toolOutput(Transcript.ToolOutput)
        case response(Transcript.Response)
        public var id: String { "" }
    }

    /// …/transcript/segment
    public enum Segment: Sendable, Equatable, Identifiable {
        case text(Transcript.TextSegment)
        case structure(Transcript.StructuredSegment)
        public var id: String { "" }
    }

    /// …/transcript/textsegment
    public struct TextSegment: Sendable, Equatable, Identifiable {
        public var id: String
        public var content: String
        /// …/transcript/textsegment/init(id:content:)
        public init(id: String = UUID().uuidString, content: String) { self.id = id; self.content = content }
    }

    /// …/transcript/structuredsegment
    public struct StructuredSegment: Sendable, Equatable, Identifiable {
        public var id: String
        public var source: String
        public var content: GeneratedContent
        /// …/transcript/structuredsegment/init(id:source:content:)
        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.id = id; self.source = source; self.content = content
        }
    }

    /// …/transcript/tooldefinition
    public struct ToolDefinition: Sendable, Equatable {
        /// …/transcript/tooldefinition/init(name:description:parameters:)
        public init(name: String, description: String, parameters: GenerationSchema) {}
        /// …/transcript/tooldefinition/init(tool:)
        public init(tool: some Tool) {}
        public static func == (lhs: ToolDefinition, rhs: ToolDefinition) -> Bool { true }
    }

    /// …/transcript/instructions
    public struct Instructions: Sendable, Equatable, Identifiable {
        public var id: String
        public var segments: [Transcript.Segment]
        public var toolDefinitions: [Transcript.ToolDefinition]
        /// …/transcript/instructions/init(id:segments:tooldefinitions:)
        public init(id: String = UUID().uuidString, segments: [Transcript.Segment], toolDefinitions: [Transcript.ToolDefinition]) {
            self.id = id; self.segments = segments; self.toolDefinitions = toolDefinitions
        }
    }

    /// …/transcript/responseformat
    public struct ResponseFormat: Sendable, Equatable {
        /// …/transcript/responseformat/init(schema:)
        public init(schema: GenerationSchema) {}
        public static func == (lhs: ResponseFormat, rhs: ResponseFormat) -> Bool { true }
    }

    /// …/transcript/prompt
    public struct Prompt: Sendable, Equatable, Identifiable {
        public var id: String
        public var segments: [Transcript.Segment]
        public var options: GenerationOptions
        public var responseFormat: Transcript.ResponseFormat?
        /// …/transcript/prompt/init(id:segments:options:responseformat:)
        public init(
            id: String = UUID().uuidString, segments: [Transcript.Segment], options: GenerationOptions = GenerationOptions(),
            responseFormat: Transcript.ResponseFormat? = nil
        ) {
            self.id = id; self.segments = segments; self.options = options; self.responseFormat = responseFormat
        }
    }

    /// …/transcript/toolcall
    public struct ToolCall: Sendable, Equatable, Identifiable {
        public var id: String
        public var toolName: String
        public var arguments: GeneratedContent
        /// …/transcript/toolcall/init(id:toolname:arguments:)
        public init(id: String, toolName: String, arguments: GeneratedContent) {
            self.id = id; self.toolName = toolName; self.arguments = arguments
        }
    }

    /// …/transcript/toolcalls
    public struct ToolCalls: Sendable, Equatable, Identifiable, RandomAccessCollection {
        public var id: String
        private var calls: [Transcript.ToolCall]
        /// …/transcript/toolcalls/init(id:_:)
        public init<C: Collection>(id: String = UUID().uuidString, _ calls: C) where C.Element == Transcript.ToolCall {
            self.id = id; self.calls = Array(calls)
        }
        public var startIndex: Int { calls.startIndex }
        public var endIndex: Int { calls.endIndex }
        public subscript(position: Int) -> Transcript.ToolCall { calls[position] }
    }

    /// …/transcript/tooloutput
    public struct ToolOutput: Sendable, Equatable, Identifiable {
        public var id: String
        public var toolName: String
        public var segments: [Transcript.Segment]
        /// …/transcript/tooloutput/init(id:toolname:segments:)
        public init(id: String, toolName: String, segments: [Transcript.Segment]) {
            self.id = id; self.toolName = toolName; self.segments = segments
        }
    }

    /// …/transcript/response
    public struct Response: Sendable, Equatable, Identifiable {
        public var id: String
        public var assetIDs: [String]
        public var segments: [Transcript.Segment]
        /// …/transcript/response/init(id:assetids:segments:)
        public init(id: String = UUID().uuidString, assetIDs: [String], segments: [Transcript.Segment]) {
            self.id = id; self.assetIDs = assetIDs; self.segments = segments
        }
    }
}

/// https://developer.apple.com/documentation/foundationmodels/languagemodelsession (final, Observable, Sendable)
@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
public final class LanguageModelSession: Sendable {
    /// …/init(model:tools:instructions:) (the String form)
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: String? = nil) { self.init() }
    /// …/init(model:tools:transcript:)
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], transcript: Transcript) { self.init() }
    private init() {}

    /// …/transcript
    public var transcript: Transcript { Transcript() }
    /// …/isresponding
    public var isResponding: Bool { false }
    /// …/prewarm(promptprefix:)
    public func prewarm() {}

    /// …/respond(to:options:)
    @discardableResult
    public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> LanguageModelSession.Response<String> {
        fatalError("stub")
    }
    /// …/respond(to:schema:includeschemainprompt:options:)
    @discardableResult
    public func respond(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> LanguageModelSession.Response<GeneratedContent> {
        fatalError("stub")
    }
    /// …/streamresponse(to:options:)
    public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> sending LanguageModelSession.ResponseStream<String> {
        ResponseStream()
    }

    /// …/response
    public struct Response<Content: Generable> {
        /// …/response/content
        public let content: Content
        /// …/response/transcriptentries
        public let transcriptEntries: ArraySlice<Transcript.Entry>
    }

    /// …/responsestream (an AsyncSequence of snapshots)
    public struct ResponseStream<Content: Generable>: AsyncSequence {
        public typealias Element = LanguageModelSession.ResponseStream<Content>.Snapshot
        /// …/responsestream/snapshot
        public struct Snapshot {
            /// …/responsestream/snapshot/content
            public var content: Content.PartiallyGenerated
            /// …/responsestream/snapshot/rawcontent
            public var rawContent: GeneratedContent
        }
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async throws -> Snapshot? { nil }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
        /// …/responsestream/collect()
        public func collect() async throws -> sending LanguageModelSession.Response<Content> { fatalError("stub") }
    }

    /// …/toolcallerror (Error, LocalizedError, Sendable)
    public struct ToolCallError: Error, LocalizedError, Sendable {
        /// …/toolcallerror/tool
        public var tool: any Tool
        /// …/toolcallerror/underlyingerror
        public var underlyingError: any Error
        /// …/toolcallerror/init(tool:underlyingerror:)
        public init(tool: any Tool, underlyingError: any Error) { self.tool = tool; self.underlyingError = underlyingError }
    }

    /// …/generationerror (Error, LocalizedError, Sendable)
    public enum GenerationError: Error, LocalizedError, Sendable {
        /// …/generationerror/context
        public struct Context: Sendable {
            public let debugDescription: String
        }
        case exceededContextWindowSize(LanguageModelSession.GenerationError.Context)
        case assetsUnavailable(LanguageModelSession.GenerationError.Context)
        case guardrailViolation(LanguageModelSession.GenerationError.Context)
        case unsupportedGuide(LanguageModelSession.GenerationError.Context)
        case unsupportedLanguageOrLocale(LanguageModelSession.GenerationError.Context)
        case decodingFailure(LanguageModelSession.GenerationError.Context)
        case rateLimited(LanguageModelSession.GenerationError.Context)
        case concurrentRequests(LanguageModelSession.GenerationError.Context)
        case refusal(LanguageModelSession.GenerationError.Refusal, LanguageModelSession.GenerationError.Context)
        /// …/generationerror/refusal
        public struct Refusal: Sendable {}
    }
}
