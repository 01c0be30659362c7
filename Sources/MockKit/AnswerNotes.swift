import MockHTTP

/// What the kit and the app keep about an answer beside its bytes: which route group answered and
/// why an error happened. It rides in `Response.attachment`, which the HTTP layer hands back
/// untouched in `didRespond`, for the request log and the journal.
struct AnswerNotes: Sendable {
    var routeGroup: String?
    var explanation: String?
}

extension Response {
    /// The name of the route group that answered (an API, the control surface, the stubs); nil
    /// when none did.
    public var routeGroup: String? {
        get { notes.routeGroup }
        set { notes.routeGroup = newValue }
    }

    /// Why an error happened, in one line for the person at the console and in the journal;
    /// never sent to the client (the body is the course API's own).
    public var explanation: String? {
        get { notes.explanation }
        set { notes.explanation = newValue }
    }

    private var notes: AnswerNotes {
        get { attachment as? AnswerNotes ?? AnswerNotes() }
        set { attachment = newValue }
    }
}

extension Exchange {
    /// Why the answer went out as it did: the HTTP layer's own note when it answered or ended the
    /// exchange itself, else the responder's explanation.
    public var explanation: String? { note ?? response.explanation }
}
