/// A plain-text table with columns padded to their widest cell (first column left-aligned, others right).
struct TextTable {
    private let header: [String]
    private var rows: [[String]?] = []  // nil: a separator line

    init(_ header: [String]) { self.header = header }

    mutating func add(_ row: [String]) { rows.append(row) }
    mutating func separator() { rows.append(nil) }

    func render() -> String {
        var widths = header.map(\.count)
        for row in rows.compactMap({ $0 }) {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index < 3 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))
        var lines = [line(header), rule]
        for row in rows {
            if let row { lines.append(line(row)) } else if lines.last != rule { lines.append(rule) }
        }
        return lines.joined(separator: "\n")
    }
}
