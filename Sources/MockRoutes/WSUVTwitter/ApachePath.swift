/// A request path as the course's Apache servers mapped it to a script
/// (docs/apis/wsuv-twitter.md#base-urls): repeated slashes merged, `.` and `..` segments resolved,
/// and whatever follows a script's name (`/login.cgi/extra`) handed to it as `PATH_INFO`, which
/// the scripts never read.
struct ApachePath: Sendable {
    enum Resolution: Equatable {
        /// The path of the script, as its route is written (`/cgi-bin/login.cgi`).
        case script(String)
        /// A `..` that climbs above the root: Apache answered 400 Bad Request before any script ran.
        case aboveRoot
    }

    /// The route paths of the scripts (`/cgi-bin/login.cgi`).
    let scripts: Set<String>
    /// The most segments a script's path has: no script lies deeper.
    private let deepest: Int

    init(scripts: [String]) {
        self.scripts = Set(scripts)
        deepest = scripts.map { $0.split(separator: "/").count }.max() ?? 0
    }

    /// What `path` (percent-decoded, starting with `/`) runs; nil when it names no script. A path
    /// whose `..` climbs above the root is `aboveRoot` only when, with the climb dropped, it would
    /// name a script: other paths are not WSUV's to refuse.
    func resolve(_ path: String) -> Resolution? {
        guard path.hasPrefix("/") else { return nil }
        var segments: [Substring] = []
        var climbsAboveRoot = false
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": if segments.popLast() == nil { climbsAboveRoot = true }
            default: segments.append(segment)
            }
        }
        // Apache walked the segments from the left to the first file: the script.
        var prefix = ""
        for segment in segments.prefix(deepest) {
            prefix += "/" + segment
            if scripts.contains(prefix) { return climbsAboveRoot ? .aboveRoot : .script(prefix) }
        }
        return nil
    }
}
