// Plain-language progress and reasons for an answer without source cards, from `step`s and
// `done`'s outcome and gates, in the widget's strings (`t`, see strings.js).
import { format } from "./strings.js";

const PROGRESS_AFTER = {
  research: "writing",
  writer: "checking",
  validation: "reviewing",
  critic: "finishing",
};

/** The progress line to show once `step` (a completed stage) arrives. */
export function progressLabel(t, step) {
  const retry = step.attempt > 1 ? format(t.attempt, step.attempt) : "";
  if ((step.node === "validation" || step.node === "critic") && step.passed === false) {
    return t.revising + retry;
  }
  const label = PROGRESS_AFTER[step.node];
  return label ? t[label] + retry : null;
}

/** Why no source cards are shown, or null when cards are shown or none were expected. */
export function gateNotice(t, done, hasSources) {
  if (hasSources) return null;
  // A cached answer comes with the cards it was first shown with: none means the same as on a fresh one.
  const missing = (done.gates || {}).retrieval === "failed";
  switch (done.outcome) {
    case "accepted_early":
      return t.earlyNoSources;
    case "degraded":
      return t.degradedNoSources;
    case "fallback":
      return missing ? t.notFound : t.fallbackNoSources;
    default:
      return missing ? t.notFound : t.failedNoSources;
  }
}
