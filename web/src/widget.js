// <askai-widget endpoint="https://host:port" [inline] [persist="local|none"] [suggestions="[...]"]
// [link-param="askai"] [shortcut="k|off"] [strings="{...}"] [mode="search"] [version] [locale]>: the Ask AI
// panel in an open shadow root, a conversation with follow-ups, whose box searches the site's pages
// as the reader types (search.js). mode="search": the box only searches, it never asks.
// The hooks (data-askai, data-state, data-askai-input, -answer, -source, -gate-notice, -stop,
// -new, -feedback, -suggestion, -copy, -copy-answer, -share, -turn, -search-result, -ask-row,
// -search-empty) are a public contract: site owners' tests depend on them.
import { fetchSuggestions, HttpError, reachable, streamChat } from "./api.js";
import { Conversation, KEPT_TURNS } from "./conversation.js";
import { isShortcut, shortcutKey, trapFocus } from "./dialog.js";
import { createRenderer } from "./markdown.js";
import { renderMermaid } from "./mermaid.js";
import { progressLabel } from "./notice.js";
import { pageScope } from "./page.js";
import { rememberSearch, Search } from "./search.js";
import { format, readStrings } from "./strings.js";
import STYLES from "./styles.css";
import TEMPLATE from "./template.html";
import { Turn } from "./turn.js";

// Where this script was loaded from: the default endpoint and the base of lazy assets.
const SCRIPT_URL = document.currentScript ? document.currentScript.src : location.href;
const md = createRenderer();
// A 409 (an earlier answer on the thread still streaming) is asked again until it goes through.
const WAIT_MS = [250, 500, 1000];
const WAIT_LIMIT_MS = 120_000;

function withSlash(url) {
  return url.endsWith("/") ? url : `${url}/`;
}

/** The focused element, inside shadow roots too (where the reader was before the dialog opened). */
function focusedElement() {
  let element = document.activeElement;
  while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
  return element;
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("stopped", "AbortError"));
    });
  });
}

