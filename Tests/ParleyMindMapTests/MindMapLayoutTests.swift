import Testing
@testable import ParleyMindMap

@Suite("Mind map layout")
struct MindMapLayoutTests {
    static let seeds: [UInt64] = [0, 1, 42, 0xDEAD_BEEF, .max]

    @Test("no two boxes overlap, and every pair keeps the spacing", arguments: SampleMaps.names, seeds)
    func noOverlap(name: String, seed: UInt64) {
        let layout = MindMapLayout.make(SampleMaps.named(name), options: .init(seed: seed))
        for (index, a) in layout.nodes.enumerated() {
            for b in layout.nodes[(index + 1)...] {
                let apartX = abs(a.x - b.x) - (a.width + b.width) / 2
                let apartY = abs(a.y - b.y) - (a.height + b.height) / 2
                // Apart on at least one axis by the spacing (less a rounding hair).
                #expect(
                    max(apartX, apartY) >= layout.spacing - 1e-6,
                    "\(name), seed \(seed): '\(a.label)' and '\(b.label)' are too close")
            }
        }
    }

    @Test("no overlaps on random maps of up to about 45 ideas, with labels of every length")
    func randomMaps() {
        var random = SplitMix64(seed: 2024)
        let words = [
            "light", "water", "energy", "the", "carbon", "dioxide", "plants", "of", "glucose", "photosynthesis",
            "oxygen", "and", "chlorophyll", "leaves", "roots", "a", "process", "important", "sun", "cells",
        ]
        func label(_ most: UInt64) -> String {
            (0...(random.next() % most)).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        }
        for _ in 0..<20 {
            let map = MindMap(
                title: label(5),
                branches: (0..<(2 + random.next() % 7)).map { _ in
                    MindMap.Node(
                        label(4),
                        children: (0..<(random.next() % 6)).map { _ in
                            MindMap.Node(label(7), children: random.next() % 4 == 0 ? [MindMap.Node(label(3))] : [])
                        })
                })
            let layout = MindMapLayout.make(map, options: .init(seed: random.next()))
            #expect(Self.closestGap(layout) >= layout.spacing - 1e-6, "\(map)")
        }
    }

    @Test("overlap removal clears even boxes piled on one spot")
    func pileUp() {
        let pile = (0..<12).map { Body(x: $0 == 0 ? 0 : 5, y: 0, halfWidth: 60, halfHeight: 20) }
        for sweeps in [0, 1, 200] {
            var bodies = pile
            MindMapLayout.removeOverlaps(&bodies, margin: 10, maxSweeps: sweeps)
            #expect(bodies[0].x == 0 && bodies[0].y == 0)  // the central topic stays put
            for i in bodies.indices {
                for j in bodies.indices where j > i {
                    let apartX = abs(bodies[i].x - bodies[j].x) - 120, apartY = abs(bodies[i].y - bodies[j].y) - 40
                    #expect(max(apartX, apartY) >= 10 - 1e-6, "sweeps \(sweeps): \(i) and \(j)")
                }
            }
        }
    }

    /// The smallest distance between two boxes, on the axis where they are furthest apart.
    static func closestGap(_ layout: MindMapLayout) -> Double {
        var closest = Double.infinity
        for (index, a) in layout.nodes.enumerated() {
            for b in layout.nodes[(index + 1)...] {
                let apartX = abs(a.x - b.x) - (a.width + b.width) / 2
                let apartY = abs(a.y - b.y) - (a.height + b.height) / 2
                closest = min(closest, max(apartX, apartY))
            }
        }
        return closest
    }

    @Test("every node reaches the central topic through the edges", arguments: SampleMaps.names)
    func connected(name: String) {
        let map = SampleMaps.named(name)
        let layout = MindMapLayout.make(map)
        #expect(layout.nodes.count == map.nodeCount)
        #expect(layout.edges.count == map.nodeCount - 1)
        var neighbours = Array(repeating: [Int](), count: layout.nodes.count)
        for edge in layout.edges {
            neighbours[edge.from].append(edge.to)
            neighbours[edge.to].append(edge.from)
        }
        var reached: Set<Int> = [layout.root.id]
        var queue = [layout.root.id]
        while let next = queue.popLast() {
            for other in neighbours[next] where reached.insert(other).inserted {
                queue.append(other)
            }
        }
        #expect(reached.count == layout.nodes.count)
        // Edges go from parent to child, one level down, within a branch.
        for edge in layout.edges {
            let parent = layout.nodes[edge.from], child = layout.nodes[edge.to]
            #expect(child.parent == parent.id)
            #expect(child.depth == parent.depth + 1)
            if !parent.isRoot { #expect(child.branch == parent.branch) }
        }
    }

    @Test("the same map and seed give bit-identical layouts")
    func deterministic() {
        for (_, map) in SampleMaps.all {
            let first = MindMapLayout.make(map, options: .init(seed: 7))
            let second = MindMapLayout.make(map, options: .init(seed: 7))
            #expect(first == second)
            let bits = { (layout: MindMapLayout) in layout.nodes.flatMap { [$0.x.bitPattern, $0.y.bitPattern] } }
            #expect(bits(first) == bits(second))
        }
    }

    @Test("another seed gives other coordinates")
    func otherSeed() {
        let map = SampleMaps.photosynthesis
        let a = MindMapLayout.make(map, options: .init(seed: 1))
        let b = MindMapLayout.make(map, options: .init(seed: 2))
        #expect(a.nodes.map(\.x) != b.nodes.map(\.x))
        #expect(a.nodes.map(\.label) == b.nodes.map(\.label))
    }

    @Test("every box lies inside the page, with the padding around", arguments: SampleMaps.names)
    func insideCanvas(name: String) {
        let options = MindMapLayout.Options()
        let layout = MindMapLayout.make(SampleMaps.named(name), options: options)
        let tolerance = 1e-6
        for node in layout.nodes {
            #expect(node.minX >= options.padding - tolerance)
            #expect(node.minY >= options.padding - tolerance)
            #expect(node.maxX <= layout.width - options.padding + tolerance)
            #expect(node.maxY <= layout.height - options.padding + tolerance)
        }
        // The page is tight: some box touches each padded edge.
        #expect(abs((layout.nodes.map(\.minX).min() ?? 0) - options.padding) < tolerance)
        #expect(abs((layout.nodes.map(\.maxY).max() ?? 0) - (layout.height - options.padding)) < tolerance)
    }

    @Test("the central topic is first, at depth 0, with a bigger font; ids are depth-first")
    func structure() {
        let layout = MindMapLayout.make(SampleMaps.uneven, options: .init(fontSize: 24))
        #expect(layout.root.label == "Water cycle")
        #expect(layout.root.isRoot && layout.root.branch == nil && layout.root.depth == 0)
        #expect(layout.root.fontSize > 24)
        #expect(layout.nodes.dropFirst().allSatisfy { $0.fontSize == 24 })
        #expect(layout.nodes.map(\.id) == Array(layout.nodes.indices))
        #expect(
            layout.nodes.map(\.label).prefix(7) == [
                "Water cycle", "Evaporation", "The sun heats water", "Oceans", "Lakes", "Rivers", "Water becomes vapour",
            ])
        #expect(layout.nodes.first { $0.label == "Hail" }?.branch == 2)
        #expect(layout.branchLabels == ["Evaporation", "Condensation", "Precipitation", "Collection"])
    }

    @Test("the default type is large enough to read easily")
    func readableDefaults() {
        let options = MindMapLayout.Options()
        #expect(options.fontSize >= 20)
        #expect(options.lineHeight >= 1.4)
    }

    @Test("boxes hold their lines: wider than the estimated text, taller for more lines")
    func boxesFitText() {
        let layout = MindMapLayout.make(SampleMaps.revolution)
        for node in layout.nodes {
            let text = node.lines.map { LabelText.width(of: $0) + layout.letterSpacing * Double($0.count) }.max() ?? 0
            #expect(node.width >= text * node.fontSize + node.fontSize)
            #expect(node.height >= Double(node.lines.count) * layout.lineHeight * node.fontSize)
        }
        let detail = layout.nodes[2]
        #expect(detail.lines.count >= 3)
        #expect(detail.lines.joined(separator: " ") == detail.label)
    }
}

