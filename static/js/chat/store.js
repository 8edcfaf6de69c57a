// What the chat panel keeps across page navigation. sessionStorage, not localStorage:
// a conversation belongs to this tab, and a new tab is a new visit.

const PREFIX = "aisle.chat.";
const KEYS = {
  owner: "owner",
  open: "open",
  sessionId: "session_id",
  turnCount: "turn_count",
  conversation: "conversation",
  controls: "controls",
  session: "session",
  turns: "turns",
  mode: "mode",
  greeting: "greeting",
};
// Keep the stored conversation bounded so a long chat never hits the storage quota.
const MAX_MESSAGES = 200;
const MAX_TURNS = 50;
// What a signed-out conversation sends back with each message (docs/protocol.md, `history`).
const HISTORY_EXCHANGES = 3;
const HISTORY_TEXT_MAX = 4000;
const HISTORY_SKUS_MAX = 10;
// The shopper's messages older than the history's exchanges (docs/protocol.md, `said`): the
// server reads what they state about the shopper (a size said long ago), nothing else.
const SAID_MAX = 20;
const SAID_TEXT_MAX = 1000;

function read(key, fallback) {
  try {
    const raw = sessionStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    sessionStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the chat still works, it just will not survive navigation.
  }
}

function remove(key) {
  try {
    sessionStorage.removeItem(PREFIX + key);
  } catch {
    /* ignored, as in write() */
  }
}

export function createStore(owner) {
  // Signing in or out starts a new conversation: never carry one shopper's chat to another.
  if (read(KEYS.owner, null) !== owner) {
    for (const key of Object.values(KEYS)) remove(key);
    write(KEYS.owner, owner);
  }
  return {
    get open() { return read(KEYS.open, false); },
    set open(value) { write(KEYS.open, Boolean(value)); },
    get sessionId() { return read(KEYS.sessionId, null); },
    set sessionId(value) { write(KEYS.sessionId, value); },
    get turnCount() { return read(KEYS.turnCount, 0); },
    set turnCount(value) { write(KEYS.turnCount, value); },
    get messages() { return read(KEYS.conversation, []); },
    addMessage(message) {
      write(KEYS.conversation, [...this.messages, message].slice(-MAX_MESSAGES));
    },
    get controls() { return read(KEYS.controls, { session_date: "", retention: "default" }); },
    set controls(value) { write(KEYS.controls, value); },
    // What the session actually runs with, as last reported by a `session` event.
    get session() { return read(KEYS.session, null); },
    set session(value) { write(KEYS.session, value); },
    get mode() { return read(KEYS.mode, null); },
    set mode(value) { write(KEYS.mode, value); },
    get turns() { return read(KEYS.turns, []); },
    set turns(value) { write(KEYS.turns, value.slice(-MAX_TURNS)); },
    // The panel's greeting: its words and suggestions (from `welcome`), shown until the
    // conversation starts.
    get greeting() { return read(KEYS.greeting, null); },
    set greeting(value) { write(KEYS.greeting, value); },
    /** Whether the shopper has said anything in this conversation. */
    get started() { return this.messages.some((message) => message.role === "user"); },
    /** The last answered exchanges, oldest first, as a signed-out `message` carries them. */
    history() {
      return exchangesOf(this.messages).slice(-HISTORY_EXCHANGES);
    },
    /** The shopper's own words from before those exchanges, oldest first. */
    said() {
      return exchangesOf(this.messages).slice(0, -HISTORY_EXCHANGES).slice(-SAID_MAX)
        .map((exchange) => exchange.user.slice(0, SAID_TEXT_MAX));
    },
    // The session is gone (erased, or its memory deleted elsewhere): the next message starts
    // a new one, while the conversation on screen stays.
    forgetSession() {
      for (const key of [KEYS.sessionId, KEYS.turnCount, KEYS.session]) remove(key);
    },
    // Closing the panel ends the conversation: forget everything but who we are.
    clearConversation() {
      for (const key of [KEYS.open, KEYS.sessionId, KEYS.turnCount, KEYS.conversation,
        KEYS.controls, KEYS.session, KEYS.turns, KEYS.mode, KEYS.greeting]) remove(key);
    },
  };
}

/**
 * Question-and-answer pairs of a stored conversation. An answer that was stopped, or a
 * question that got an error instead of an answer, is no exchange: it is left out.
 */
export function exchangesOf(messages) {
  const exchanges = [];
  let question = null;
  for (const message of messages) {
    if (message.role === "user") question = message;
    else if (message.role === "assistant" && question && !message.stopped) {
      exchanges.push({
        user: String(question.text).slice(0, HISTORY_TEXT_MAX),
        assistant: String(message.text || "").slice(0, HISTORY_TEXT_MAX),
        skus: (message.products || []).map((p) => p?.sku).filter((sku) => typeof sku === "string" && sku)
          .slice(0, HISTORY_SKUS_MAX),
      });
      question = null;
    }
  }
  return exchanges;
}
