import MockHTTP

/// What the kit and the app keep about an answer beside its bytes: which route group answered and
/// why an error happened. It rides in `Response.attachment`, which the HTTP layer hands back
/// untouched in `didRespond`, for the request log and the journal. A class: a changed note is a
/// new instance, and reading one back is a class cast (a struct's casts and box took ~1 µs an answer).
final class AnswerNotes: Sendable {
    let routeGroup: String?
    let explanation: String?

    init(routeGroup: String?, explanation: String?) {
        self.routeGroup = routeGroup
        self.explanation = explanation
    }
}

extension Response {
    /// The name of the route group that answered (an API, the control surface, the stubs); nil
    /// when none did.
    public var routeGroup: String? {
        get { notes?.routeGroup }
        set { attachment = AnswerNotes(routeGroup: newValue, explanation: explanation) }
    }

    /// Why an error happened, in one line for the person at the console and in the journal;
    /// never sent to the client (the body is the course API's own).
    public var explanation: String? {
        get { notes?.explanation }
        set { attachment = AnswerNotes(routeGroup: routeGroup, explanation: newValue) }
    }

    private var notes: AnswerNotes? { attachment as? AnswerNotes }
}

extension Exchange {
    /// Why the answer went out as it did: the HTTP layer's own note when it answered or ended the
    /// exchange itself, else the responder's explanation.
    public var explanation: String? { note ?? response.explanation }
}
