import ParleyCore
import ParleyMindMap

/// People, places, organizations and concepts named in a text (ProjectOne's entities).
public struct Entities: StructuredOutput, Equatable {
    public var people: [String]
    public var places: [String]
    public var organizations: [String]
    public var concepts: [String]

    public init(people: [String] = [], places: [String] = [], organizations: [String] = [], concepts: [String] = []) {
        self.people = people
        self.places = places
        self.organizations = organizations
        self.concepts = concepts
    }

    public static let schema: JSONSchema = {
        let names = { (what: String) in JSONSchema.array(of: .string(minLength: 1, maxLength: 60), maxItems: 12, description: what) }
        return .object([
            .init("people", names("Names of persons, as written in the text.")),
            .init("places", names("Cities, countries, regions, landmarks.")),
            .init("organizations", names("Companies, institutions, teams, agencies.")),
            .init("concepts", names("Key ideas or topics, a few words each.")),
        ])
    }()
}

/// A short title, the key points and a few sentences.
public struct Summary: StructuredOutput, Equatable {
    public var title: String
    public var points: [String]
    public var summary: String

    public init(title: String, points: [String], summary: String) {
        self.title = title
        self.points = points
        self.summary = summary
    }

    public static let schema = JSONSchema.object([
        .init("title", .string(minLength: 1, maxLength: 80, description: "A short title.")),
        .init("points", .array(of: .string(minLength: 1, maxLength: 160), minItems: 1, maxItems: 5, description: "The key points, one sentence each.")),
        .init("summary", .string(minLength: 1, maxLength: 700, description: "Two or three sentences.")),
    ])
}

/// A task as small steps, each with the minutes it takes (for limited working memory).
public struct TaskBreakdown: StructuredOutput, Equatable {
    /// One step.
    public struct Step: Codable, Sendable, Equatable {
        public var action: String
        public var minutes: Int

        public init(action: String, minutes: Int) {
            self.action = action
            self.minutes = minutes
        }
    }

    public var goal: String
    public var steps: [Step]

    public init(goal: String, steps: [Step]) {
        self.goal = goal
        self.steps = steps
    }

    /// The minutes of all steps.
    public var totalMinutes: Int { steps.reduce(0) { $0 + $1.minutes } }

    public static let schema = JSONSchema.object([
        .init("goal", .string(minLength: 1, maxLength: 100, description: "The task, in a few words.")),
        .init(
            "steps",
            .array(
                of: .object([
                    .init("action", .string(minLength: 3, maxLength: 100, description: "One concrete action, in plain words.")),
                    .init("minutes", .integer(minimum: 1, maximum: 30, description: "How long it takes.")),
                ]), minItems: 3, maxItems: 7)),
    ])
}

/// A text rewritten to read more easily.
public struct SimplifiedText: StructuredOutput, Equatable {
    public var text: String

    public init(text: String) { self.text = text }

    public static let schema = JSONSchema.object([
        .init("text", .string(minLength: 1, description: "The rewritten text: short sentences, common words."))
    ])
}

/// Recall's resolve: what the request wants, the answer, and the candidates it considered.
public struct Resolution: StructuredOutput, Equatable {
    /// One candidate match.
    public struct Candidate: Codable, Sendable, Equatable {
        public var title: String
        public var detail: String
        public var confidence: Double

        public init(title: String, detail: String, confidence: Double) {
            self.title = title
            self.detail = detail
            self.confidence = confidence
        }
    }

    /// The kinds of request.
    public static let intents = ["question", "lookup", "reminder", "action", "chitchat", "other"]

    public var intent: String
    public var answer: String
    public var candidates: [Candidate]

    public init(intent: String, answer: String, candidates: [Candidate]) {
        self.intent = intent
        self.answer = answer
        self.candidates = candidates
    }

    public static let schema = JSONSchema.object([
        .init("intent", .oneOf(intents, description: "What the user wants.")),
        .init("answer", .string(minLength: 1, maxLength: 400, description: "The answer, from the context where it applies.")),
        .init(
            "candidates",
            .array(
                of: .object([
                    .init("title", .string(minLength: 1, maxLength: 80)),
                    .init("detail", .string(maxLength: 200)),
                    .init("confidence", .number(minimum: 0, maximum: 1)),
                ]), maxItems: 5, description: "Context items that match, best first.")),
    ])
}

/// A mind map as a model writes it: a topic, its branches, their ideas, and details.
public struct MindMapOutline: StructuredOutput, Equatable {
    /// A main branch.
    public struct Branch: Codable, Sendable, Equatable {
        public var label: String
        public var ideas: [Idea]

        public init(label: String, ideas: [Idea] = []) {
            self.label = label
            self.ideas = ideas
        }
    }

    /// An idea on a branch, with optional details.
    public struct Idea: Codable, Sendable, Equatable {
        public var label: String
        public var details: [String]

        public init(label: String, details: [String] = []) {
            self.label = label
            self.details = details
        }
    }

    public var topic: String
    public var branches: [Branch]

    public init(topic: String, branches: [Branch]) {
        self.topic = topic
        self.branches = branches
    }

    static let label = JSONSchema.string(minLength: 1, maxLength: 40, description: "One to four words.")

    public static let schema = JSONSchema.object([
        .init("topic", label),
        .init(
            "branches",
            .array(
                of: .object([
                    .init("label", label),
                    .init(
                        "ideas",
                        .array(
                            of: .object([
                                .init("label", label),
                                .init("details", .array(of: label, maxItems: 3)),
                            ]), maxItems: 4)),
                ]), minItems: 2, maxItems: 6)),
    ])
}

extension MindMapOutline {
    /// The outline as a mind map to lay out and draw: the topic in the centre, branches,
    /// their ideas, and the ideas' details.
    public var mindMap: MindMap {
        MindMap(
            title: topic,
            branches: branches.map { branch in
                MindMap.Node(
                    branch.label,
                    children: branch.ideas.map { idea in
                        MindMap.Node(idea.label, children: idea.details.map { MindMap.Node($0) })
                    })
            })
    }
}
