import Foundation

/// Which catalog entries stand for a Hub repository. Repositories compare without regard to letter case, as the
/// Hub's addresses do. A reference to a commit matches only that commit; one to a branch or tag matches any commit
/// of the repository, so telling whether `hf:OWNER/NAME` is installed needs no network (`ModelStore.installFromHub`
/// is what checks a branch for a newer commit).
extension CatalogModel {
    /// Whether every source is the Hub (such an entry may leave its files to the repository).
    public var isHubSourced: Bool {
        !sources.isEmpty && sources.allSatisfy { if case .huggingFace = $0 { true } else { false } }
    }

    /// Whether this entry installs `reference`.
    func serves(_ reference: HuggingFaceReference) -> Bool {
        sources.contains { source in
            guard case let .huggingFace(repository, revision) = source,
                  repository.lowercased() == reference.repository.lowercased() else { return false }
            return !reference.isCommit || revision == reference.revision
        }
    }

    /// Whether a folder whose manifest records `origin` is an install of this Hub-sourced entry: one of its
    /// repositories, at the commit the entry names if it names one.
    func accepts(installedFrom origin: ModelSource?) -> Bool {
        guard case let .huggingFace(repository, commit) = origin,
              let reference = try? HuggingFaceReference(repository: repository, revision: commit) else { return false }
        return sources.contains { source in
            guard case let .huggingFace(wanted, revision) = source, wanted.lowercased() == repository.lowercased() else {
                return false
            }
            return !HuggingFaceReference.isCommitID(revision) || revision == reference.revision
        }
    }
}

extension ModelCatalog {
    /// The entry a Hub reference stands for: the last one serving it (user models are merged last), preferring one
    /// naming the reference's revision itself.
    func model(serving reference: HuggingFaceReference) -> CatalogModel? {
        let serving = models.filter { $0.serves(reference) }
        return serving.last { model in
            model.sources.contains { $0 == .huggingFace(repository: reference.repository, revision: reference.revision) }
        } ?? serving.last
    }
}