class AskAiWidget extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = `<style>${STYLES}</style>${TEMPLATE}`;
    this.t = readStrings(this.getAttribute("strings"));
    this.md = md;
    this.localize(root);
    const $ = (selector) => root.querySelector(selector);
    this.el = {
      launcher: $("[data-askai-open]"),
      backdrop: $("[data-askai-backdrop]"),
      panel: $("[data-askai]"),
      close: $("[data-askai-close]"),
      newConversation: $("[data-askai-new]"),
      body: $("[data-askai-body]"),
      threadNotice: $("[data-askai-thread-notice]"),
      transcript: $("[data-askai-transcript]"),
      form: $("[data-askai-form]"),
      input: $("[data-askai-input]"),
      send: $("[data-askai-send]"),
      stop: $("[data-askai-stop]"),
      status: $("[data-askai-status]"),
      steps: $("[data-askai-steps]"),
      error: $("[data-askai-error]"),
      errorText: $("[data-askai-error] p"),
      retry: $("[data-askai-retry]"),
      suggestions: $("[data-askai-suggestions]"),
      search: $("[data-askai-search]"),
    };
    this.turnTemplate = $("[data-askai-turn-template]");
    this.linkParam = this.getAttribute("link-param") ?? "askai";
    this.inline = this.hasAttribute("inline");
    this.searchOnly = this.getAttribute("mode") === "search";
    if (this.searchOnly) {
      $("#askai-title").textContent = this.t.searchOnlyTitle;
      this.el.launcher.querySelector("span").textContent = this.t.searchOnlyTitle;
      this.el.send.hidden = true;
      this.el.input.setAttribute("enterkeyhint", "search");
    }
    const { launcher, panel, backdrop } = this.el;
    panel.classList.toggle("inline", this.inline);
    launcher.hidden = this.inline;
    this.el.close.hidden = this.inline;
    panel.hidden = !this.inline;
    if (!this.inline) {
      panel.setAttribute("role", "dialog");
      panel.setAttribute("aria-modal", "true");
    }
    launcher.addEventListener("click", () => this.open());
    backdrop.addEventListener("click", () => this.closePanel());
    this.el.close.addEventListener("click", () => this.closePanel());
    this.el.body.addEventListener("scroll", () => this.scrolled(), { passive: true });
    panel.addEventListener("keydown", (event) => {
      if (this.inline) return;
      if (event.key === "Escape") {
        event.preventDefault();
        this.closePanel();
      } else if (event.key === "Tab") trapFocus(event, panel, root.activeElement);
    });
    this.shortcut = shortcutKey(this.getAttribute("shortcut"));
    if (this.shortcut) launcher.setAttribute("aria-keyshortcuts", `Control+${this.shortcut.toUpperCase()} Meta+${this.shortcut.toUpperCase()}`);
    this.onShortcut = (event) => {
      if (!isShortcut(event, this.shortcut)) return;
      event.preventDefault();
      if (!this.inline && !panel.hidden) this.closePanel();
      else this.open();
    };
    document.addEventListener("keydown", this.onShortcut);
    this.el.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const question = this.el.input.value;
      // Asked from the box, the question names the search its text was (the server counts
      // that search as the question, not as a search of its own).
      if (this.ask(question, { searchId: this.search.searchIdFor(question) })) {
        rememberSearch(question);
        this.el.input.value = "";
      }
    });
    this.search = new Search(this, this.el.input, this.el.search, { askable: !this.searchOnly });
    this.el.stop.addEventListener("click", () => this.stop());
    this.el.newConversation.addEventListener("click", () => this.newConversation());
    this.el.retry.addEventListener("click", () => {
      this.ask(this.lastQuestion);
      this.el.input.focus(); // the Retry button hides itself: keep the keyboard user in the form
    });
    this.el.suggestions.addEventListener("click", (event) => {
      const button = event.target.closest("[data-askai-suggestion]");
      if (button) this.ask(button.textContent);
    });

    this.conversation = new Conversation(this.endpoint, this.getAttribute("persist"));
    for (const record of this.conversation.turns) this.restore(record);
    // persist="local": another tab changed the shared conversation; show it here while idle.
    this.onStorage = (event) => {
      if (this.state === "streaming" || !this.conversation.changedBy(event)) return;
      if (this.el.transcript.contains(this.shadowRoot.activeElement)) return; // a reader mid-comment keeps the form
      this.conversation.load();
      this.current = null;
      this.el.transcript.replaceChildren();
      for (const record of this.conversation.turns) this.restore(record);
      this.showIdle();
    };
    window.addEventListener("storage", this.onStorage);
    this.setState("idle");
    this.showIdle();
    if (this.inline) this.loadSuggestions();
    this.askFromLink();
  }

  disconnectedCallback() {
    // A widget removed from the page stops its answer, so the server cancels the run.
    this.stop();
    document.removeEventListener("keydown", this.onShortcut);
    window.removeEventListener("storage", this.onStorage);
  }

  get endpoint() {
    return withSlash(new URL(this.getAttribute("endpoint") || ".", SCRIPT_URL).href);
  }

  /** Put the widget's strings into `node`: `data-t` names the text, `data-t-label` the accessible name. */
  localize(node) {
    for (const element of node.querySelectorAll("[data-t]")) element.textContent = this.t[element.dataset.t];
    for (const element of node.querySelectorAll("[data-t-label]")) element.setAttribute("aria-label", this.t[element.dataset.tLabel]);
  }

  open() {
    if (!this.inline && this.el.panel.hidden) this.returnFocus = focusedElement();
    this.el.panel.hidden = false;
    this.el.backdrop.hidden = this.inline;
    this.el.launcher.setAttribute("aria-expanded", "true");
    this.el.input.focus();
    this.loadSuggestions();
    // Opened (again, or after a reload): at the latest turn, not at the conversation's start.
    if (this.state !== "streaming") this.showTurn(this.el.transcript.lastElementChild);
  }

  /** Close the dialog; focus goes back where the reader was before it opened (else the launcher). */
  closePanel() {
    this.el.panel.hidden = true;
    this.el.backdrop.hidden = true;
    this.el.launcher.setAttribute("aria-expanded", "false");
    const back = this.returnFocus;
    this.returnFocus = null;
    if (back && back.isConnected && back !== document.body && !this.el.panel.contains(back)) {
      back.focus();
      if (focusedElement() === back) return;
    }
    this.el.launcher.focus();
  }

  /** Scroll the dialog's body so `turn` starts at its top (the page scrolls an inline widget). */
  showTurn(turn) {
    if (!turn) return;
    const { body } = this.el;
    const notice = this.el.threadNotice;
    // The first turn shows the notice above it (why a new conversation started), if any.
    const top = !notice.hidden && turn === this.el.transcript.firstElementChild ? notice : turn;
    body.scrollTop += top.getBoundingClientRect().top - body.getBoundingClientRect().top - parseFloat(getComputedStyle(body).paddingTop);
    this.autoScrolled = body.scrollTop;
  }

  /** The reader scrolled the dialog while an answer streams: it follows the stream only if they are at its end. */
  scrolled() {
    const { body } = this.el;
    if (this.state !== "streaming" || Math.abs(body.scrollTop - this.autoScrolled) <= 2) return; // our own scroll
    this.following = body.scrollHeight - body.clientHeight - body.scrollTop <= 2;
  }

  /** Keep the end of the streaming answer in view, while the reader follows it (`scrolled`). */
  follow() {
    if (!this.following || !this.current || this.inline) return;
    const { body } = this.el;
    body.scrollTop = body.scrollHeight;
    this.autoScrolled = body.scrollTop;
  }

  setState(state) {
    this.state = state;
    this.el.panel.dataset.state = state;
    const streaming = state === "streaming";
    this.el.stop.hidden = !streaming;
    this.el.send.disabled = streaming;
    this.el.transcript.setAttribute("aria-busy", String(streaming));
    if (!streaming) this.waiting(false);
    if (!streaming && this.shadowRoot.activeElement === this.el.stop) this.el.input.focus();
  }

  /** While an earlier answer on the thread streams elsewhere (409), the input waits too. */
  waiting(on) {
    const { input, stop } = this.el;
    if (on && this.shadowRoot.activeElement === input) stop.focus();
    input.disabled = on;
  }

  /** The idle panel: the intro and starter questions before the first question, follow-up hints after. */
  showIdle() {
    const started = this.el.transcript.children.length > 0;
    this.el.newConversation.hidden = !started;
    this.el.input.placeholder = this.searchOnly ? this.t.searchPlaceholder : started ? this.t.followUpPlaceholder : this.t.placeholder;
    this.el.suggestions.hidden = started || this.searchOnly || !this.el.suggestions.querySelector("li");
    if (!started) this.el.status.textContent = this.searchOnly ? "" : this.t.intro;
  }

  /** Starter questions: the `suggestions` attribute (a JSON list), else the server's (fetched once). */
  async loadSuggestions() {
    if (this.suggested) return;
    this.suggested = true;
    let questions;
    try {
      questions = JSON.parse(this.getAttribute("suggestions"));
    } catch {
      questions = null;
    }
    if (!Array.isArray(questions)) questions = this.hasAttribute("suggestions") ? [] : await fetchSuggestions(this.endpoint);
    const items = questions.filter((q) => typeof q === "string" && q.trim()).map((question) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.askaiSuggestion = "";
      button.textContent = question.trim();
      const item = document.createElement("li");
      item.append(button);
      return item;
    });
    this.el.suggestions.querySelector("ul").replaceChildren(...items);
    if (this.state !== "streaming") this.showIdle();
  }

  /** `?askai=QUESTION` on the page opens the widget and asks it, as a conversation of its own.
   * A conversation already in progress is not replaced unasked: the question waits in the box,
   * and a notice says to press Ask to add it, or New conversation to start over. */
  askFromLink() {
    if (!this.linkParam) return;
    const url = new URL(location.href);
    const question = url.searchParams.get(this.linkParam);
    if (!question || !question.trim()) return;
    // Asked once: a reload of the page goes on with the conversation instead of asking again.
    url.searchParams.delete(this.linkParam);
    history.replaceState(history.state, "", url.href);
    if (this.conversation.turns.length) {
      if (!this.inline) this.open();
      this.el.input.value = question.trim();
      this.el.threadNotice.textContent = this.t.linkWaits;
      this.el.threadNotice.hidden = false;
      this.el.body.scrollTop = 0;
      this.el.input.focus();
      return;
    }
    this.newConversation();
    if (!this.inline) this.open();
    this.ask(question);
  }

  /** A link to this page that asks `question` (the `link-param` parameter). */
  shareLink(question) {
    const url = new URL(location.href);
    url.hash = "";
    url.searchParams.set(this.linkParam, question);
    return url.href;
  }

  newConversation() {
    this.stop();
    this.conversation.clear();
    this.current = null;
    this.el.transcript.replaceChildren();
    this.el.threadNotice.hidden = true;
    this.el.error.hidden = true;
    this.showIdle();
    this.el.input.focus();
  }

  /** Start answering (`searchId`: the launcher search it is asked from); false when there is nothing to ask or an answer is still streaming. */
  ask(rawQuestion, { searchId = null } = {}) {
    const question = (rawQuestion || "").trim();
    if (!question || this.state === "streaming" || this.searchOnly) return false;
    if (!this.el.threadNotice.hidden && this.el.threadNotice.textContent === this.t.linkWaits) this.el.threadNotice.hidden = true;
    this.run(question, searchId);
    return true;
  }

  /** Show a finished turn kept from earlier (another page of the site, a reload). */
  restore(record) {
    const turn = new Turn(this, record);
    turn.finish(record.done, Array.isArray(record.sources) ? record.sources : []);
    turn.archive();
    this.el.transcript.append(turn.node);
    const diagrams = turn.node.querySelectorAll("[data-askai-mermaid]");
    if (diagrams.length) renderMermaid(diagrams, new URL("static/", SCRIPT_URL).href);
  }

  begin(question) {
    // A turn that never finished (stopped, failed) is replaced; a finished one joins the transcript.
    if (this.current && !this.current.record.done) this.current.node.remove();
    else if (this.current) this.current.archive();
    this.current = new Turn(this, { question, text: "", sources: [], done: null, rating: null });
    this.sources = [];
    this.firstToken = true;
    for (const mark of ["askai:first-token", "askai:first-text", "askai:first-frame"]) performance.clearMarks(mark);
    // What the view holds besides the turn changes first: the open result list takes height
    // from the body, and the turn is measured against the body's height.
    this.el.status.textContent = this.t.searching;
    this.el.steps.replaceChildren();
    this.el.error.hidden = true;
    this.el.suggestions.hidden = true;
    this.search.hide();
    const { transcript, body } = this.el;
    for (const turn of transcript.children) turn.style.minHeight = "";
    transcript.append(this.current.node);
    while (transcript.children.length > KEPT_TURNS) transcript.firstElementChild.remove();
    // The new turn moves to the top of the view once, as it starts, and the answer streams in
    // below it: the turn is given the view's height, so it can reach the top before its answer
    // is long enough (else it sits low, then jumps up). The view then moves only with the
    // reader, or with the stream once the reader has scrolled to its end (`scrolled`).
    this.following = false;
    if (this.inline) this.current.node.scrollIntoView({ block: "nearest" });
    else {
      const style = getComputedStyle(body);
      const height = body.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      this.current.node.style.minHeight = `${Math.max(0, height)}px`;
      this.showTurn(this.current.node);
    }
  }

  async run(question, searchId = null) {
    this.lastQuestion = question;
    this.begin(question);
    const controller = (this.controller = new AbortController());
    this.setState("streaming");
    // persist="local": the thread another tab's latest answer is on (storage holds the truth).
    if (this.conversation.storage) this.conversation.load();
    const body = { message: question, ...pageScope(this) };
    if (this.conversation.threadId) body.thread_id = this.conversation.threadId;
    if (body.thread_id && this.conversation.threadToken) body.thread_token = this.conversation.threadToken;
    if (searchId) body.search_id = searchId;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      let done = null;
      try {
        await streamChat(this.endpoint, body, {
          signal: controller.signal,
          onEvent: (name, data) => {
            if (name === "done") done = data;
            this.onEvent(name, data);
          },
        });
        if (this.state === "streaming" && !done) this.fail(this.t.cutOff);
        return;
      } catch (error) {
        if (error.name === "AbortError") return;
        if (!(error instanceof HttpError)) return this.fail(await this.unreachable());
        if (error.status === 404 && body.thread_id) {
          // The thread expired on the server: this question starts a new conversation, on
          // screen as in storage (the old turns go), under a notice that says so.
          delete body.thread_id;
          delete body.thread_token;
          this.conversation.clear();
          for (const node of [...this.el.transcript.children]) if (node !== this.current.node) node.remove();
          this.el.threadNotice.textContent = this.t.expired;
          this.el.threadNotice.hidden = false;
          if (this.inline) this.el.threadNotice.scrollIntoView({ block: "nearest" });
          else this.showTurn(this.current.node);
          continue;
        }
        if (error.status === 409 && Date.now() - started < WAIT_LIMIT_MS) {
          this.waiting(true);
          this.el.status.textContent = this.t.waiting;
          try {
            await pause(WAIT_MS[Math.min(attempt, WAIT_MS.length - 1)], controller.signal);
          } catch {
            return; // stopped while waiting
          }
          continue;
        }
        return this.fail(this.refusal(error));
      }
    }
  }

  /** Why the request failed without an answer: a browser hides whether the server refused
   * this page's origin (CORS) or could not be reached at all. A second, opaque request
   * (mode "no-cors", which CORS does not block) tells them apart: if it gets through, the
   * server is up and refused the origin. */
  async unreachable() {
    const endpoint = new URL(this.endpoint);
    if (endpoint.origin === location.origin) return this.t.unreachable;
    return (await reachable(endpoint)) ? format(this.t.originRefused, location.origin) : this.t.unreachable;
  }

  refusal(error) {
    if (error.status === 429) return this.t.tooMany;
    if (error.status === 503) return this.t.busy;
    return error.message || format(this.t.httpStatus, error.status);
  }

  onEvent(name, data) {
    if (this.state !== "streaming") return;
    // The thread's token is the conversation's secret: it goes to the conversation's storage,
    // never to the page's listeners (an analytics export must not carry it) nor into a turn.
    let token = null;
    if (name === "done" && data && typeof data === "object") {
      const { thread_token: secret, ...rest } = data;
      token = secret;
      data = rest;
    }
    // Site owners' analytics and tests can follow the stream without a second request.
    this.dispatchEvent(new CustomEvent("askai:event", { detail: { name, data }, bubbles: true, composed: true }));
    if (name === "step") this.onStep(data);
    else if (name === "token") this.onToken(data);
    else if (name === "sources") this.sources = Array.isArray(data) ? data : [];
    else if (name === "done") this.onDone(data, token);
    else if (name === "error") this.fail(data.message || this.t.failed);
  }

  onStep(step) {
    const item = document.createElement("li");
    item.dataset.askaiStep = step.node;
    item.textContent = step.node;
    this.el.steps.append(item);
    const label = progressLabel(this.t, step);
    if (label) this.el.status.textContent = label;
  }

  onToken(token) {
    this.current.record.text += token.text || "";
    if (this.firstToken) {
      // The first text goes on screen at once; later tokens are batched per frame.
      this.firstToken = false;
      performance.mark("askai:first-token");
      this.current.render();
      this.follow();
      performance.mark("askai:first-text");
      requestAnimationFrame(() => performance.mark("askai:first-frame"));
      return;
    }
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.current.render();
      this.follow();
    });
  }

  onDone(done, token) {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    const turn = this.current;
    turn.finish(done, this.sources);
    this.follow();
    this.conversation.add(turn.record, token);
    this.el.status.textContent = this.t.ready;
    this.setState("done");
    this.showIdle();
    const diagrams = turn.node.querySelectorAll("[data-askai-mermaid]");
    if (diagrams.length) renderMermaid(diagrams, new URL("static/", SCRIPT_URL).href);
  }

  fail(message) {
    this.el.errorText.textContent = message;
    this.el.error.hidden = false;
    this.el.status.textContent = "";
    this.setState("error");
  }

  stop() {
    if (this.state !== "streaming") return;
    this.controller.abort();
    this.el.status.textContent = this.t.stopped;
    this.setState("idle");
  }
}

if (!customElements.get("askai-widget")) customElements.define("askai-widget", AskAiWidget);
