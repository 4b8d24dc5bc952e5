// One question and its answer in the transcript: the rendered Markdown, the source cards or
// the reason there are none, and the answer's own controls (thumbs, copy as Markdown, share).
// Only the latest turn carries the public hooks data-askai-question, -answer, -cache,
// -gate-notice and a[data-askai-source]; `archive()` takes them off when the next
// question starts, so a site's tests always find the current answer.
import { sendFeedback, HttpError } from "./api.js";
import { gateNotice } from "./notice.js";

const LATEST_ONLY = ["data-askai-question", "data-askai-answer", "data-askai-cache", "data-askai-gate-notice", "data-askai-source"];

function describeUrl(href) {
  try {
    const url = new URL(href);
    return url.host + (url.pathname === "/" ? "" : url.pathname);
  } catch {
    return href;
  }
}

/** Where a card links: its anchored place on the page when that is the same page (its URL plus a
 * fragment), else the page itself. The server validated it; the widget still never links elsewhere. */
function evidenceLink(source) {
  const anchor = source.anchor_url;
  if (typeof anchor === "string" && anchor.startsWith(source.url) && anchor.charAt(source.url.length) === "#") return anchor;
  return source.url;
}

/** Show `text` on `button` for a moment, then its label again. */
function flash(button, text) {
  const label = button.dataset.label ?? (button.dataset.label = button.textContent);
  button.textContent = text;
  clearTimeout(button.flash);
  button.flash = setTimeout(() => (button.textContent = label), 1500);
}

async function copyText(button, text, t, done = t.copied) {
  try {
    await navigator.clipboard.writeText(text);
    flash(button, done);
  } catch {
    flash(button, t.copyFailed);
  }
}

export class Turn {
  /** A new turn for `question` in `widget` (its strings, renderer, endpoint and conversation). */
  constructor(widget, record) {
    this.widget = widget;
    this.t = widget.t;
    this.record = record;
    this.node = widget.turnTemplate.content.firstElementChild.cloneNode(true);
    widget.localize(this.node);
    const $ = (selector) => this.node.querySelector(selector);
    this.el = {
      answer: $("[data-askai-answer]"),
      cache: $("[data-askai-cache]"),
      notice: $("[data-askai-gate-notice]"),
      sources: $("[data-askai-sources]"),
      actions: $("[data-askai-actions]"),
      thumbs: [...this.node.querySelectorAll("[data-askai-feedback]")],
      share: $("[data-askai-share]"),
      said: $("[data-askai-said]"),
      comment: $("[data-askai-comment]"),
      commentInput: $("[data-askai-comment-input]"),
    };
    $("[data-askai-question]").textContent = record.question;
    this.el.share.hidden = !widget.linkParam;
    this.node.addEventListener("click", (event) => this.onClick(event));
    this.el.comment.addEventListener("submit", (event) => {
      event.preventDefault();
      this.rate("down", this.el.commentInput.value.trim());
    });
  }

  render() {
    this.el.answer.innerHTML = this.widget.md.render(this.record.text, { copy: this.t.copy, code: this.t.codeBlock });
  }

