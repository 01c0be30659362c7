extension IndexPage {
    /// Keeps "Last requests" live, one request at a time; starts over when `X-Mock-Journal-Run`
    /// changes (a restart or a clear). The admin token is kept in sessionStorage: gone when the tab
    /// closes. Entries are written with textContent only: paths and reasons come from anyone.
    static let journalScript = #"""
    (() => {
      "use strict";
      const section = document.getElementById("requests");
      const mode = section.dataset.journal;
      const limit = Number(section.dataset.limit);
      const pollMs = Number(section.dataset.pollMs), retryMs = Number(section.dataset.retryMs);
      const rowsBox = document.getElementById("journal-rows");
      const tokenForm = document.getElementById("journal-token");
      const problem = document.getElementById("journal-problem");
      const filters = document.getElementById("journal-filters");
      const note = document.getElementById("journal-note");
      const forget = document.getElementById("journal-forget");
      const live = document.getElementById("journal-live");
      const state = document.getElementById("journal-state");
      const tokenKey = "mock-backend admin token";
      const explanation = Array.from(rowsBox.childNodes);
      let token = mode === "token" ? sessionStorage.getItem(tokenKey) : null;
      let rows = [], cursor = 0, timer = 0, round = 0, rendered = false, run = null;
      // The ids of the rows opened to their request and response, kept across renders.
      const opened = new Set();

      const element = (name, className, text) => {
        const made = document.createElement(name);
        if (className) made.className = className;
        if (text !== undefined) made.textContent = text;
        return made;
      };
      const two = (number) => String(number).padStart(2, "0");
      const clock = (date) => `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
      const zone = (() => {
        const part = new Intl.DateTimeFormat([], { timeZoneName: "short" }).formatToParts(new Date())
          .find((piece) => piece.type === "timeZoneName");
        return part ? part.value : "local";
      })();

      // IndexPage.outcome's rule: an error answered with 200 has a reason (a stub sequence's note is none); an injected fault on an
      // answer that is no error is a fault.
      const outcome = (entry) => entry.status === null || entry.status >= 400 ? "error"
        : !entry.reason || entry.reason.startsWith("\#(StubMatch.sequenceNote)") ? "ok"
        : entry.reason.startsWith("injected fault") ? "fault" : "error";

      // A body as the journal keeps it (its first 4 KiB), JSON laid out to be read.
      function bodyText(entry, key) {
        const body = entry[key];
        if (entry[`${key}_base64`]) return "(not text: base64 at /_mock/requests)";
        if (!body) return "(no body)";
        let shown = body;
        try { shown = JSON.stringify(JSON.parse(body), null, 2); } catch (notJSON) { /* as it came */ }
        return new TextEncoder().encode(body).length >= 4096 ? `${shown}\n… (the journal keeps the first 4 KiB)` : shown;
      }

      function exchange(entry) {
        const target = entry.query ? `${entry.path}?${entry.query}` : entry.path;
        const headers = Object.entries(entry.request_headers).map(([name, value]) => `${name}: ${value}`);
        const request = [`${entry.method} ${target}`, ...headers, "", bodyText(entry, "request_body")];
        const status = entry.status === null ? "no answer" : `${entry.status}`;
        const response = [`${status}${entry.reason ? " (" + entry.reason + ")" : ""}`, "",
          bodyText(entry, "response_body")];
        const box = element("div", "exchange");
        for (const [title, lines] of [["request", request], ["response", response]]) {
          const part = element("div");
          part.append(element("h3", "", title), element("pre", "", lines.join("\n")));
          box.append(part);
        }
        return box;
      }

      function toggle(id, row, detail) {
        if (opened.has(id)) opened.delete(id); else opened.add(id);
        detail.hidden = !opened.has(id);
        row.setAttribute("aria-expanded", String(opened.has(id)));
      }

      function render() {
        if (rows.length === 0) {
          const filtered = Array.from(new FormData(filters).values()).some((value) => value !== "");
          rowsBox.replaceChildren(element("p", "muted", filtered ? "No requests match these filters yet."
            : "No requests yet. Point an app at a base URL above; its requests appear here."));
          return;
        }
        const table = element("table", "grid requests");
        const head = table.createTHead().insertRow();
        for (const title of [`time (${zone})`, "method", "path", "status", "API", "reason"]) {
          head.append(element("th", "", title));
        }
        const body = table.createTBody();
        for (const entry of rows) {
          const row = body.insertRow();
          row.className = `entry ${outcome(entry)}`;
          row.tabIndex = 0;
          row.title = "Show the request and the response";
          row.setAttribute("aria-expanded", String(opened.has(entry.id)));
          const path = element("td", "path");
          path.append(element("code", "", entry.query ? `${entry.path}?${entry.query}` : entry.path));
          const status = entry.status === null ? "none" : String(entry.status);
          row.append(element("td", "", clock(new Date(entry.at))), element("td", "", entry.method), path,
            element("td", `status s${Math.floor((entry.status ?? 500) / 100)}`, status),
            element("td", "", entry.api ?? "—"), element("td", "reason", entry.reason ?? ""));
          const detail = body.insertRow();
          detail.className = "detail";
          detail.hidden = !opened.has(entry.id);
          const cell = detail.insertCell();
          cell.colSpan = 6;
          cell.append(exchange(entry));
          row.addEventListener("click", () => toggle(entry.id, row, detail));
          row.addEventListener("keydown", (event) => {
            if (event.key !== "Enter" && event.key !== " ") return;
            event.preventDefault();
            toggle(entry.id, row, detail);
          });
        }
        const scroll = element("div", "scroll");
        scroll.append(table);
        rowsBox.replaceChildren(scroll);
      }

      function say(text) {
        if (state.textContent !== text) state.textContent = text;
      }

      function later(ms, mine) {
        clearTimeout(timer);
        timer = setTimeout(() => poll(mine), ms);
      }

      // Nothing shown, nothing asked yet: the next poll asks for everything.
      function forgetRows() {
        rows = [];
        opened.clear();
        cursor = 0;
        rendered = false;
        run = null;
      }

      // From scratch: a new token or new filters.
      function start() {
        clearTimeout(timer);
        round += 1;
        forgetRows();
        poll(round);
      }

      async function poll(mine) {
        const query = new URLSearchParams({ limit: String(limit), after: String(cursor) });
        for (const [name, value] of new FormData(filters)) if (value !== "") query.set(name, value);
        try {
          const response = await fetch(`/_mock/requests?${query}`,
            { cache: "no-store", headers: token ? { "X-Mock-Admin-Token": token } : {} });
          if (mine !== round) return;
          if (response.status === 401) {
            askForToken(token ? "The server refused this token (401): it is not the --admin-token "
              + "(MOCK_ADMIN_TOKEN) the server was started with. Check it and type it again." : "");
            return;
          }
          if (!response.ok) {
            // Asking again would get the same answer, and a console line each time.
            const answer = await response.json().catch(() => ({}));
            say(`The journal answered ${response.status}${answer.detail ? ": " + answer.detail : ""}; `
              + "reload the page to try again.");
            live.hidden = true;
            return;
          }
          const entries = await response.json();
          if (mine !== round) return;
          const answeredBy = response.headers.get("X-Mock-Journal-Run");
          if (run !== null && answeredBy !== run) {
            // Restarted or cleared between two polls: what is shown may be gone. Ask from scratch.
            forgetRows();
            poll(mine);
            return;
          }
          run = answeredBy;
          if (entries.length > 0 || !rendered) {
            rows = entries.concat(rows).slice(0, limit);
            if (entries.length > 0) cursor = entries[0].id;
            render();
            rendered = true;
          }
          live.hidden = false;
          say("");
          later(pollMs, mine);
        } catch (error) {
          if (mine !== round) return;
          // After a restart the ids start again at 1: ask from scratch once it answers.
          forgetRows();
          live.hidden = true;
          say(`The server does not answer; trying again every ${retryMs / 1000} s.`);
          later(retryMs, mine);
        }
      }

      function askForToken(message) {
        round += 1;
        clearTimeout(timer);
        token = null;
        sessionStorage.removeItem(tokenKey);
        live.hidden = true;
        filters.hidden = true;
        note.hidden = true;
        rowsBox.replaceChildren(...explanation);
        say("");
        problem.textContent = message;
        tokenForm.hidden = false;
        // Not on arrival: focusing would scroll the page down to the journal.
        if (message) tokenForm.elements.token.focus();
      }

      function watch() {
        tokenForm.hidden = true;
        problem.textContent = "";
        filters.hidden = false;
        note.hidden = false;
        forget.hidden = token === null;
        start();
      }

      tokenForm.addEventListener("submit", (event) => {
        event.preventDefault();
        const typed = tokenForm.elements.token.value.trim();
        if (typed === "") return;
        token = typed;
        sessionStorage.setItem(tokenKey, token);
        tokenForm.reset();
        watch();
      });
      filters.addEventListener("submit", (event) => event.preventDefault());
      filters.addEventListener("input", start);
      forget.addEventListener("click", () => askForToken(""));

      if (mode === "token" && token === null) askForToken("");
      else watch();
    })();
    """#
}
