import Foundation
import Testing
@testable import ParleyMindMap

@Suite("Mind map PNG")
struct MindMapPNGTests {
    func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-mindmap-test-\(UUID().uuidString)-\(name)")
    }

    @Test("converts the SVG to a PNG", .enabled(if: MindMapPNG.isAvailable))
    func converts() async throws {
        let url = temporaryFile("map.png")
        defer { try? FileManager.default.removeItem(at: url) }
        try await MindMapPNG.convert(svg: MindMapSVG.render(SampleMaps.photosynthesis), to: url, scale: 0.5)
        let data = try Data(contentsOf: url)
        #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // The IHDR width: half the SVG's, rounded either way.
        let width = data.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let layoutWidth = MindMapLayout.make(SampleMaps.photosynthesis).width
        #expect(abs(Double(width) - layoutWidth / 2) <= 1)
    }

    @Test("a broken SVG is a conversion error with rsvg-convert's message", .enabled(if: MindMapPNG.isAvailable))
    func brokenSVG() async {
        let url = temporaryFile("broken.png")
        defer { try? FileManager.default.removeItem(at: url) }
        await #expect {
            try await MindMapPNG.convert(svg: "<svg", to: url)
        } throws: { error in
            guard case .conversionFailed(let status, _) = error as? MindMapPNGError else { return false }
            return status != 0
        }
    }

    @Test("without rsvg-convert on the PATH, the error says what to install")
    func notInstalled() {
        #expect(MindMapPNG.converterPath(environment: ["PATH": "/nonexistent:/also/missing"]) == nil)
        #expect(
            MindMapPNGError.converterNotInstalled.description
                == "rsvg-convert is not installed; install librsvg2-bin (apt-get install librsvg2-bin)")
    }

    @Test("a scale that is not a positive number is refused before anything runs", arguments: [0, -1, Double.nan, .infinity])
    func badScale(scale: Double) async {
        await #expect(throws: MindMapPNGError.self) {
            try await MindMapPNG.convert(svg: "<svg/>", to: URL(fileURLWithPath: "/nonexistent/x.png"), scale: scale)
        }
    }
}