  /** The answer is complete: its cards (or why there are none) and its controls. */
  finish(done, sources) {
    const record = this.record;
    record.done = done;
    // Sources are retrieved http(s) URLs; anything else (a javascript: URL) is never a card.
    record.sources = sources.filter((source) => typeof source.url === "string" && /^https?:\/\//i.test(source.url));
    this.render();
    this.el.cache.hidden = !done.cached;
    const cards = record.sources.map((source) => {
      const card = document.createElement("a");
      card.dataset.askaiSource = "";
      card.href = evidenceLink(source);
      card.target = "_blank";
      card.rel = "noopener noreferrer";
      const title = document.createElement("span");
      title.className = "title";
      title.textContent = source.title || describeUrl(source.url);
      card.append(title);
      // The evidence: the section as a subtitle, then the passage the answer rests on.
      if (typeof source.section === "string" && source.section) {
        const section = document.createElement("span");
        section.className = "section";
        section.textContent = source.section;
        card.append(section);
      }
      if (typeof source.quote === "string" && source.quote) {
        const quote = document.createElement("q");
        quote.className = "quote";
        quote.textContent = source.quote;
        card.append(quote);
      }
      const where = document.createElement("span");
      where.className = "where";
      where.textContent = describeUrl(source.url);
      card.append(where);
      const item = document.createElement("li");
      item.append(card);
      return item;
    });
    this.el.sources.querySelector("ul").replaceChildren(...cards);
    this.el.sources.hidden = cards.length === 0;
    const notice = gateNotice(this.t, done, cards.length > 0);
    this.el.notice.textContent = notice || "";
    this.el.notice.hidden = !notice;
    this.el.actions.hidden = false;
    this.showRating();
  }

  /** The chosen thumb is pressed; without a run_id (or refused by the server) neither can be. */
  showRating() {
    const { rating, done, feedbackOff } = this.record;
    for (const thumb of this.el.thumbs) {
      thumb.setAttribute("aria-pressed", String(thumb.dataset.askaiFeedback === rating));
      thumb.disabled = !done.run_id || Boolean(feedbackOff);
    }
  }

  /** Take the latest-answer hooks off: this turn is now part of the transcript. */
  archive() {
    for (const name of LATEST_ONLY) {
      for (const element of this.node.querySelectorAll(`[${name}]`)) element.removeAttribute(name);
    }
  }

  onClick(event) {
    const button = event.target.closest("button");
    if (!button) return;
    const t = this.t;
    if (button.matches("[data-askai-copy]")) copyText(button, button.parentElement.querySelector("code").textContent, t);
    else if (button.matches("[data-askai-copy-answer]")) copyText(button, this.markdown(), t);
    else if (button.matches("[data-askai-share]")) copyText(button, this.widget.shareLink(this.record.question), t, t.linkCopied);
    else if (button.dataset.askaiFeedback) this.rate(button.dataset.askaiFeedback);
  }

  /** The answer as the server wrote it, with its source cards as a Markdown list. */
  markdown() {
    const { text, sources } = this.record;
    if (!sources.length) return text;
    const links = sources.map((source) => `- [${(source.title || source.url).replace(/[[\]]/g, "\\$&")}](<${source.url}>)`);
    return `${text.trimEnd()}\n\n${this.t.sources}:\n\n${links.join("\n")}\n`;
  }

  /** Hide the comment form (when `hide`); a keyboard user in it goes back to the chosen thumb. */
  closeComment(hide) {
    const { comment, thumbs } = this.el;
    const focused = comment.contains(this.node.getRootNode().activeElement);
    comment.hidden = hide;
    if (hide && focused) thumbs[1].focus();
  }

  /** Send a rating once per choice (a repeated click on the chosen thumb sends nothing). */
  async rate(rating, comment) {
    const record = this.record;
    const run_id = record.done?.run_id;
    if (this.pending || !run_id || record.feedbackOff) return;
    if (comment === undefined && rating === record.rating) return;
    if (comment === "") return this.closeComment(true);
    this.pending = true;
    try {
      await sendFeedback(this.widget.endpoint, comment ? { run_id, rating, comment } : { run_id, rating });
      record.rating = rating;
      this.el.said.textContent = this.t.thanks;
      // After thumbs down, an optional word on what was wrong; sending it closes the form.
      this.closeComment(rating !== "down" || comment !== undefined);
      if (!this.el.comment.hidden) this.el.commentInput.focus();
    } catch (error) {
      const refused = error instanceof HttpError && error.status !== 429 && error.status < 500;
      record.feedbackOff = refused;
      this.el.said.textContent = refused ? this.t.feedbackOff : this.t.feedbackFailed;
      if (refused) this.closeComment(true);
    } finally {
      this.pending = false;
    }
    this.showRating();
    this.widget.conversation.changed(record);
  }
}
