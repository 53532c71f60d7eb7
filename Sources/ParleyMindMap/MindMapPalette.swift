import Foundation

/// The colours of a mind map: one per branch, repeating after eight, with the branch's nodes
/// filled in light tints of it so that dark text on them stays easy to read.
enum MindMapPalette {
    /// An sRGB colour with 8-bit channels.
    struct Color: Sendable, Equatable, Hashable {
        var red: UInt8
        var green: UInt8
        var blue: UInt8

        /// `#RRGGBB`.
        var hex: String {
            let digits = Array("0123456789ABCDEF")
            return "#" + [red, green, blue].map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 15)])" }.joined()
        }

        /// This colour mixed with white: `amount` 0 is white, 1 is the colour itself.
        func tint(_ amount: Double) -> Color {
            func mix(_ channel: UInt8) -> UInt8 {
                UInt8((255 - (255 - Double(channel)) * amount).rounded())
            }
            return Color(red: mix(red), green: mix(green), blue: mix(blue))
        }

        /// The relative luminance of WCAG 2 (0 black, 1 white).
        var luminance: Double {
            func linear(_ channel: UInt8) -> Double {
                let value = Double(channel) / 255
                return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }

        /// The WCAG 2 contrast ratio between two colours, 1 to 21.
        func contrast(with other: Color) -> Double {
            let (light, dark) = luminance > other.luminance ? (luminance, other.luminance) : (other.luminance, luminance)
            return (light + 0.05) / (dark + 0.05)
        }
    }

    /// Branch colours for lines and outlines: distinct hues, each at least 4.5:1 against the
    /// background.
    static let branches: [Color] = [
        Color(red: 0x1D, green: 0x5F, blue: 0xBF),  // blue
        Color(red: 0xC6, green: 0x28, blue: 0x28),  // red
        Color(red: 0x2E, green: 0x7D, blue: 0x32),  // green
        Color(red: 0x7B, green: 0x3F, blue: 0xB0),  // purple
        Color(red: 0xB3, green: 0x50, blue: 0x00),  // orange
        Color(red: 0x00, green: 0x79, blue: 0x6B),  // teal
        Color(red: 0xAD, green: 0x14, blue: 0x57),  // magenta
        Color(red: 0x6D, green: 0x4C, blue: 0x41),  // brown
    ]

    /// The page: a warm off-white, gentler than pure white.
    static let background = Color(red: 0xFF, green: 0xFD, blue: 0xF5)
    /// Text: near-black, which glares less than pure black.
    static let text = Color(red: 0x1A, green: 0x1A, blue: 0x1A)
    /// The central topic's fill and outline.
    static let rootFill = Color(red: 0xFF, green: 0xF0, blue: 0xB3)
    static let rootStroke = Color(red: 0x1A, green: 0x1A, blue: 0x1A)

    /// How much of the branch colour a branch's own box is filled with.
    static let branchTint = 0.28
    /// How much of the branch colour the boxes below a branch are filled with.
    static let childTint = 0.12

    /// The colour of a branch (`nil` is the central topic).
    static func stroke(branch: Int?) -> Color {
        guard let branch else { return rootStroke }
        return branches[branch % branches.count]
    }

    /// The fill of a node's box.
    static func fill(branch: Int?, depth: Int) -> Color {
        guard let branch else { return rootFill }
        return branches[branch % branches.count].tint(depth <= 1 ? branchTint : childTint)
    }
}
