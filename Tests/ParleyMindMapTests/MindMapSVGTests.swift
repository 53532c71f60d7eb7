import Foundation
import Testing
@testable import ParleyMindMap
#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Mind map SVG")
struct MindMapSVGTests {
    /// Parses an SVG document; fails the test if it is not well-formed XML.
    func parse(_ svg: String) throws -> XMLElement {
        let document = try XMLDocument(xmlString: svg, options: [])
        return try #require(document.rootElement())
    }

    @Test("is well-formed XML with an accessible title and description", arguments: SampleMaps.names)
    func accessible(name: String) throws {
        let map = SampleMaps.named(name)
        let svg = MindMapSVG.render(MindMapLayout.make(map), title: map.title, description: nil)
        let root = try parse(svg)
        #expect(root.name == "svg")
        #expect(root.value("role") == "img")
        let title = try #require(root.elements(forName: "title").first)
        let desc = try #require(root.elements(forName: "desc").first)
        #expect(title.stringValue == map.title)
        // aria-labelledby names the title's and description's ids.
        let labelledBy = root.value("aria-labelledby")?.split(separator: " ").map(String.init)
        #expect(
            labelledBy
                == [title.value("id"), desc.value("id")]
                .compactMap { $0 })
        #expect(desc.stringValue?.hasPrefix("Mind map of \(map.title) with ") == true)
    }

    @Test("the description lists the branches")
    func description() throws {
        let map = SampleMaps.uneven
        let root = try parse(MindMapSVG.render(MindMapLayout.make(map), title: map.title, description: nil))
        #expect(
            root.elements(forName: "desc").first?.stringValue
                == "Mind map of Water cycle with 4 branches: Evaporation, Condensation, Precipitation, Collection.")
        #expect(MindMapSVG.defaultDescription(title: "T", branches: ["Only"]) == "Mind map of T with 1 branch: Only.")
        #expect(MindMapSVG.defaultDescription(title: "T", branches: []) == "Mind map of T with no branches.")
        let given = try parse(MindMapSVG.render(MindMapLayout.make(map), title: "Water", description: "Four stages."))
        #expect(given.elements(forName: "desc").first?.stringValue == "Four stages.")
    }

    @Test("one text element per node, one tspan per wrapped line, in the layout's font size")
    func textPerNode() throws {
        let layout = MindMapLayout.make(SampleMaps.revolution)
        let root = try parse(MindMapSVG.render(layout, title: "Revolution", description: nil))
        let texts = root.descendants(named: "text")
        #expect(texts.count == layout.nodes.count)
        for (text, node) in zip(texts, layout.nodes) {
            let spans = text.elements(forName: "tspan")
            #expect(spans.map { $0.stringValue ?? "" } == node.lines)
            #expect(Double(text.value("font-size") ?? "") == node.fontSize)
        }
        #expect(root.descendants(named: "path").count == layout.edges.count)
        let fonts = root.descendants(named: "g").compactMap { $0.value("font-family") }
        #expect(fonts == ["OpenDyslexic, Lexend, Verdana, Arial, sans-serif"])
    }

    @Test("labels and titles with markup characters are escaped and read back unchanged")
    func escaping() throws {
        let label = #"A < B & "C" > 'D'"#
        let map = MindMap(title: "Fish & <Chips>", branches: [.init(label), .init("x\u{1}y")])
        let svg = MindMapSVG.render(MindMapLayout.make(map), title: map.title, description: "Say \"hi\" & <go>")
        #expect(!svg.contains("<Chips>"))
        #expect(svg.contains("Fish &amp; &lt;Chips&gt;"))
        let root = try parse(svg)
        #expect(root.elements(forName: "title").first?.stringValue == "Fish & <Chips>")
        #expect(root.elements(forName: "desc").first?.stringValue == "Say \"hi\" & <go>")
        let texts = root.descendants(named: "text").map { $0.stringValue ?? "" }
        #expect(texts == ["Fish & <Chips>", label, "xy"])  // a control character XML cannot hold is dropped
    }

    @Test("each branch has its own colour, shared by its descendants")
    func colours() throws {
        let layout = MindMapLayout.make(SampleMaps.photosynthesis)
        let root = try parse(MindMapSVG.render(layout, title: "Photosynthesis", description: nil))
        var strokeByNode: [String: String] = [:]
        var fillByNode: [String: String] = [:]
        for group in root.descendants(named: "g") {
            guard let id = group.value("id"), let rect = group.elements(forName: "rect").first else { continue }
            strokeByNode[id] = rect.value("stroke")
            fillByNode[id] = rect.value("fill")
        }
        func stroke(_ node: MindMapLayout.Node) -> String? {
            strokeByNode.first { $0.key.hasSuffix("-node-\(node.id)") }?.value
        }
        func fill(_ node: MindMapLayout.Node) -> String? {
            fillByNode.first { $0.key.hasSuffix("-node-\(node.id)") }?.value
        }
        let branches = layout.nodes.filter { $0.depth == 1 }
        let branchColours = branches.compactMap(stroke)
        #expect(branchColours.count == 5)
        #expect(Set(branchColours).count == 5)
        for node in layout.nodes where node.depth == 2 {
            let parent = layout.nodes[node.parent ?? 0]
            #expect(stroke(node) == stroke(parent))
            #expect(fill(node) != fill(parent))  // lighter than the branch itself
        }
        #expect(!branchColours.contains(stroke(layout.root) ?? ""))
    }

    @Test("the palette keeps text readable and branch colours visible")
    func contrast() {
        let palette = MindMapPalette.self
        for branch in 0..<palette.branches.count {
            for depth in 1...3 {
                #expect(palette.text.contrast(with: palette.fill(branch: branch, depth: depth)) >= 7)
            }
            #expect(palette.stroke(branch: branch).contrast(with: palette.background) >= 4.5)
        }
        #expect(palette.text.contrast(with: palette.rootFill) >= 7)
        #expect(palette.text.contrast(with: palette.background) >= 7)
        #expect(Set(palette.branches).count == palette.branches.count)
        #expect(palette.branches[1].hex == "#C62828")
        #expect(palette.branches[1].tint(0).hex == "#FFFFFF")
    }

    @Test("the same layout gives the same bytes; numbers have one decimal")
    func deterministic() {
        let make = { MindMapSVG.render(SampleMaps.photosynthesis) }
        #expect(make() == make())
        #expect(SVGFormat.number(12.34) == "12.3")
        #expect(SVGFormat.number(12.35) == "12.4")
        #expect(SVGFormat.number(-0.04) == "0.0")
        #expect(SVGFormat.number(-4) == "-4.0")
        #expect(SVGFormat.number(.nan) == "0.0")
    }

    @Test("the page has the layout's size")
    func size() throws {
        let layout = MindMapLayout.make(SampleMaps.flat)
        let root = try parse(MindMapSVG.render(layout, title: "Flat", description: nil))
        #expect(root.value("width") == SVGFormat.number(layout.width))
        #expect(
            root.value("viewBox")
                == "0 0 \(SVGFormat.number(layout.width)) \(SVGFormat.number(layout.height))")
    }
}

extension XMLElement {
    /// An attribute's value. (`attribute(forName:)` finds nothing on Linux when the element is
    /// in a namespace, as every SVG element is.)
    func value(_ name: String) -> String? {
        attributes?.first { $0.name == name }?.stringValue
    }

    /// All elements below this one with a local name, in document order.
    func descendants(named name: String) -> [XMLElement] {
        var found: [XMLElement] = []
        for child in children ?? [] {
            guard let element = child as? XMLElement else { continue }
            if (element.localName ?? element.name) == name { found.append(element) }
            found += element.descendants(named: name)
        }
        return found
    }
}
