import Foundation
import Testing
import ParleyMindMap

@Suite("Mind map values and their JSON")
struct MindMapTests {
    @Test("decodes what a language model writes; missing children and branches are empty")
    func decoding() throws {
        let json = """
            {"title": "Photosynthesis",
             "branches": [
                {"label": "Needs", "children": [{"label": "Light"}, {"label": "Water", "children": []}]},
                {"label": "Makes"}
             ]}
            """
        let map = try JSONDecoder().decode(MindMap.self, from: Data(json.utf8))
        #expect(
            map
                == MindMap(
                    title: "Photosynthesis",
                    branches: [
                        .init("Needs", children: [.init("Light"), .init("Water")]),
                        .init("Makes"),
                    ]))
        #expect(map.branches[1].children.isEmpty)

        let bare = try JSONDecoder().decode(MindMap.self, from: Data(#"{"title": "Alone"}"#.utf8))
        #expect(bare.branches.isEmpty)
        #expect(bare.nodeCount == 1)
        #expect(bare.depth == 0)
    }

    @Test("a node without a label or a map without a title is an error")
    func decodingErrors() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MindMap.self, from: Data(#"{"branches": []}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MindMap.self, from: Data(#"{"title": "T", "branches": [{"children": []}]}"#.utf8))
        }
    }

    @Test("encodes with the keys title, branches, label and children, and decodes back")
    func roundTrip() throws {
        let map = SampleMaps.uneven
        let data = try JSONEncoder().encode(map)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["title", "branches"])
        let firstBranch = try #require((object["branches"] as? [[String: Any]])?.first)
        #expect(Set(firstBranch.keys) == ["label", "children"])
        #expect(try JSONDecoder().decode(MindMap.self, from: data) == map)
    }

    @Test("node count includes the title; depth counts levels below it")
    func counts() {
        #expect(SampleMaps.photosynthesis.nodeCount == 21)
        #expect(SampleMaps.photosynthesis.depth == 2)
        #expect(SampleMaps.revolution.nodeCount == 41)
        #expect(SampleMaps.uneven.nodeCount == 14)
        #expect(SampleMaps.uneven.depth == 3)
        #expect(SampleMaps.flat.depth == 1)
        #expect(SampleMaps.chain.depth == 5)
        #expect(MindMap.Node("leaf").depth == 0)
    }
}
