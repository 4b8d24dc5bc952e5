// Plain-language reasons for an answer without source cards, from `done`'s outcome and gates.

const PROGRESS_AFTER = {
  research: "Writing…",
  writer: "Checking links…",
  validation: "Reviewing…",
  critic: "Finishing…",
};

/** The progress line to show once `step` (a completed stage) arrives. */
export function progressLabel(step) {
  const retry = step.attempt > 1 ? ` (attempt ${step.attempt})` : "";
  if ((step.node === "validation" || step.node === "critic") && step.passed === false) {
    return `Revising…${retry}`;
  }
  const label = PROGRESS_AFTER[step.node];
  return label ? `${label}${retry}` : null;
}

export const FIRST_PROGRESS = "Searching the articles…";

/** Why no source cards are shown, or null when cards are shown or none were expected. */
export function gateNotice(done, hasSources) {
  if (hasSources) return null;
  const gates = done.gates || {};
  if (done.cached) {
    return "Source cards are shown only with a freshly reviewed answer.";
  }
  switch (done.outcome) {
    case "accepted_early":
      return "Sources are hidden because the answer was not confirmed by review (low confidence).";
    case "degraded":
      return "Sources are hidden because the answer could not be fully verified by review.";
    case "fallback":
      if (gates.retrieval === "failed") return "I couldn't find this in the site's articles.";
      return "Sources are hidden because no draft passed the checks on its links and review.";
    default:
      if (gates.retrieval === "failed") return "I couldn't find this in the site's articles.";
      return "Sources are hidden because the answer did not pass every check.";
  }
}
