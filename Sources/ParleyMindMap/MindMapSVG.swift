/// Draws a ``MindMapLayout`` as an SVG document that is easy to read and accessible.
///
/// - Accessible: the `<svg>` has `role="img"` and is labelled by its `<title>` and `<desc>`;
///   every label is real `<text>` (one `<tspan>` per line), so it can be selected, searched,
///   read aloud and translated.
/// - Readable: large type in a plain sans-serif font (a dyslexia-friendly face first, where
///   installed), slightly wider letter spacing, near-black text on light fills, an off-white page,
///   rounded boxes, one colour per branch, and the central topic in bold.
/// - Deterministic: the same layout gives the same bytes (numbers have one decimal).
public enum MindMapSVG {
    /// The font families tried in order: OpenDyslexic and Lexend were designed for readers with
    /// dyslexia; Verdana and Arial are plain, wide sans-serif faces found almost everywhere.
    public static let fontFamily = "OpenDyslexic, Lexend, Verdana, Arial, sans-serif"

    /// Renders a layout.
    ///
    /// - Parameters:
    ///   - layout: The positioned map, from ``MindMapLayout/make(_:options:)``.
    ///   - title: The accessible name of the picture, usually the map's title.
    ///   - description: The accessible description; `nil` gives "Mind map of TITLE with N
    ///     branches: A, B, C."
    /// - Returns: A complete SVG document, UTF-8 text starting with an XML declaration.
    public static func render(_ layout: MindMapLayout, title: String, description: String? = nil) -> String {
        let id = "mindmap-" + SVGFormat.shortHash(title + "\u{0}" + layout.nodes.map(\.label).joined(separator: "\u{0}"))
        let width = SVGFormat.number(layout.width), height = SVGFormat.number(layout.height)
        let summary = description ?? defaultDescription(title: title, branches: layout.branchLabels)

        var svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(width)\" height=\"\(height)\""
        svg += " viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\">\n"
        svg += "  <title id=\"\(id)-title\">\(SVGFormat.escape(title))</title>\n"
        svg += "  <desc id=\"\(id)-desc\">\(SVGFormat.escape(summary))</desc>\n"
        svg += "  <rect width=\"\(width)\" height=\"\(height)\" fill=\"\(MindMapPalette.background.hex)\"/>\n"

        // Edges first, so that boxes cover their ends.
        svg += "  <g class=\"edges\" fill=\"none\" stroke-linecap=\"round\">\n"
        for edge in layout.edges {
            svg += "    " + edgePath(edge, layout: layout) + "\n"
        }
        svg += "  </g>\n"

        svg += "  <g class=\"nodes\" font-family=\"\(fontFamily)\" text-anchor=\"middle\""
        svg += " fill=\"\(MindMapPalette.text.hex)\">\n"
        for node in layout.nodes {
            svg += nodeGroup(node, layout: layout, id: id)
        }
        svg += "  </g>\n"
        svg += "</svg>\n"
        return svg
    }

    /// Lays a map out with `options` and renders it, titled with the map's title.
    public static func render(_ map: MindMap, options: MindMapLayout.Options = .init()) -> String {
        render(MindMapLayout.make(map, options: options), title: map.title)
    }

    /// "Mind map of Photosynthesis with 3 branches: Light, Water, Carbon dioxide."
    static func defaultDescription(title: String, branches: [String]) -> String {
        let labels = branches.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        switch labels.count {
        case 0: return "Mind map of \(title) with no branches."
        case 1: return "Mind map of \(title) with 1 branch: \(labels[0])."
        default: return "Mind map of \(title) with \(labels.count) branches: \(labels.joined(separator: ", "))."
        }
    }

    /// The edge's curve, in its branch's colour; edges from the centre are thicker.
    private static func edgePath(_ edge: MindMapLayout.Edge, layout: MindMapLayout) -> String {
        let parent = layout.nodes[edge.from], child = layout.nodes[edge.to]
        let width = parent.isRoot ? 5.0 : 3.0
        let n = SVGFormat.number
        return "<path d=\"M \(n(parent.x)) \(n(parent.y)) Q \(n(edge.controlX)) \(n(edge.controlY)) \(n(child.x)) \(n(child.y))\""
            + " stroke=\"\(MindMapPalette.stroke(branch: child.branch).hex)\" stroke-width=\(quoted(width))/>"
    }

    private static func nodeGroup(_ node: MindMapLayout.Node, layout: MindMapLayout, id: String) -> String {
        let n = SVGFormat.number
        let kind = node.isRoot ? "root" : "branch-\(node.branch ?? 0) depth-\(node.depth)"
        let strokeWidth = node.isRoot ? 4.0 : node.depth == 1 ? 3.0 : 2.0
        let radius = min(node.height / 2, node.fontSize * 0.6)
        var group = "    <g class=\"node \(kind)\" id=\"\(id)-node-\(node.id)\">\n"
        group += "      <rect x=\(quoted(node.minX)) y=\(quoted(node.minY)) width=\(quoted(node.width))"
        group += " height=\(quoted(node.height)) rx=\(quoted(radius))"
        group += " fill=\"\(MindMapPalette.fill(branch: node.branch, depth: node.depth).hex)\""
        group += " stroke=\"\(MindMapPalette.stroke(branch: node.branch).hex)\" stroke-width=\(quoted(strokeWidth))/>\n"

        group += "      <text font-size=\(quoted(node.fontSize))"
        if node.isRoot { group += " font-weight=\"bold\"" }
        group += " letter-spacing=\(quoted(node.fontSize * layout.letterSpacing))>"
        // Baselines spaced by the line height, the block centred on the box; a line's visual
        // middle sits about 0.35 em above its baseline.
        let step = layout.lineHeight * node.fontSize
        let first = node.y - step * Double(node.lines.count - 1) / 2 + 0.35 * node.fontSize
        for (index, line) in node.lines.enumerated() {
            group += "<tspan x=\"\(n(node.x))\" y=\"\(n(first + step * Double(index)))\">\(SVGFormat.escape(line))</tspan>"
        }
        group += "</text>\n"
        group += "    </g>\n"
        return group
    }

    private static func quoted(_ value: Double) -> String {
        "\"" + SVGFormat.number(value) + "\""
    }
}
