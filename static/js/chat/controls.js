// The demo controls: a session date and a retention preset. Both describe the session,
// not the turn, so they are editable only until the conversation starts; afterwards they
// show what the session actually runs with, as the server read it back.

/** Every retention preset's label, as the server rendered them into the page. */
export function retentionLabels() {
  try {
    return JSON.parse(document.getElementById("retention-labels")?.textContent || "{}") || {};
  } catch {
    return {};
  }
}
const LOCKED_REASON = "Fixed when the session started; close the panel to start a new one.";
const OPEN_NOTE = "Both apply to this conversation and lock once it starts.";
// A session started without a chosen date runs on the real clock: each message is dated
// the day it is sent. An empty locked field ("mm/dd/yyyy") would read as "no date at all".
const LIVE_DATE_NOTE = "No date was chosen: this conversation is dated today, as it happens.";

/** Today in the shopper's own calendar, YYYY-MM-DD (what a date input holds). */
function today() {
  const now = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function createControls(root, store) {
  const date = root.querySelector('[data-testid="control-date"]');
  const retention = root.querySelector('[data-testid="control-retention"]');
  const note = root.querySelector('[data-testid="controls-note"]');
  // Staff choose the default preset and which presets are offered (demo settings).
  const defaultRetention = retention.dataset.default || "default";
  const offered = () => Array.from(retention.options, (option) => option.value);

  function remember() {
    store.controls = { session_date: date.value, retention: retention.value };
  }
  date.addEventListener("change", remember);
  date.addEventListener("input", remember);
  retention.addEventListener("change", remember);

  function setDisabled(disabled, reason) {
    for (const input of [date, retention]) {
      input.disabled = disabled;
      if (reason) input.title = reason;
      else input.removeAttribute("title");
    }
  }

  return {
    /** The values to send with a message; the server ignores them once the session exists. */
    values() {
      // Read the input itself: a browser without a date picker (or a test) may hold any text,
      // and the server, not the page, decides what a malformed date is.
      return { session_date: date.value.trim() || null, retention: retention.value || null };
    },
    /** Show the session's own values (from a `session` event) and lock. */
    lock(session) {
      const live = Boolean(session) && !session.session_date;
      if (session && session.session_date !== undefined) date.value = session.session_date || today();
      if (session && session.retention) {
        // A session may run with a preset no longer offered: show it anyway.
        if (!offered().includes(session.retention)) {
          retention.add(new Option(retentionLabels()[session.retention] || session.retention, session.retention));
        }
        retention.value = session.retention;
      }
      setDisabled(true, LOCKED_REASON);
      note.textContent = live ? `${LIVE_DATE_NOTE} ${LOCKED_REASON}` : LOCKED_REASON;
    },
    unlock() {
      const saved = store.controls;
      date.value = saved.session_date || "";
      retention.value = offered().includes(saved.retention) ? saved.retention : defaultRetention;
      setDisabled(false, null);
      note.textContent = OPEN_NOTE;
    },
    reset() {
      date.value = "";
      retention.value = defaultRetention;
      remember();
      this.unlock();
    },
  };
}
