import Foundation

/// A value of Python's pickle format, as far as a PyTorch state dictionary needs: nothing is ever executed. A call
/// to a global (`REDUCE`, `NEWOBJ`) becomes `.call` with its callable and arguments, for the reader of the
/// checkpoint to interpret the few it knows (`collections.OrderedDict`, `torch._utils._rebuild_tensor_v2`); every
/// other object stays an opaque value.
indirect enum PickleValue {
    case none
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case tuple([PickleValue])
    case list(PickleList)
    case dict(PickleDictionary)
    /// `module.name`, as `GLOBAL` names it.
    case global(module: String, name: String)
    case call(PickleValue, arguments: [PickleValue])
    /// A persistent reference (`BINPERSID`): in PyTorch's format, a storage.
    case persistent(PickleValue)

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var integer: Int64? { if case .int(let value) = self { value } else { nil } }
    var elements: [PickleValue]? {
        switch self {
        case .tuple(let values): values
        case .list(let list): list.values
        default: nil
        }
    }
}

/// A list being built (`APPEND`, `APPENDS` mutate it wherever it is referenced from the memo).
final class PickleList {
    var values: [PickleValue] = []
}

/// A dictionary being built, its keys in insertion order (`SETITEM`, `SETITEMS` mutate it wherever it is referenced).
final class PickleDictionary {
    private(set) var keys: [PickleValue] = []
    private(set) var values: [PickleValue] = []
    private var indexOfString: [String: Int] = [:]

    func set(_ key: PickleValue, _ value: PickleValue) {
        if let name = key.string, let index = indexOfString[name] {
            values[index] = value
            return
        }
        if let name = key.string { indexOfString[name] = keys.count }
        keys.append(key)
        values.append(value)
    }

    subscript(name: String) -> PickleValue? { indexOfString[name].map { values[$0] } }

    /// The entries whose keys are strings, in order.
    var namedEntries: [(String, PickleValue)] {
        zip(keys, values).compactMap { key, value in key.string.map { ($0, value) } }
    }
}

/// Reads the pickle subset `torch.save` writes (protocols 2 to 5, no code run, no class looked up). Bounded: every
/// opcode consumes input, the stack and memo cannot outgrow it, and any inconsistency is `CheckpointError.corrupt`.
struct PickleReader {
    private let bytes: [UInt8]
    private var position = 0
    private var stack: [PickleValue] = []
    private var marks: [Int] = []
    private var memo: [UInt32: PickleValue] = [:]
    private let file: String

    /// The memo and the stack hold at most this many values: far above any state dictionary.
    static let valueLimit = 1 << 22

    private init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    /// The value `bytes` pickles; `file` names it in errors.
    static func read(_ bytes: [UInt8], file: String) throws -> PickleValue {
        var reader = PickleReader(bytes: bytes, file: file)
        return try reader.run()
    }

    private func corrupt(_ reason: String) -> CheckpointError { .corrupt(file: file, reason: reason) }

