// The reader's conversation with one endpoint: the server's thread_id, the thread_token that
// proves it is this reader's (the server refuses the id without it), and the finished turns,
// kept per tab (sessionStorage) so a reader moving between the site's pages goes on
// with the same conversation; `persist="local"` keeps it across tabs and visits
// (localStorage), `persist="none"` nowhere. Storage that refuses (private modes, quota) just
// means the conversation lasts as long as the page.
//
// With `persist="local"` several tabs share one stored conversation. Each tab writes only
// its own change (a turn added, a rating, a clear) onto what storage holds at that moment,
// never its whole in-memory copy: two tabs answering at once both keep their turns, merged
// by turn, and a question continues the thread the latest answer in any tab was on.
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

/** What identifies a turn across tabs: the server's run id, its question and its answer. */
function turnKey(turn) {
  return JSON.stringify([turn.done?.run_id ?? null, turn.question, turn.text]);
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
    this.load();
  }

  /** Read the stored conversation into this one (nothing stored: an empty one). */
  load() {
    const saved = this.read();
    this.threadId = saved.threadId;
    this.threadToken = saved.threadToken;
    this.turns = saved.turns;
  }

  /** The conversation as storage holds it now (another tab may have written since). */
  read() {
    const empty = { threadId: null, threadToken: null, turns: [] };
    try {
      const saved = JSON.parse(this.storage?.getItem(this.key) || "null");
      if (!saved || !Array.isArray(saved.turns)) return empty;
      const threadId = typeof saved.threadId === "string" ? saved.threadId : null;
      return {
        threadId,
        threadToken: threadId && typeof saved.threadToken === "string" ? saved.threadToken : null,
        turns: saved.turns.slice(-KEPT_TURNS).filter((turn) => turn && typeof turn.question === "string" && typeof turn.text === "string" && turn.done),
      };
    } catch {
      return empty; // unreadable: start afresh
    }
  }

  /** Whether `event` (a window "storage" event) changed this conversation in another tab. */
  changedBy(event) {
    return Boolean(this.storage) && event.storageArea === this.storage && (event.key === this.key || event.key === null);
  }

  /** Record a finished turn; its `done` names the thread the next question continues, `token` owns it. */
  add(turn, token) {
    this.update((saved) => {
      if (typeof turn.done.thread_id === "string") {
        saved.threadId = turn.done.thread_id;
        saved.threadToken = typeof token === "string" ? token : null;
      }
      saved.turns = [...saved.turns, turn];
    });
  }

  /** Keep a change to `turn` (its rating), already made in memory. */
  changed(turn) {
    const key = turnKey(turn);
    this.update((saved) => {
      saved.turns = saved.turns.map((kept) => (turnKey(kept) === key ? turn : kept));
    });
  }

  /** Forget the thread and every turn (a new conversation). */
  clear() {
    this.update((saved) => {
      saved.threadId = null;
      saved.threadToken = null;
      saved.turns = [];
    });
  }

  /** Apply `change` to the stored conversation (re-read first) and keep the result here too. */
  update(change) {
    const saved = this.storage ? this.read() : { threadId: this.threadId, threadToken: this.threadToken, turns: this.turns };
    change(saved);
    saved.turns = saved.turns.slice(-KEPT_TURNS);
    ({ threadId: this.threadId, threadToken: this.threadToken, turns: this.turns } = saved);
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
      // Full or blocked: from now on the page keeps the conversation in memory.
      this.storage = null;
    }
  }
}
