// Every string the reader sees, in English. A site in another language passes its own as
// JSON in the `strings` attribute; a missing or non-string key keeps the English default.
// `{n}` stands for a number (the attempt, the HTTP status) or the page's origin.
export const STRINGS = Object.freeze({
  launcher: "Ask AI",
  title: "Ask AI",
  close: "Close Ask AI",
  newConversation: "New conversation",
  intro: "Ask a question about this site's articles.",
  inputLabel: "Your question",
  placeholder: "Ask a question…",
  followUpPlaceholder: "Ask a follow-up…",
  send: "Ask",
  stop: "Stop",
  retry: "Retry",
  suggestions: "Try asking",
  askRow: "Ask AI: {n}",
  searchResults: "Pages and answers",
  noResults: "No pages match “{n}”.",
  noResultsAsk: "No pages match “{n}”: press Enter to ask instead.",
  recentSearches: "Recent searches",
  searchPlaceholder: "Search the docs…",
  searchOnlyTitle: "Search",
  searching: "Searching the articles…",
  writing: "Writing…",
  checking: "Checking links…",
  reviewing: "Reviewing…",
  finishing: "Finishing…",
  revising: "Revising…",
  attempt: " (attempt {n})",
  ready: "Answer ready.",
  stopped: "Stopped.",
  waiting: "An earlier answer in this conversation is still being written; your question follows it.",
  expired: "That conversation had expired, so this question starts a new one.",
  linkWaits: "The link's question is in the box below: press Ask to add it to this conversation, or New conversation to start over.",
  cached: "Answered from cache",
  sources: "Sources",
  earlyNoSources: "Sources are hidden because the answer was not confirmed by review (low confidence).",
  degradedNoSources: "Sources are hidden because the answer could not be fully verified by review.",
  notFound: "I couldn't find this in the site's articles.",
  fallbackNoSources: "Sources are hidden because no draft passed the checks on its links and review.",
  failedNoSources: "Sources are hidden because the answer did not pass every check.",
  cutOff: "The answer was cut off. Please try again.",
  unreachable: "Could not reach the Ask AI server. Check your connection and try again.",
  originRefused: "The Ask AI server refused this site ({n}). Its owner can allow it with ASKAI_CORS_ORIGINS.",
  failed: "Something went wrong while answering.",
  httpStatus: "The server answered {n}.",
  tooMany: "Too many questions in a short time; wait a moment and try again.",
  busy: "The server is busy; try again in a moment.",
  copy: "Copy",
  codeBlock: "Code",
  copied: "Copied",
  copyFailed: "Copy failed",
  copyAnswer: "Copy as Markdown",
  share: "Share",
  linkCopied: "Link copied",
  helpful: "Helpful",
  notHelpful: "Not helpful",
  commentLabel: "What was missing or wrong? (optional)",
  sendComment: "Send",
  thanks: "Thanks for your feedback.",
  feedbackOff: "Feedback is not recorded for this answer.",
  feedbackFailed: "Could not send your feedback; try again.",
});

/** The defaults with the site's overrides from a `strings` JSON attribute (ignored when malformed). */
export function readStrings(json) {
  let custom = {};
  try {
    custom = JSON.parse(json || "{}") || {};
  } catch {
    // A malformed attribute keeps every default.
  }
  const strings = { ...STRINGS };
  for (const key of Object.keys(STRINGS)) if (typeof custom[key] === "string") strings[key] = custom[key];
  return strings;
}

export const format = (text, n) => text.replace("{n}", n);
