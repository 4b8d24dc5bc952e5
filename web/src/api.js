// The widget's requests: ask (POST /api/chat, Server-Sent Events), rate an answer
// (POST /api/feedback), fetch starter questions (GET /api/suggestions), search as the
// reader types (GET /api/search) and log the result opened (POST /api/search/click).
// EventSource cannot POST, so the answer is read with fetch and parsed by eventsource-parser.
import { createParser } from "eventsource-parser";

/** A refusal (4xx/5xx): its status and the server's `detail`, if it sent one. */
export class HttpError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

const JSON_HEADERS = { "Content-Type": "application/json" };

async function refusal(response) {
  let detail = "";
  try {
    const body = await response.json();
    if (typeof body.detail === "string") detail = body.detail;
  } catch {
    // Not JSON: the status alone.
  }
  return new HttpError(response.status, detail);
}

/** Ask `body` ({message, thread_id?, thread_token?}) and hand each event to `onEvent(name, data)`. */
export async function streamChat(endpoint, body, { signal, onEvent }) {
  const response = await fetch(new URL("api/chat", endpoint), {
    method: "POST",
    headers: { ...JSON_HEADERS, Accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await refusal(response);
  const parser = createParser({
    onEvent(event) {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // a malformed event is skipped, never rendered
      }
      onEvent(event.event || "message", data);
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}

/** Rate the answer of `run_id`; throws HttpError when the server refuses. */
export async function sendFeedback(endpoint, body) {
  const response = await fetch(new URL("api/feedback", endpoint), {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await refusal(response);
}

/** Tell the server which search result the reader opened ({query, url}), for the site owner's
 * search log. `keepalive` lets the request outlive the page the reader is leaving (sendBeacon
 * cannot send JSON to another origin without a preflight it never makes). Never throws: a lost
 * click must not stop the reader reaching the page. */
export function sendSearchClick(endpoint, body) {
  try {
    fetch(new URL("api/search/click", endpoint), {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify(body),
      keepalive: true,
    }).catch(() => {});
  } catch {
    // An endpoint that is not a URL: nothing to tell.
  }
}

/** Whether the server at `endpoint` answers at all: an opaque ("no-cors") request, which CORS
 * never blocks, so it fails only when the server cannot be reached. */
export async function reachable(endpoint) {
  try {
    await fetch(new URL("healthz", endpoint), { mode: "no-cors", cache: "no-store" });
    return true;
  } catch {
    return false;
  }
}

/** The server's starter questions (none when it has none or cannot be reached). */
export async function fetchSuggestions(endpoint) {
  try {
    const response = await fetch(new URL("api/suggestions", endpoint));
    const body = response.ok ? await response.json() : {};
    return Array.isArray(body.suggestions) ? body.suggestions : [];
  } catch {
    return [];
  }
}

/** The pages and sections matching `query` (GET /api/search); throws HttpError on a refusal, AbortError when aborted. */
export async function searchPages(endpoint, query, signal, scope = {}) {
  const url = new URL("api/search", endpoint);
  url.searchParams.set("q", query);
  for (const [name, value] of Object.entries(scope)) url.searchParams.set(name, value);
  const response = await fetch(url, { signal });
  if (!response.ok) throw await refusal(response);
  return response.json();
}
