extension IndexPage {
    /// Inline, so the page needs nothing else. Large type that grows with the window (projector),
    /// one column on a phone, high contrast in light and dark mode, system fonts only.
    static let style = """
    :root {
      color-scheme: light dark;
      --fg: #14171c; --muted: #4a515c; --bg: #f4f6f9; --card: #ffffff; --line: #d3d8e0;
      --accent: #0b50c4; --tag: #e6ecf7; --code: #eef1f5;
      --ok: #0b6b2c; --warn: #8a4b00; --bad: #b3261e;
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --fg: #eef1f5; --muted: #b8c0cc; --bg: #0f1216; --card: #1a1f26; --line: #353d48;
        --accent: #8ab4ff; --tag: #26324a; --code: #242b35;
        --ok: #6fdc8c; --warn: #f3b95f; --bad: #ff8a80;
      }
    }
    html { font-size: clamp(17px, 0.75rem + 0.6vw, 24px); -webkit-text-size-adjust: 100%; }
    body {
      margin: 0; background: var(--bg); color: var(--fg); line-height: 1.45;
      font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
    }
    main { max-width: 78rem; margin: 0 auto; padding: 1rem clamp(0.6rem, 3vw, 2.5rem) 2rem; }
    h1 { font-size: 2rem; margin: 0.2rem 0; }
    h2 { font-size: 1.35rem; margin: 0 0 0.6rem; line-height: 1.25; }
    h3 { font-size: 0.85rem; margin: 0 0 0.3rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); }
    p { margin: 0.4rem 0; }
    a { color: var(--accent); text-underline-offset: 0.15em; }
    code {
      font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.92em;
      overflow-wrap: anywhere;
    }
    .meta { color: var(--muted); margin: 0 0 0.3rem; }
    header { margin-bottom: 1rem; }
    .meta strong { color: var(--fg); }
    .card {
      background: var(--card); border: 1px solid var(--line); border-radius: 0.6rem;
      padding: 0.9rem clamp(0.7rem, 2vw, 1.4rem); margin: 0 0 1rem;
    }
    .tag {
      font-size: 0.7em; font-weight: 600; vertical-align: 0.15em; white-space: nowrap;
      background: var(--tag); border-radius: 0.3rem; padding: 0.05em 0.45em;
    }
    .columns { display: grid; gap: 0.8rem 2rem; }
    .columns > div { min-width: 0; }
    @media (min-width: 56rem) { .columns { grid-template-columns: 1fr 1fr; } }
    table { border-collapse: collapse; }
    .urls th { text-align: left; font-weight: normal; color: var(--muted); padding: 0.1rem 1rem 0.1rem 0; white-space: nowrap; vertical-align: top; }
    .urls td { padding: 0.1rem 0; }
    .urls code { font-size: 1em; font-weight: 600; }
    .urls code span { white-space: nowrap; }
    .endpoints, .also, .note, .muted { color: var(--muted); }
    .note { border-left: 0.25rem solid var(--accent); padding-left: 0.6rem; }
    .override { color: var(--accent); font-size: 0.9em; }
    .scroll { overflow-x: auto; }
    .grid { width: 100%; }
    .grid th, .grid td { text-align: left; padding: 0.3rem 0.8rem 0.3rem 0; border-bottom: 1px solid var(--line); vertical-align: top; }
    .grid th { font-size: 0.85rem; color: var(--muted); font-weight: 600; }
    .grid code { background: var(--code); border-radius: 0.25rem; padding: 0 0.25em; overflow-wrap: normal; }
    .requests code, .accounts .detail { overflow-wrap: anywhere; }
    .requests td:first-child, .requests td:nth-child(4) { white-space: nowrap; font-variant-numeric: tabular-nums; }
    .status { font-weight: 700; }
    .s2 { color: var(--ok); } .s4 { color: var(--warn); } .s5 { color: var(--bad); }
    .requests th { white-space: nowrap; }
    .requests .path { min-width: 12rem; }
    .requests .reason { color: var(--muted); font-size: 0.9em; overflow-wrap: anywhere; }
    /* A row's outcome as a stripe on its left: an error answered with 200 is red like any other. */
    .requests tr.entry td:first-child { box-shadow: inset 0.3rem 0 var(--ok); padding-left: 0.7rem; }
    .requests tr.error td:first-child { box-shadow: inset 0.3rem 0 var(--bad); }
    .requests tr.fault td:first-child { box-shadow: inset 0.3rem 0 var(--warn); }
    .requests tr.error td.s2, .requests tr.error td.s3 { color: var(--bad); }
    .requests tr.entry[tabindex] { cursor: pointer; }
    .requests tr.entry[tabindex] td:first-child::before { content: "▸ "; color: var(--muted); }
    .requests tr.entry[aria-expanded=true] td:first-child::before { content: "▾ "; }
    .requests tr.entry[tabindex]:hover, .requests tr.entry:focus-visible { background: var(--tag); outline: none; }
    .requests tr.detail td { background: var(--code); }
    .exchange { display: grid; gap: 0.6rem 1.5rem; }
    @media (min-width: 56rem) { .exchange { grid-template-columns: 1fr 1fr; } }
    .exchange > div { min-width: 0; }
    .exchange pre {
      margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24rem; overflow: auto;
      font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.85rem;
    }
    [hidden] { display: none !important; }
    .controls { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; margin: 0.3rem 0 0.8rem; }
    .controls label { color: var(--muted); font-size: 0.9rem; }
    .controls input, .controls select, .controls button {
      font: inherit; font-size: 0.95rem; color: var(--fg); background: var(--card);
      border: 1px solid var(--line); border-radius: 0.3rem; padding: 0.2rem 0.45rem;
    }
    .controls input[type=search] { width: 9rem; }
    .controls button { cursor: pointer; }
    .problem { flex-basis: 100%; color: var(--bad); font-weight: 600; margin: 0; }
    .problem:empty { display: none; }
    .tag.live { color: var(--ok); }
    footer { color: var(--muted); font-size: 0.9rem; }
    /* A phone: labels above addresses; account details and request paths on a line of their own. */
    @media (max-width: 40rem) {
      .urls th { display: block; padding-top: 0.3rem; }
      .urls td { display: block; }
      .accounts tr { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); border-bottom: 1px solid var(--line); }
      .accounts th, .accounts td { border: 0; }
      .accounts .detail { grid-column: 1 / -1; padding-top: 0; }
      .accounts th.detail { display: none; }
      .requests, .requests tbody { display: block; }
      .requests thead { display: none; }
      .requests tr { display: grid; grid-template-columns: auto auto auto 1fr; border-bottom: 1px solid var(--line); }
      .requests td { border: 0; }
      .requests .path { grid-column: 1 / -1; order: 1; padding-top: 0; min-width: 0; }
      .requests .reason { grid-column: 1 / -1; order: 2; padding-top: 0; }
      .requests .reason:empty { display: none; }
      .requests tr.detail td { grid-column: 1 / -1; }
    }
    """
}
