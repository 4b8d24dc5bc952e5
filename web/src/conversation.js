// The reader's conversation with one endpoint: the server's thread_id, the thread_token that
// proves it is this reader's (the server refuses the id without it), and the finished turns,
// kept per tab (sessionStorage) so a reader moving between the site's pages goes on
// with the same conversation; `persist="local"` keeps it across tabs and visits
// (localStorage), `persist="none"` nowhere. Storage that refuses (private modes, quota) just
// means the conversation lasts as long as the page.
/** Turns kept (in storage and on screen): a long conversation drops its oldest. */
export const KEPT_TURNS = 20;

function storageFor(persist) {
  try {
    if (persist === "none") return null;
    return persist === "local" ? localStorage : sessionStorage;
  } catch {
    return null; // storage blocked for this origin
  }
}

export class Conversation {
  constructor(endpoint, persist) {
    this.key = `askai:${endpoint}`;
    this.storage = storageFor(persist);
    this.threadId = null;
    /** The thread's secret: sent with its id, never shown or handed to the page. */
    this.threadToken = null;
    /** Finished turns: {question, text, sources, done, rating}. */
    this.turns = [];
    try {
      const saved = JSON.parse(this.storage?.getItem(this.key) || "null");
      if (saved && Array.isArray(saved.turns)) {
        this.threadId = typeof saved.threadId === "string" ? saved.threadId : null;
        this.threadToken = this.threadId && typeof saved.threadToken === "string" ? saved.threadToken : null;
        this.turns = saved.turns.slice(-KEPT_TURNS).filter((turn) => turn && typeof turn.question === "string" && typeof turn.text === "string" && turn.done);
      }
    } catch {
      // Unreadable: start afresh.
    }
  }

  /** Record a finished turn; its `done` names the thread the next question continues, `token` owns it. */
  add(turn, token) {
    if (typeof turn.done.thread_id === "string") {
      this.threadId = turn.done.thread_id;
      this.threadToken = typeof token === "string" ? token : null;
    }
    this.turns = [...this.turns, turn].slice(-KEPT_TURNS);
    this.save();
  }

  /** Forget the thread and every turn (a new conversation). */
  clear() {
    this.threadId = null;
    this.threadToken = null;
    this.turns = [];
    this.save();
  }

  save() {
    try {
      if (!this.threadId && !this.turns.length) this.storage?.removeItem(this.key);
      else {
        const { threadId, threadToken, turns } = this;
        this.storage?.setItem(this.key, JSON.stringify({ threadId, threadToken, turns }));
      }
    } catch {
      // Full or blocked: the page keeps the conversation in memory.
    }
  }
}
