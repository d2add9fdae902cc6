import Foundation

/// Reads a FlatBuffers buffer without trusting it: every offset is checked against the buffer before it is followed
/// and every count against the bytes that could hold it, so a damaged file is an `ORTFormatError`, never a read past
/// the end nor an allocation its size does not justify.
///
/// The layout (flatbuffers.dev, "Internals"), little-endian: the buffer starts with a `u32` offset to the root table;
/// a table starts with an `i32` back to its vtable (`u16` vtable size, `u16` table size, then a `u16` offset per
/// field, 0 when absent); a field of a table, string or vector type holds a `u32` offset from the field to it; a
/// string or vector starts with its `u32` count.
struct FlatBufferReader {
    /// A table: where it starts and where its vtable is.
    struct Table {
        let position: Int
        let vtable: Int
        let vtableSize: Int
    }

    let data: Data

    /// `data` rebased to start at index 0.
    init(_ data: Data) {
        self.data = data.startIndex == 0 ? data : Data(data)
    }

    /// The root table.
    func root() throws -> Table { try table(at: indirect(0)) }

    /// The 4 bytes after the root offset: a file's identifier (`ORTM` for ONNX Runtime's models).
    func fileIdentifier() throws -> String {
        try check(4, 4)
        return String(decoding: data[4..<8], as: UTF8.self)
    }

    // MARK: Fields

    /// A scalar field, `fallback` when absent (FlatBuffers leaves out fields equal to their default).
    func scalar<T: FixedWidthInteger>(_ table: Table, _ field: Int, default fallback: T = 0) throws -> T {
        guard let position = try fieldPosition(table, field) else { return fallback }
        return try load(T.self, at: position)
    }

    /// A table field, nil when absent.
    func table(_ table: Table, _ field: Int) throws -> Table? {
        guard let position = try fieldPosition(table, field) else { return nil }
        return try self.table(at: indirect(position))
    }

    /// A string field, nil when absent; bytes that are not UTF-8 are replaced (names only ever compare).
    func string(_ table: Table, _ field: Int) throws -> String? {
        guard let position = try fieldPosition(table, field) else { return nil }
        return try string(at: indirect(position))
    }

    /// A vector field's element count and first element's position, nil when absent; `width` bytes an element.
    func vector(_ table: Table, _ field: Int, width: Int) throws -> (count: Int, start: Int)? {
        guard let position = try fieldPosition(table, field) else { return nil }
        let start = try indirect(position)
        let count = Int(try load(UInt32.self, at: start))
        guard count <= (data.count - start - 4) / width else {
            throw ORTFormatError.outOfBounds("a vector of \(count) elements of \(width) bytes at \(start)")
        }
        return (count, start + 4)
    }

    /// A vector of tables, empty when absent.
    func tables(_ table: Table, _ field: Int) throws -> [Table] {
        guard let (count, start) = try vector(table, field, width: 4) else { return [] }
        return try (0..<count).map { try self.table(at: indirect(start + 4 * $0)) }
    }

    /// A vector of strings, empty when absent.
    func strings(_ table: Table, _ field: Int) throws -> [String] {
        guard let (count, start) = try vector(table, field, width: 4) else { return [] }
        return try (0..<count).map { try string(at: indirect(start + 4 * $0)) }
    }

    /// A vector of `T`, empty when absent.
    func scalars<T: FixedWidthInteger>(_ table: Table, _ field: Int, as type: T.Type) throws -> [T] {
        guard let (count, start) = try vector(table, field, width: MemoryLayout<T>.size) else { return [] }
        return try (0..<count).map { try load(T.self, at: start + MemoryLayout<T>.size * $0) }
    }

    /// The bytes of a `[ubyte]` field as a range of `data`, empty when absent.
    func byteRange(_ table: Table, _ field: Int) throws -> Range<Int> {
        guard let (count, start) = try vector(table, field, width: 1) else { return 0..<0 }
        return start..<(start + count)
    }

    // MARK: Positions

    private func table(at position: Int) throws -> Table {
        let back = Int(try load(Int32.self, at: position))
        let vtable = position - back
        let size = Int(try load(UInt16.self, at: vtable))
        guard size >= 4, size % 2 == 0 else { throw ORTFormatError.outOfBounds("a table's vtable of \(size) bytes") }
        try check(vtable, size)
        return Table(position: position, vtable: vtable, vtableSize: size)
    }

    private func fieldPosition(_ table: Table, _ field: Int) throws -> Int? {
        let entry = 4 + 2 * field
        guard entry + 2 <= table.vtableSize else { return nil }
        let offset = Int(try load(UInt16.self, at: table.vtable + entry))
        return offset == 0 ? nil : table.position + offset
    }

    /// The position a `u32` offset at `position` points to.
    private func indirect(_ position: Int) throws -> Int {
        let target = position + Int(try load(UInt32.self, at: position))
        try check(target, 0)
        return target
    }

    private func string(at position: Int) throws -> String {
        let count = Int(try load(UInt32.self, at: position))
        try check(position + 4, count)
        return String(decoding: data[(position + 4)..<(position + 4 + count)], as: UTF8.self)
    }

    private func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int) throws -> T {
        try check(position, MemoryLayout<T>.size)
        return data.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
    }

    private func check(_ position: Int, _ count: Int) throws {
        guard position >= 0, count >= 0, position <= data.count, count <= data.count - position else {
            throw ORTFormatError.outOfBounds("\(count) bytes at \(position) of \(data.count)")
        }
    }
}