    private mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw corrupt("the pickle ends before its STOP opcode") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else { throw corrupt("a pickle field runs past the end") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    private mutating func littleEndian(_ count: Int) throws -> UInt64 {
        try take(count).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private mutating func line() throws -> String {
        guard let end = bytes[position...].firstIndex(of: 0x0A) else { throw corrupt("a GLOBAL name has no end of line") }
        defer { position = end + 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    private mutating func pop() throws -> PickleValue {
        guard let value = stack.popLast() else { throw corrupt("an opcode pops an empty stack") }
        if let mark = marks.last, stack.count < mark { throw corrupt("an opcode pops past a MARK") }
        return value
    }

    private mutating func push(_ value: PickleValue) throws {
        guard stack.count < Self.valueLimit else { throw corrupt("the pickle's stack outgrows \(Self.valueLimit) values") }
        stack.append(value)
    }

    /// The values pushed since the last MARK, which is removed.
    private mutating func popToMark() throws -> [PickleValue] {
        guard let mark = marks.popLast(), mark <= stack.count else { throw corrupt("an opcode needs a MARK that is not there") }
        defer { stack.removeSubrange(mark...) }
        return Array(stack[mark...])
    }

    private mutating func top() throws -> PickleValue {
        guard let value = stack.last, stack.count > (marks.last ?? 0) else { throw corrupt("an opcode needs a value on the stack") }
        return value
    }

    private mutating func memoize(_ index: UInt32) throws {
        guard memo.count < Self.valueLimit else { throw corrupt("the pickle's memo outgrows \(Self.valueLimit) values") }
        memo[index] = try top()
    }

    private func recalled(_ index: UInt32) throws -> PickleValue {
        guard let value = memo[index] else { throw corrupt("the pickle recalls memo entry \(index), never stored") }
        return value
    }

    private mutating func text(_ count: UInt64) throws -> PickleValue {
        guard count <= UInt64(bytes.count - position) else { throw corrupt("a string runs past the end") }
        let slice = try take(Int(count))
        guard let value = String(validating: slice, as: UTF8.self) else { throw corrupt("a string is not UTF-8") }
        return .string(value)
    }

    private mutating func data(_ count: UInt64) throws -> PickleValue {
        guard count <= UInt64(bytes.count - position) else { throw corrupt("a byte string runs past the end") }
        return .bytes(Array(try take(Int(count))))
    }

    private mutating func setItems(_ items: [PickleValue]) throws {
        guard items.count % 2 == 0 else { throw corrupt("SETITEMS has a key without a value") }
        guard case .dict(let dictionary) = try top() else {
            // Items set on an opaque object's state: kept out of the state dictionary.
            return
        }
        for index in stride(from: 0, to: items.count, by: 2) { dictionary.set(items[index], items[index + 1]) }
    }

    private mutating func append(_ items: [PickleValue]) throws {
        if case .list(let list) = try top() { list.values += items }
    }

    /// A call of a global, interpreted where the format needs it: an `OrderedDict` is a dictionary.
    private func called(_ callable: PickleValue, _ arguments: [PickleValue]) -> PickleValue {
        if case .global("collections", "OrderedDict") = callable, arguments.isEmpty { return .dict(PickleDictionary()) }
        return .call(callable, arguments: arguments)
    }

    private mutating func run() throws -> PickleValue {
        while true {
            let opcode = try byte()
            switch opcode {
            case 0x80: _ = try byte()                                            // PROTO
            case 0x95: _ = try take(8)                                           // FRAME
            case 0x2E:                                                           // STOP
                guard marks.isEmpty, stack.count == 1 else { throw corrupt("the pickle stops with \(stack.count) values left") }
                return stack[0]
            case 0x28: marks.append(stack.count)                                // MARK
            case 0x30: _ = try pop()                                             // POP
            case 0x31: _ = try popToMark()                                       // POP_MARK
            case 0x32: try push(try top())                                       // DUP
            case 0x4E: try push(.none)                                           // NONE
            case 0x88: try push(.bool(true))                                     // NEWTRUE
            case 0x89: try push(.bool(false))                                    // NEWFALSE
            case 0x4B: try push(.int(Int64(try byte())))                         // BININT1
            case 0x4D: try push(.int(Int64(try littleEndian(2))))                // BININT2
            case 0x4A: try push(.int(Int64(Int32(truncatingIfNeeded: try littleEndian(4)))))  // BININT
            case 0x8A:                                                           // LONG1
                let count = Int(try byte())
                guard count <= 8 else { throw corrupt("an integer of \(count) bytes is out of range") }
                let raw = try littleEndian(count)
                let shift = UInt64(64 - 8 * count)
                try push(.int(count == 0 ? 0 : Int64(bitPattern: raw << shift) >> Int64(shift)))
            case 0x47:                                                           // BINFLOAT (big-endian)
                let raw = try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                try push(.float(Double(bitPattern: raw)))
            case 0x58: try push(try text(try littleEndian(4)))                   // BINUNICODE
            case 0x8C: try push(try text(UInt64(try byte())))                    // SHORT_BINUNICODE
            case 0x8D: try push(try text(try littleEndian(8)))                   // BINUNICODE8
            case 0x42: try push(try data(try littleEndian(4)))                   // BINBYTES
            case 0x43: try push(try data(UInt64(try byte())))                    // SHORT_BINBYTES
            case 0x8E: try push(try data(try littleEndian(8)))                   // BINBYTES8
            case 0x29: try push(.tuple([]))                                      // EMPTY_TUPLE
            case 0x85: try push(.tuple([try pop()]))                             // TUPLE1
            case 0x86:                                                           // TUPLE2
                let second = try pop()
                try push(.tuple([try pop(), second]))
            case 0x87:                                                           // TUPLE3
                let third = try pop(), second = try pop()
                try push(.tuple([try pop(), second, third]))
            case 0x74: try push(.tuple(try popToMark()))                         // TUPLE
            case 0x5D: try push(.list(PickleList()))                             // EMPTY_LIST
            case 0x6C:                                                           // LIST
                let list = PickleList()
                list.values = try popToMark()
                try push(.list(list))
            case 0x7D: try push(.dict(PickleDictionary()))                       // EMPTY_DICT
            case 0x64:                                                           // DICT
                let items = try popToMark()
                try push(.dict(PickleDictionary()))
                try setItems(items)
            case 0x61: try append([try pop()])                                   // APPEND
            case 0x65: try append(try popToMark())                               // APPENDS
            case 0x73:                                                           // SETITEM
                let value = try pop(), key = try pop()
                try setItems([key, value])
            case 0x75: try setItems(try popToMark())                             // SETITEMS
            case 0x63:                                                           // GLOBAL
                let module = try line()
                try push(.global(module: module, name: try line()))
            case 0x93:                                                           // STACK_GLOBAL
                let name = try pop(), module = try pop()
                guard let module = module.string, let name = name.string else { throw corrupt("STACK_GLOBAL without two names") }
                try push(.global(module: module, name: name))
            case 0x52:                                                           // REDUCE
                let arguments = try pop(), callable = try pop()
                guard let arguments = arguments.elements else { throw corrupt("REDUCE's arguments are not a tuple") }
                try push(called(callable, arguments))
            case 0x81:                                                           // NEWOBJ
                let arguments = try pop(), type = try pop()
                guard let arguments = arguments.elements else { throw corrupt("NEWOBJ's arguments are not a tuple") }
                try push(.call(type, arguments: arguments))
            case 0x62: _ = try pop()                                             // BUILD: an object's state, not kept
            case 0x51: try push(.persistent(try pop()))                          // BINPERSID
            case 0x71: try memoize(UInt32(try byte()))                           // BINPUT
            case 0x72: try memoize(UInt32(try littleEndian(4)))                  // LONG_BINPUT
            case 0x94: try memoize(UInt32(truncatingIfNeeded: memo.count))       // MEMOIZE
            case 0x68: try push(try recalled(UInt32(try byte())))                // BINGET
            case 0x6A: try push(try recalled(UInt32(try littleEndian(4))))       // LONG_BINGET
            default:
                throw corrupt("the pickle uses opcode 0x\(String(opcode, radix: 16)), which a state dictionary never needs")
            }
        }
    }
}
