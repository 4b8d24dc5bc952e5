// Search as you type in the launcher's box (GET /api/search): the input is a combobox over a
// listbox whose first row is always "Ask AI: <what you typed>", then the matching sections,
// grouped by page. Arrow keys move through the rows (aria-activedescendant: focus stays in
// the input), Enter opens the active result or, on the Ask row, asks; Ctrl-Enter always asks.
// One request at a time: typed into an idle box, the text is searched at once; while a
// request is in flight, the newest text replaces it after a 30 ms pause in typing (the older
// is aborted), and a response for any query but the box's current text is dropped. Matched words are marked from the server's offsets
// (UTF-16 units, as JavaScript indexes strings); every text is set as text, never as HTML.
// A query shorter than MIN_QUERY_CHARS is not searched (the server matches no one-letter
// prefix: every first letter would flash "No pages match"); it shows only the Ask row.
// Esc with the list open closes the list; the dialog's own Esc handler then closes the dialog.
// Hooks: [data-askai-search-result], [data-askai-ask-row], [data-askai-search-empty], and the
// list's [data-askai-shown-query]: the query whose results are shown (a question asked names their search).
import { searchPages, sendSearchClick } from "./api.js";
import { pageScope } from "./page.js";
import { format } from "./strings.js";

export const DEBOUNCE_MS = 30;
/** The shortest query searched: the server's shortest prefix match (retrieval.lexicon.PREFIX_MIN_CHARS). */
export const MIN_QUERY_CHARS = 2;
const RECENT_KEY = "askai:recent-searches";
const RECENT_KEPT = 5;

/** The snippet as text nodes and <mark>s, from `highlights` ([start, end] pairs in UTF-16 units). */
export function markedText(snippet, highlights) {
  const parts = [];
  let at = 0;
  const spans = (Array.isArray(highlights) ? highlights : [])
    .filter((h) => Array.isArray(h) && Number.isInteger(h[0]) && Number.isInteger(h[1]) && h[0] < h[1])
    .sort((a, b) => a[0] - b[0]);
  for (const [start, end] of spans) {
    if (start < at || end > snippet.length) continue; // overlapping or out of range: left unmarked
    if (start > at) parts.push(document.createTextNode(snippet.slice(at, start)));
    const mark = document.createElement("mark");
    mark.textContent = snippet.slice(start, end);
    parts.push(mark);
    at = end;
  }
  if (at < snippet.length) parts.push(document.createTextNode(snippet.slice(at)));
  return parts;
}

/** Recent searches kept in this tab (sessionStorage), newest first. */
export function recentSearches() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(RECENT_KEY) || "[]");
    return Array.isArray(kept) ? kept.filter((q) => typeof q === "string" && q.trim()).slice(0, RECENT_KEPT) : [];
  } catch {
    return [];
  }
}

export function rememberSearch(query) {
  const text = query.trim();
  if (!text) return;
  const kept = [text, ...recentSearches().filter((q) => q !== text)].slice(0, RECENT_KEPT);
  try {
    sessionStorage.setItem(RECENT_KEY, JSON.stringify(kept));
  } catch {
    // Storage full or off: nothing is remembered.
  }
}

export class Search {
  /** `widget` asks (`widget.ask`), knows its endpoint and strings; `input` and `list` are its box and listbox. */
  constructor(widget, input, list, { askable }) {
    this.widget = widget;
    this.input = input;
    this.list = list;
    this.askable = askable;
    this.timer = 0;
    this.controller = null;
    this.latest = "";
    this.active = -1;
    this.off = false;
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-expanded", "false");
    input.addEventListener("input", () => this.typed());
    input.addEventListener("focus", () => this.typed());
    input.addEventListener("keydown", (event) => this.key(event));
    list.addEventListener("mousedown", (event) => event.preventDefault()); // keep focus in the input
    list.addEventListener("click", (event) => {
      const row = event.target.closest("[role=option]");
      if (row) this.choose(row);
    });
  }

  get rows() {
    return [...this.list.querySelectorAll("[role=option]")];
  }

  /** The reader typed (or came back to the box): search after a pause, or show recent searches. */
  typed() {
    clearTimeout(this.timer);
    const query = this.input.value;
    if (this.widget.state === "streaming" || this.off) return this.hide();
    if (!query.trim()) {
      this.abort();
      this.latest = "";
      return this.showRecent();
    }
    if (query.trim().length < MIN_QUERY_CHARS) {
      // Too short to match a page: no request, no "No pages match", only the Ask row.
      this.abort();
      this.latest = query;
      this.shown = null;
      return this.show(query, null);
    }
    // Idle: search at once. A request in flight: wait for a pause in typing, then the
    // newest text replaces it (one request at a time either way).
    if (!this.controller) this.fetch(query);
    else this.timer = setTimeout(() => this.fetch(this.input.value), DEBOUNCE_MS);
  }

  abort() {
    if (this.controller) this.controller.abort();
    this.controller = null;
  }

  async fetch(query) {
    this.abort();
    const controller = (this.controller = new AbortController());
    this.latest = query;
    let body;
    try {
      body = await searchPages(this.widget.endpoint, query, controller.signal, pageScope(this.widget));
    } catch (error) {
      if (error.name === "AbortError") return;
      if (error.status === 404) {
        this.off = true; // a server with no pages to search: the box only asks, as before
        return this.hide();
      }
      body = null; // refused (429) or unreachable: the Ask row still asks
    }
    if (controller !== this.controller || query !== this.input.value || this.latest !== query) return; // stale
    this.controller = null;
    if (this.widget.state === "streaming") return;
    // The search a question asked from these results names (POST /api/chat's search_id).
    this.shown = { query, searchId: body && typeof body.search_id === "string" ? body.search_id : null };
    this.list.dataset.askaiShownQuery = query;
    this.show(query, body && Array.isArray(body.results) ? body.results : null);
  }

