// One turn at a time, from Send to its end: the `message` frame, then each event of the
// turn as the server sends it (docs/protocol.md) — session, recall, tokens, tools, done or
// error, stopped, memory.added — into the log, the inspector's turns and the stored
// conversation. The state of the turn in flight lives here and nowhere else.

import { el, renderMarkdown } from "./render.js";

// What the assistant is doing (the activity line), and what it did (the answer's chips).
const TOOL_LABELS = {
  search_products: "Searching the catalog…",
  get_product: "Checking the product…",
  recall_memory: "Looking through your memory…",
};
const TOOL_DONE = {
  search_products: "Searched the catalog",
  get_product: "Checked the product",
  recall_memory: "Looked through your memory",
};
// Longer than the server's model timeout, so the server's own 504 normally arrives first.
const TURN_TIMEOUT_MS = 120000;

/**
 * root: the panel. socket: frames out. log, inspector, controls: what the turn draws into.
 * showMode(mode, {failed}): the mode line. signedIn, page: what every message carries.
 */
export function createTurn(root, { socket, store, log, inspector, controls, showMode, signedIn, page }) {
  const $ = (testid) => root.querySelector(`[data-testid="${testid}"]`);
  const form = $("chat-form");
  const input = $("chat-input");
  const sendButton = $("chat-send");
  const stopButton = $("chat-stop");
  const activity = $("chat-activity");
  const announcer = $("chat-announcer");
  const inspectorBox = $("inspector");

  let pending = null; // the turn in flight: { text, li, bubble, streamed, index, tools, timer, stopping }
  let lastText = null; // what Retry resends

  function setBusy(busy) {
    // The button under the keyboard is about to hide: focus moves to the one that shows.
    const fromSend = document.activeElement === sendButton;
    const fromStop = document.activeElement === stopButton;
    sendButton.hidden = busy;
    stopButton.hidden = !busy;
    stopButton.removeAttribute("aria-disabled");
    form.setAttribute("aria-busy", String(busy));
    if (busy && fromSend) stopButton.focus();
    if (!busy && fromStop) input.focus();
    if (!busy) activity.textContent = "";
  }

  function updateTurn(index, patch) {
    const turns = store.turns;
    if (!turns[index]) return;
    turns[index] = { ...turns[index], ...patch(turns[index]) };
    store.turns = turns;
    inspector.showTurn();
  }

  function startTurn(text) {
    const { li, bubble } = log.appendPending();
    const turns = store.turns;
    turns.push({ n: turns.length + 1, question: text, mode: null, pending: true });
    store.turns = turns;
    inspector.followNewest();
    pending = {
      text, li, bubble, streamed: "", index: store.turns.length - 1, tools: null, stopping: false, drawing: false,
      timer: setTimeout(() => fail("The assistant did not answer in time."), TURN_TIMEOUT_MS),
    };
  }

  function endTurn() {
    if (!pending) return;
    clearTimeout(pending.timer);
    pending = null;
    setBusy(false);
    log.showMoreButton();
  }

  function showError(message, { retry = true } = {}) {
    const text = lastText;
    log.showError(message, { onRetry: retry && text ? () => send(text, { retry: true }) : null });
  }

  /** The turn in flight failed (an error, the socket dropped, no answer in time). */
  function fail(message) {
    if (!pending) return;
    // Keep whatever part of the answer arrived; drop an empty bubble.
    if (!pending.streamed) pending.li.remove();
    else {
      pending.bubble.removeAttribute("aria-busy");
      pending.li.classList.remove("pending");
      pending.li.classList.add("incomplete");
    }
    updateTurn(pending.index, () => ({ error: message, pending: false }));
    endTurn();
    showError(message);
  }

  function send(text, { retry = false } = {}) {
    if (pending) return;
    lastText = text;
    if (!retry) log.appendMessage({ role: "user", text });
    log.showGreeting(); // the suggestions go once the conversation has started
    setBusy(true);
    startTurn(text);
    log.showMoreButton({ busy: true }); // a new turn takes the place of the last one's "Show more"
    const { session_date, retention } = controls.values();
    const frame = {
      type: "message",
      text,
      session_id: store.sessionId,
      turn_count: store.turnCount,
      session_date,
      retention,
      page,
    };
    // Signed out nothing is remembered: the conversation itself is the context. Signed in,
    // memory is the only source, so the browser's copy never goes along.
    if (!signedIn) {
      frame.history = store.history();
      const said = store.said();
      if (said.length) frame.said = said;
    }
    socket.send(frame);
  }

  function stop() {
    if (!pending || pending.stopping) return;
    pending.stopping = true;
    // Not `disabled`: a disabled button loses the keyboard focus to the page body.
    stopButton.setAttribute("aria-disabled", "true");
    activity.textContent = "Stopping…";
    socket.send({ type: "stop" });
  }

  /** Forget the turn in flight without a word (the conversation is being closed). */
  function abandon() {
    if (pending) {
      clearTimeout(pending.timer);
      pending = null;
    }
    setBusy(false);
    lastText = null;
  }

  /** Draw the streamed text once per frame, formatted as far as it has arrived. */
  function drawStreamed() {
    if (!pending || pending.drawing) return;
    pending.drawing = true;
    const turn = pending;
    requestAnimationFrame(() => {
      turn.drawing = false;
      if (pending !== turn) return; // done or stopped drew the whole text already
      turn.bubble.replaceChildren(renderMarkdown(turn.streamed, { streaming: true }));
      log.followAnswer(turn.li);
    });
  }

  function toolActivity(event) {
    const label = TOOL_LABELS[event.name] || `Using ${event.name}…`;
    activity.textContent = label;
    if (!pending) return;
    if (!pending.tools) {
      pending.tools = el("ul", { className: "chat-tools", attrs: { "aria-label": "What the assistant did" } });
      pending.li.insertBefore(pending.tools, pending.bubble);
    }
    const summary = event.summary ? ` · ${event.summary}` : "";
    const done = TOOL_DONE[event.name] || `Used ${event.name}`;
    pending.tools.append(el("li", { text: `${done}${summary}`, attrs: { "data-testid": "tool-activity", "data-tool": event.name } }));
    log.scrollToEnd();
  }

  function finishTurn(event) {
    const message = {
      role: "assistant",
      text: String(event.text ?? pending?.streamed ?? ""),
      products: Array.isArray(event.products) ? event.products.slice(0, 4) : [],
      more: Boolean(event.more),
      model: event.model || null,
    };
    store.addMessage(message);
    // Only a remembered exchange counts: the session holds no other.
    if (store.mode === "remembering") store.turnCount = (Number(store.turnCount) || 0) + 1;
    if (!pending) {
      log.appendMessage(message, { persist: false });
    } else {
      const { li, bubble } = pending;
      li.classList.remove("pending");
      log.fillAnswer(li, bubble, message);
      updateTurn(pending.index, () => ({ pending: false, done: { turn_id: event.turn_id ?? null, model: event.model ?? null, spans: event.spans || [] } }));
    }
    announcer.textContent = `Assistant: ${message.text}`;
    const li = pending?.li;
    endTurn();
    if (li) log.followAnswer(li);
    else log.scrollToEnd();
  }

  function finishStopped() {
    const { li, bubble, streamed, index } = pending;
    const message = { role: "assistant", text: streamed, products: [], stopped: true };
    store.addMessage(message);
    li.classList.remove("pending");
    li.classList.add("stopped");
    log.fillAnswer(li, bubble, message);
    updateTurn(index, () => ({ pending: false, stopped: true }));
    announcer.textContent = "Stopped.";
    endTurn();
    log.scrollToEnd();
  }

  function memoryAdded(event) {
    // It arrives after `done`, possibly once the next turn has begun: it belongs to the
    // newest answered turn that has not had its writes reported yet.
    const turns = store.turns;
    for (let i = turns.length - 1; i >= 0; i -= 1) {
      if (turns[i].done && !turns[i].added) {
        // `failed` names the writes that were lost: the inspector says "not saved" for them,
        // never "none", which would read as a turn with nothing to save.
        const failed = Array.isArray(event.failed) ? event.failed : [];
        updateTurn(i, () => ({ added: { block_ids: event.block_ids || {}, facts: event.facts || [], failed, duration_ms: event.duration_ms } }));
        break;
      }
    }
    if (!inspectorBox.hidden) inspector.loadRecords();
  }

  // The events of a turn, by type; main.js dispatches the others.
  const handlers = {
    session(event) {
      const { mode } = event;
      if (mode === "remembering") {
        if (event.created) store.turnCount = 0; // a freshly minted session has no exchanges yet
        store.sessionId = event.session_id ?? null;
        store.session = { session_date: event.session_date ?? null, retention: event.retention ?? null };
        controls.lock(store.session);
      } else if (mode === "stateless") {
        store.forgetSession();
      } else if (event.session_id) {
        // Memory is off or down for this turn: keep the session, the next turn resumes it.
        store.sessionId = event.session_id;
      }
      store.mode = mode;
      showMode(mode);
      if (pending) updateTurn(pending.index, () => ({ mode, session: event }));
    },
    "memory.searched"(event) {
      const failed = Array.isArray(event.failed) ? event.failed : [];
      showMode(store.mode, { failed });
      if (pending) updateTurn(pending.index, () => ({ searched: { counts: event.counts, failed, duration_ms: event.duration_ms, items: event.items || [] } }));
    },
    token(event) {
      if (!pending) return;
      pending.streamed += String(event.text ?? "");
      if (!pending.stopping) activity.textContent = "";
      drawStreamed();
    },
    tool(event) {
      toolActivity(event);
      if (!pending) return;
      const found = event.name === "recall_memory" && Array.isArray(event.items) ? event.items : [];
      updateTurn(pending.index, (turn) => ({
        tools: [...(turn.tools || []), { name: event.name, summary: event.summary, duration_ms: event.duration_ms }],
        recalledByTool: [...(turn.recalledByTool || []), ...found],
      }));
    },
    done: finishTurn,
    stopped() {
      // With nothing in flight the answer was complete before the stop reached the server.
      if (pending) finishStopped();
    },
    "memory.added": memoryAdded,
    error(event) {
      const message = event.message || "Something went wrong.";
      if (pending) fail(message);
      else showError(message, { retry: Boolean(event.retryable) });
    },
  };

  return {
    send,
    stop,
    fail,
    abandon,
    handlers,
    /** Whether a turn is in flight. */
    get busy() { return pending !== null; },
  };
}