@Suite("Wrapping labels")
struct LabelTextTests {
    @Test("short labels stay on one line", arguments: ["Leaves", "Water from the roots", ""])
    func short(label: String) {
        #expect(LabelText.wrap(label, maxCharacters: 20) == [label])
    }

    @Test("long labels wrap between words into balanced lines of about 18 characters")
    func wraps() {
        let lines = LabelText.wrap("Chlorophyll makes leaves green and absorbs red and blue light", maxCharacters: 18)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.count <= 22 })
        #expect(lines.joined(separator: " ") == "Chlorophyll makes leaves green and absorbs red and blue light")
        // Balanced: not one long line and a short one.
        #expect(LabelText.wrap("Food for plants and animals", maxCharacters: 18) == ["Food for plants", "and animals"])
    }

    @Test("a line may run a little over when that saves a line")
    func slack() {
        #expect(LabelText.wrap("The light-dependent reactions", maxCharacters: 18) == ["The light-dependent", "reactions"])
    }

    @Test("long words break after hyphens, and very long ones anywhere")
    func longWords() {
        #expect(
            LabelText.wrap("chlorophyll-containing-organelles", maxCharacters: 14)
                == ["chlorophyll-", "containing-", "organelles"])
        #expect(
            LabelText.wrap("chlorophyll-containing-organelles", maxCharacters: 18)
                == ["chlorophyll-", "containing-organelles"])
        let word = String(repeating: "a", count: 50)
        let lines = LabelText.wrap(word, maxCharacters: 18)
        #expect(lines.joined() == word)
        #expect(lines.allSatisfy { $0.count <= 18 })
        // Whitespace of any kind separates words.
        #expect(LabelText.wrap("one\ntwo\tthree", maxCharacters: 18) == ["one two three"])
    }

    @Test("wide letters are estimated wider than narrow ones")
    func widths() {
        #expect(LabelText.width(of: "mmmm") > LabelText.width(of: "iiii"))
        #expect(LabelText.width(of: "MMMM") > LabelText.width(of: "nnnn"))
        #expect(LabelText.width(of: "漢字") >= 2)
        #expect(LabelText.width(of: "") == 0)
    }
}
