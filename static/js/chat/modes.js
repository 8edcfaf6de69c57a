// The words for what the assistant does with memory, one place for the mode line and the
// inspector, so neither ever tells a signed-in shopper they are signed out.

// The searches of `memory.searched.failed`, as a shopper would call what was lost.
const SEARCH_NAMES = {
  session: "this visit",
  session_search: "this visit's older messages",
  fact: "what you told me",
  turn: "earlier visits",
  episode: "past visit summaries",
};

/** The mode line: who is remembered, or why nothing is. */
export function modeText(mode, shopper) {
  switch (mode) {
    case "remembering": return `Remembering you as ${shopper || "you"}`;
    case "memory_off": return "Memory is switched off — this chat is not remembered";
    case "memory_unavailable": return "Memory is unavailable right now — answering without it";
    default: return "Not signed in — this chat is not remembered";
  }
}

/** Why the panel's sign-in ended (a `signed_out` event's reason): the mode line and the note. */
export function endedText(reason) {
  const cleared = "so this conversation has ended and was cleared from this tab.";
  switch (reason) {
    case "deactivated": return { line: "Account deactivated — this chat has ended", note: `This account was deactivated, ${cleared}` };
    case "deleted": return { line: "Account deleted — this chat has ended", note: `This account no longer exists, ${cleared}` };
    default: return { line: "Signed out — this chat has ended", note: `You are no longer signed in here, ${cleared}` };
  }
}

/** The searches that failed, in words: "earlier visits and what you told me". */
export function failedSearches(failed) {
  const names = (Array.isArray(failed) ? failed : []).map((name) => SEARCH_NAMES[name] || String(name));
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** Why a turn recalled nothing, or null when it was a remembering turn. */
export function notRecalledText(mode) {
  switch (mode) {
    case "stateless": return "Nothing is recalled when signed out.";
    case "memory_off": return "Memory is switched off: nothing was recalled for this turn.";
    case "memory_unavailable": return "Memory could not be reached: this answer came without it.";
    default: return null;
  }
}

/** Why a turn saved nothing, or null when it was a remembering turn. */
export function notSavedText(mode) {
  switch (mode) {
    case "stateless": return "Nothing is saved when signed out.";
    case "memory_off": return "Memory is switched off: nothing is saved.";
    case "memory_unavailable": return "Memory could not be reached: nothing of this turn was saved.";
    default: return null;
  }
}
