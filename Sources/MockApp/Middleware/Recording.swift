import MockHTTP

/// Course API requests go to the journal of `/_mock/requests` (the control surface's do not), then
/// to the console, one line each: whoever has seen the line finds the entry. No line for the index
/// page's journal polls that succeed: one a second would bury the lines that matter.
struct Recording: Middleware {
    let journal: Journal
    let log: RequestLog?

    func didRespond(_ exchange: Exchange) {
        if exchange.response.routeGroup != AdminAPI.name && !exchange.request.path.hasPrefix("/_mock/") {
            journal.record(exchange)
        }
        if let log, !(exchange.sentStatus == 200 && AdminAPI.isJournalPoll(exchange.request)) {
            log.record(exchange)
        }
    }
}
