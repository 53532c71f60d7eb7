import ParleyMindMap

/// Maps of the shapes a language model produces, from tiny to about forty ideas.
enum SampleMaps {
    static let photosynthesis = MindMap(
        title: "Photosynthesis",
        branches: [
            .init("What it needs", children: [.init("Sunlight"), .init("Water from the roots"), .init("Carbon dioxide from the air")]),
            .init("Where it happens", children: [.init("Leaves"), .init("Chloroplasts"), .init("Chlorophyll makes leaves green")]),
            .init(
                "Light reactions",
                children: [
                    .init("Split water"), .init("Release oxygen"), .init("Store energy in ATP"), .init("Happen in the thylakoids"),
                ]),
            .init("Calvin cycle", children: [.init("Uses carbon dioxide"), .init("Makes glucose")]),
            .init("Why it matters", children: [.init("Food for plants and animals"), .init("Oxygen we breathe"), .init("Removes carbon dioxide")]),
        ])

    /// 41 nodes, every label long enough to wrap onto two or three lines.
    static let revolution = MindMap(
        title: "The causes and consequences of the French Revolution",
        branches: (0..<8).map { branch in
            .init(
                "Branch \(branch): a main idea with a long label",
                children: (0..<4).map { child in
                    .init("Detail \(child) of branch \(branch), which needs several lines to read")
                })
        })

    /// Three levels, uneven: one branch has grandchildren, others none.
    static let uneven = MindMap(
        title: "Water cycle",
        branches: [
            .init(
                "Evaporation",
                children: [
                    .init("The sun heats water", children: [.init("Oceans"), .init("Lakes"), .init("Rivers")]),
                    .init("Water becomes vapour"),
                ]),
            .init("Condensation"),
            .init("Precipitation", children: [.init("Rain"), .init("Snow"), .init("Hail"), .init("Sleet")]),
            .init("Collection"),
        ])

    /// Twelve branches and nothing below them.
    static let flat = MindMap(title: "Flat", branches: (0..<12).map { .init("Item \($0)") })

    /// One long chain.
    static let chain = MindMap(
        title: "Start",
        branches: [
            .init("One", children: [.init("Two", children: [.init("Three", children: [.init("Four", children: [.init("Five")])])])])
        ])

    /// Labels made of very long words, odd characters and empty text.
    static let awkward = MindMap(
        title: "Pneumonoultramicroscopicsilicovolcanoconiosis",
        branches: [
            .init("chlorophyll-containing-organelles-everywhere"),
            .init(""),
            .init("A < B & \"C\" > 'D'"),
            .init("日本語のラベル"),
            .init("x"),
        ])

    static let onlyTitle = MindMap(title: "Alone")

    static let all: [(String, MindMap)] = [
        ("photosynthesis", photosynthesis), ("revolution", revolution), ("uneven", uneven), ("flat", flat),
        ("chain", chain), ("awkward", awkward), ("only a title", onlyTitle),
    ]

    static var names: [String] { all.map(\.0) }

    static func named(_ name: String) -> MindMap {
        all.first { $0.0 == name }?.1 ?? onlyTitle
    }
}