  hide() {
    clearTimeout(this.timer);
    this.abort();
    this.list.hidden = true;
    this.list.replaceChildren();
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
    this.active = -1;
  }

  option(kind, id) {
    const row = document.createElement("li");
    row.setAttribute("role", "option");
    row.id = `askai-option-${id}`;
    row.setAttribute("aria-selected", "false");
    row.dataset[kind] = "";
    return row;
  }

  /** The rows for `query`: the Ask row, then each page's sections (`results` null: the search failed). */
  show(query, results) {
    const rows = [];
    let n = 0;
    if (this.askable) {
      const ask = this.option("askaiAskRow", n++);
      ask.textContent = format(this.widget.t.askRow, query.trim());
      rows.push(ask);
    }
    for (const page of results || []) {
      if (!page || typeof page.title !== "string" || !Array.isArray(page.sections)) continue;
      const group = document.createElement("li");
      group.setAttribute("role", "presentation");
      const title = document.createElement("p");
      title.className = "page";
      title.id = `askai-group-${n}`;
      title.textContent = page.title;
      const inner = document.createElement("ul");
      inner.setAttribute("role", "group");
      inner.setAttribute("aria-labelledby", title.id);
      for (const section of page.sections) {
        if (!section || typeof section.url !== "string" || !/^https?:/i.test(section.url)) continue;
        const row = this.option("askaiSearchResult", n++);
        row.dataset.url = section.url;
        const heading = document.createElement("span");
        heading.className = "heading";
        heading.textContent = section.heading || page.title;
        const snippet = document.createElement("span");
        snippet.className = "snippet";
        snippet.append(...markedText(String(section.snippet || ""), section.highlights));
        row.append(heading, snippet);
        inner.append(row);
      }
      if (inner.children.length) {
        group.append(title, inner);
        rows.push(group);
      }
    }
    if (results && !rows.some((row) => row.querySelector?.("[data-askai-search-result]"))) {
      const empty = document.createElement("li");
      empty.setAttribute("role", "presentation");
      empty.className = "empty";
      empty.dataset.askaiSearchEmpty = "";
      empty.textContent = format(this.askable ? this.widget.t.noResultsAsk : this.widget.t.noResults, query.trim());
      rows.push(empty);
    }
    this.render(rows);
  }

  showRecent() {
    const recent = recentSearches();
    if (!recent.length) return this.hide();
    const heading = document.createElement("li");
    heading.setAttribute("role", "presentation");
    heading.className = "page";
    heading.textContent = this.widget.t.recentSearches;
    const rows = [heading];
    recent.forEach((query, i) => {
      const row = this.option("askaiRecent", `recent-${i}`);
      row.textContent = query;
      rows.push(row);
    });
    this.render(rows);
  }

  render(rows) {
    this.list.replaceChildren(...rows);
    this.list.hidden = !rows.length;
    this.input.setAttribute("aria-expanded", String(rows.length > 0));
    this.select(-1);
  }

  select(index) {
    const rows = this.rows;
    this.active = rows.length ? Math.max(-1, Math.min(index, rows.length - 1)) : -1;
    rows.forEach((row, i) => row.setAttribute("aria-selected", String(i === this.active)));
    if (this.active < 0) this.input.removeAttribute("aria-activedescendant");
    else {
      this.input.setAttribute("aria-activedescendant", rows[this.active].id);
      rows[this.active].scrollIntoView({ block: "nearest" });
    }
  }

  key(event) {
    if (event.isComposing) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (this.askable) this.ask();
      return;
    }
    if (this.list.hidden) return;
    if (event.key === "Escape") {
      // The list closes first; the dialog stays open for a second Esc.
      event.preventDefault();
      event.stopPropagation();
      this.hide();
      return;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const count = this.rows.length;
      if (!count) return;
      const down = event.key === "ArrowDown";
      // From the box, Down goes to the first row and Up to the last; each end wraps to the other.
      if (down) this.select(this.active + 1 < count ? this.active + 1 : 0);
      else this.select(this.active > 0 ? this.active - 1 : count - 1);
    } else if (event.key === "Enter" && this.active >= 0) {
      event.preventDefault();
      this.choose(this.rows[this.active]);
    } else if (event.key === "Enter" && !this.askable) {
      event.preventDefault();
      const first = this.list.querySelector("[data-askai-search-result]");
      if (first) this.choose(first);
    }
  }

  choose(row) {
    if (row.hasAttribute("data-askai-ask-row")) return this.ask();
    if (row.hasAttribute("data-askai-recent")) {
      this.input.value = row.textContent;
      return this.fetch(this.input.value);
    }
    const url = row.dataset.url;
    const query = this.input.value.trim();
    rememberSearch(this.input.value);
    sendSearchClick(this.widget.endpoint, { query, url });
    this.widget.dispatchEvent(new CustomEvent("askai:search-open", { detail: { query, url }, bubbles: true, composed: true }));
    location.assign(url);
  }

  /** The logged search whose results for `query` are shown (its search_id), if any: a question asked names it. */
  searchIdFor(query) {
    return this.shown && this.shown.query === query ? this.shown.searchId : null;
  }

  ask() {
    const query = this.input.value;
    if (!query.trim()) return;
    rememberSearch(query);
    clearTimeout(this.timer);
    this.abort();
    this.hide();
    if (this.widget.ask(query, { searchId: this.searchIdFor(query) })) this.input.value = "";
  }
}
