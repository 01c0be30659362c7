import MockHTTP

/// Course API requests go to the journal of `/_mock/requests`; the control surface's do not.
struct JournalRecording: Middleware {
    let journal: Journal

    func didRespond(_ exchange: Exchange) {
        if exchange.response.routeGroup != AdminAPI.name && !exchange.request.path.hasPrefix("/_mock/") {
            journal.record(exchange)
        }
    }
}

/// One console line per request; after the journal, so whoever has seen the line finds the entry.
/// Not for the index page's journal polls that succeed: one a second would bury the lines that matter.
struct RequestLogging: Middleware {
    let log: RequestLog

    func didRespond(_ exchange: Exchange) {
        if exchange.sentStatus == 200 && AdminAPI.isJournalPoll(exchange.request) { return }
        log.record(exchange)
    }
}
