import Foundation

/// What a catalog may say. Ids and file names become paths under the store's home, so each must be one plain path
/// component; package names become pip arguments, so none may read as an option. Every catalog is checked when it is
/// read (`ModelCatalog(contentsOf:)`) and every model again before it is installed (`ModelStore.install`).
extension ModelCatalog {
    /// Why this catalog cannot be used, naming the model and the part at fault; nil when every entry is valid.
    func problem() -> String? {
        var seen: Set<String> = []
        for model in models {
            if let problem = model.problem() { return problem }
            if !seen.insert(model.id).inserted { return "model '\(model.id)' is listed twice" }
        }
        return nil
    }
}

extension CatalogModel {
    /// Why this entry cannot be installed, naming the model and the part at fault; nil when it is valid.
    func problem() -> String? {
        guard ModelStore.isValidID(id) else {
            return "model id \(quoted(id)) is not a folder name: use letters, digits, '.', '-' and '_' "
                + "(at most 128, not starting with '.')"
        }
        // A model whose every source is the Hub may leave its files to the repository (see `HubInstaller.swift`).
        guard !files.isEmpty || isHubSourced else { return "model '\(id)' lists no files" }
        var names: Set<String> = []
        for file in files {
            guard File.isValidName(file.name) else { return "model '\(id)': " + File.nameRule(file.name) }
            guard names.insert(file.name).inserted else { return "model '\(id)' lists file '\(file.name)' twice" }
            guard file.size >= 0 else { return "model '\(id)': file '\(file.name)' has a negative size" }
            guard file.sha256.count == 64, file.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                return "model '\(id)': the sha256 of file '\(file.name)' is not 64 lowercase hexadecimal digits"
            }
        }
        for source in sources {
            if let problem = source.problem(files: names) { return "model '\(id)': " + problem }
        }
        return nil
    }
}

extension CatalogModel.File {
    /// Whether `name` can name a file of a model folder: one path component (no `/` or `\`, not `.` or `..`),
    /// not empty, not hidden (names starting with `.` are the store's own, such as the install manifest), no control
    /// characters, at most 200 UTF-8 bytes (a partial download adds a suffix).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 200
            && !name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The rule `isValidName` enforces, said about `name`.
    static func nameRule(_ name: String) -> String {
        "file name \(quoted(name)) is not a plain file name (one name, not empty, without '/', '\\' or control "
            + "characters, not starting with '.', at most 200 bytes)"
    }
}

extension ModelSource {
    /// Why this source cannot deliver a model made of the files `names`; nil when it can.
    func problem(files names: Set<String>) -> String? {
        switch self {
        case let .pythonPackage(packages, members, _, _):
            guard !packages.isEmpty else { return "its python-package source lists no packages" }
            for package in packages {
                guard Self.isPackageName(package.name) else {
                    return "package name \(quoted(package.name)) is not a Python package name "
                        + "(letters, digits, '.', '-', '_', starting and ending with a letter or digit)"
                }
                guard Self.isPackageVersion(package.version) else {
                    return "version \(quoted(package.version)) of package '\(package.name)' is not a version "
                        + "(letters, digits, '.', '+', '!', '-', '_', starting with a letter or digit)"
                }
            }
            return Self.fileMapProblem(Set(members.keys), files: names, source: "python-package source's members")
        case let .url(files):
            return Self.fileMapProblem(Set(files.keys), files: names, source: "url source's files")
        case .directory:
            return nil
        case let .huggingFace(repository, revision):
            do {
                _ = try HuggingFaceReference(repository: repository, revision: revision)
                return nil
            } catch let error as ModelAssetError {
                guard case let .invalidHubReference(_, reason) = error else { return error.description }
                return "its hugging-face source: \(reason)"
            } catch {
                return "its hugging-face source: \(error)"
            }
        }
    }

    /// A source's map from model file names must name exactly the model's files.
    private static func fileMapProblem(_ keys: Set<String>, files names: Set<String>, source: String) -> String? {
        for key in keys.sorted() where !CatalogModel.File.isValidName(key) {
            return "its \(source): " + CatalogModel.File.nameRule(key)
        }
        if let stray = keys.subtracting(names).sorted().first {
            return "its \(source) name '\(stray)', which is not one of the model's files"
        }
        if let missing = names.subtracting(keys).sorted().first {
            return "its \(source) do not say where file '\(missing)' comes from"
        }
        return nil
    }

    /// A distribution name as PEP 508 allows it, so `NAME==VERSION` can never read as a pip option.
    static func isPackageName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
              isASCIIAlphanumeric(first), isASCIIAlphanumeric(last) else { return false }
        return name.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || "._-".unicodeScalars.contains($0) }
    }

    /// A version as PEP 440 spells one (public and local parts, epoch).
    static func isPackageVersion(_ version: String) -> Bool {
        guard let first = version.unicodeScalars.first, isASCIIAlphanumeric(first), version.count <= 64 else { return false }
        return version.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || ".+!-_".unicodeScalars.contains($0) }
    }
}

extension ModelStore {
    /// Catalog ids are folder names: ASCII letters, digits, `.`, `-`, `_`, at most 128, not starting with a dot.
    static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, !id.hasPrefix(".") else { return false }
        return id.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || "._-".unicodeScalars.contains($0) }
    }
}

private func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
}

/// `name` in quotes, with control characters and NUL escaped so a message shows what the catalog really says.
private func quoted(_ name: String) -> String {
    "'" + name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined() + "'"
}
