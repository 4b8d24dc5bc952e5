// POST a question and hand each Server-Sent Event to `onEvent(name, data)`.
// EventSource cannot POST, so the body is read with fetch and parsed by eventsource-parser.
import { createParser } from "eventsource-parser";

export class HttpError extends Error {}

export async function streamChat(endpoint, message, { signal, onEvent }) {
  const response = await fetch(new URL("api/chat", endpoint), {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ message }),
    signal,
  });
  if (!response.ok) {
    let detail = `The server answered ${response.status}.`;
    try {
      const body = await response.json();
      if (typeof body.detail === "string") detail = body.detail;
    } catch {
      // Not JSON: keep the status line.
    }
    throw new HttpError(detail);
  }
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
