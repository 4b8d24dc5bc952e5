// <askai-widget endpoint="https://host:port" [inline]>: the Ask AI panel in an open shadow
// root. The hooks (data-askai, data-state, data-askai-input, -answer, -source,
// -gate-notice, -stop) are a public contract: site owners' tests depend on them.
import { createRenderer } from "./markdown.js";
import { renderMermaid } from "./mermaid.js";
import { FIRST_PROGRESS, gateNotice, progressLabel } from "./notice.js";
import { HttpError, streamChat } from "./stream.js";
import STYLES from "./styles.css";
import TEMPLATE from "./template.html";

// Where this script was loaded from: the default endpoint and the base of lazy assets.
const SCRIPT_URL = document.currentScript ? document.currentScript.src : location.href;
const md = createRenderer();

function withSlash(url) {
  return url.endsWith("/") ? url : `${url}/`;
}

function describeUrl(href) {
  try {
    const url = new URL(href);
    return url.host + (url.pathname === "/" ? "" : url.pathname);
  } catch {
    return href;
  }
}

class AskAiWidget extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = `<style>${STYLES}</style>${TEMPLATE}`;
    const $ = (selector) => root.querySelector(selector);
    this.el = {
      launcher: $("[data-askai-open]"),
      panel: $("[data-askai]"),
      close: $("[data-askai-close]"),
      form: $("form"),
      input: $("[data-askai-input]"),
      send: $("[data-askai-send]"),
      stop: $("[data-askai-stop]"),
      question: $("[data-askai-question]"),
      status: $("[data-askai-status]"),
      steps: $("[data-askai-steps]"),
      answer: $("[data-askai-answer]"),
      notice: $("[data-askai-gate-notice]"),
      cache: $("[data-askai-cache]"),
      sources: $("[data-askai-sources]"),
      sourceList: $("[data-askai-sources] ul"),
      error: $("[data-askai-error]"),
      errorText: $("[data-askai-error] p"),
      retry: $("[data-askai-retry]"),
    };
    this.inline = this.hasAttribute("inline");
    this.el.panel.classList.toggle("inline", this.inline);
    this.el.launcher.hidden = this.inline;
    this.el.close.hidden = this.inline;
    this.el.panel.hidden = !this.inline;
    if (!this.inline) {
      this.el.panel.setAttribute("role", "dialog");
      this.el.panel.setAttribute("aria-modal", "false");
    }
    this.el.launcher.addEventListener("click", () => this.open());
    this.el.close.addEventListener("click", () => this.closePanel());
    this.el.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !this.inline) {
        event.preventDefault();
        this.closePanel();
      }
    });
    this.el.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const question = this.el.input.value;
      if (this.ask(question)) this.el.input.value = "";
    });
    this.el.stop.addEventListener("click", () => this.stop());
    this.el.retry.addEventListener("click", () => {
      this.ask(this.lastQuestion);
      this.el.input.focus(); // the Retry button hides itself: keep the keyboard user in the form
    });
    this.el.answer.addEventListener("click", (event) => this.copy(event));
    this.setState("idle");
  }

  disconnectedCallback() {
    // A widget removed from the page stops its answer, so the server cancels the run.
    this.stop();
  }

  get endpoint() {
    return withSlash(new URL(this.getAttribute("endpoint") || ".", SCRIPT_URL).href);
  }

  open() {
    this.el.panel.hidden = false;
    this.el.launcher.setAttribute("aria-expanded", "true");
    this.el.input.focus();
  }

  closePanel() {
    this.el.panel.hidden = true;
    this.el.launcher.setAttribute("aria-expanded", "false");
    this.el.launcher.focus();
  }

  setState(state) {
    this.state = state;
    this.el.panel.dataset.state = state;
    const streaming = state === "streaming";
    this.el.stop.hidden = !streaming;
    this.el.send.disabled = streaming;
    this.el.answer.setAttribute("aria-busy", String(streaming));
    if (!streaming && this.shadowRoot.activeElement === this.el.stop) this.el.input.focus();
  }

  reset(question) {
    this.text = "";
    this.sources = [];
    this.firstToken = true;
    for (const mark of ["askai:first-token", "askai:first-text", "askai:first-frame"]) performance.clearMarks(mark);
    this.el.question.textContent = question;
    this.el.question.hidden = false;
    this.el.status.textContent = FIRST_PROGRESS;
    this.el.steps.replaceChildren();
    this.el.answer.replaceChildren();
    this.el.notice.hidden = true;
    this.el.cache.hidden = true;
    this.el.sources.hidden = true;
    this.el.sourceList.replaceChildren();
    this.el.error.hidden = true;
  }

  /** Start answering; false when there is nothing to ask or an answer is still streaming. */
  ask(rawQuestion) {
    const question = (rawQuestion || "").trim();
    if (!question || this.state === "streaming") return false;
    this.run(question);
    return true;
  }

  async run(question) {
    this.lastQuestion = question;
    this.reset(question);
    this.controller = new AbortController();
    this.setState("streaming");
    let done = null;
    try {
      await streamChat(this.endpoint, question, {
        signal: this.controller.signal,
        onEvent: (name, data) => {
          if (name === "done") done = data;
          this.onEvent(name, data);
        },
      });
      if (this.state === "streaming" && !done) this.fail("The answer was cut off. Please try again.");
    } catch (error) {
      if (error.name === "AbortError") return;
      this.fail(error instanceof HttpError ? error.message : "Could not reach the Ask AI server. Check your connection and try again.");
    }
  }

  onEvent(name, data) {
    if (this.state !== "streaming") return;
    // Site owners' analytics and tests can follow the stream without a second request.
    this.dispatchEvent(new CustomEvent("askai:event", { detail: { name, data }, bubbles: true, composed: true }));
    if (name === "step") this.onStep(data);
    else if (name === "token") this.onToken(data);
    else if (name === "sources") this.sources = Array.isArray(data) ? data : [];
    else if (name === "done") this.onDone(data);
    else if (name === "error") this.fail(data.message || "Something went wrong while answering.");
  }

  onStep(step) {
    const item = document.createElement("li");
    item.dataset.askaiStep = step.node;
    item.textContent = step.node;
    this.el.steps.append(item);
    const label = progressLabel(step);
    if (label) this.el.status.textContent = label;
  }

  onToken(token) {
    this.text += token.text || "";
    if (this.firstToken) {
      // The first text goes on screen at once; later tokens are batched per frame.
      this.firstToken = false;
      performance.mark("askai:first-token");
      this.render();
      performance.mark("askai:first-text");
      requestAnimationFrame(() => performance.mark("askai:first-frame"));
      return;
    }
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  render() {
    this.el.answer.innerHTML = md.render(this.text);
  }

  onDone(done) {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.render();
    this.el.status.textContent = "Answer ready.";
    this.el.cache.hidden = !done.cached;
    this.showSources();
    const notice = gateNotice(done, this.el.sourceList.children.length > 0);
    this.el.notice.textContent = notice || "";
    this.el.notice.hidden = !notice;
    this.setState("done");
    const diagrams = this.el.answer.querySelectorAll("[data-askai-mermaid]");
    if (diagrams.length) renderMermaid(diagrams, new URL("static/", SCRIPT_URL).href);
  }

  showSources() {
    // Sources are retrieved http(s) URLs; anything else (a javascript: URL) is never a card.
    const safe = this.sources.filter((source) => typeof source.url === "string" && /^https?:\/\//i.test(source.url));
    const cards = safe.map((source) => {
      const card = document.createElement("a");
      card.dataset.askaiSource = "";
      card.href = source.url;
      card.target = "_blank";
      card.rel = "noopener noreferrer";
      const title = document.createElement("span");
      title.className = "title";
      title.textContent = source.title || describeUrl(source.url);
      const where = document.createElement("span");
      where.className = "where";
      where.textContent = describeUrl(source.url);
      card.append(title, where);
      const item = document.createElement("li");
      item.append(card);
      return item;
    });
    this.el.sourceList.replaceChildren(...cards);
    this.el.sources.hidden = cards.length === 0;
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
    this.el.status.textContent = "Stopped.";
    this.setState("idle");
  }

  async copy(event) {
    const button = event.target.closest("[data-askai-copy]");
    if (!button) return;
    const code = button.parentElement.querySelector("code");
    try {
      await navigator.clipboard.writeText(code.textContent);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy failed";
    }
    setTimeout(() => (button.textContent = "Copy"), 1500);
  }
}

if (!customElements.get("askai-widget")) customElements.define("askai-widget", AskAiWidget);
