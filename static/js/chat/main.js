// The chat panel: opens from the launcher, streams the assistant's answers over the
// websocket (docs/protocol.md), and keeps the conversation across page navigation.

import { createApi } from "./api.js";
import { createControls } from "./controls.js";
import { createInspector } from "./inspector.js";
import { el, messageNode, modelLabel, productCards, renderMarkdown } from "./render.js";
import { createSocket, socketUrl } from "./socket.js";
import { createStore } from "./store.js";

const TOOL_LABELS = {
  search_products: "Searching the catalog…",
  get_product: "Checking the product…",
  recall_memory: "Looking through your memory…",
};
// Longer than the server's model timeout, so the server's own 504 normally arrives first.
const TURN_TIMEOUT_MS = 120000;

function modeText(mode, shopper) {
  if (mode === "remembering") return `Remembering you as ${shopper || "you"}`;
  if (mode === "memory_unavailable") return "Memory unavailable right now";
  return "Not signed in — this chat is not remembered";
}

function init() {
  const panel = document.getElementById("chat-panel");
  const launcher = document.getElementById("chat-launcher");
  if (!panel || !launcher) return;
  const $ = (testid) => panel.querySelector(`[data-testid="${testid}"]`);
  const log = $("chat-log");
  const form = $("chat-form");
  const input = $("chat-input");
  const sendButton = $("chat-send");
  const modeLine = $("chat-mode");
  const activity = $("chat-activity");
  const announcer = $("chat-announcer");
  const controlsBox = $("chat-controls");
  const controlsToggle = $("controls-toggle");
  const inspectorBox = $("inspector");
  const inspectorToggle = $("inspector-toggle");

  const signedIn = panel.dataset.signedIn === "true";
  const shopper = panel.dataset.shopper || null;
  const store = createStore(signedIn ? panel.dataset.username : "");
  const controls = createControls(controlsBox, store);
  const api = createApi({ recordsUrl: panel.dataset.recordsUrl, csrfFallback: panel.dataset.csrf });
  const inspector = createInspector(inspectorBox, {
    api, store, signedIn, onRecordDeleted: forgetRecalled,
  });

  let pending = null; // the turn in flight: { text, li, bubble, streamed, index, timer }
  let lastText = null; // what Retry resends

  // --- mode line and controls --------------------------------------------------------
  function showMode(mode) {
    // Until the server reports a mode, assume what signing in promises.
    const shown = mode || (signedIn ? "remembering" : "stateless");
    modeLine.textContent = modeText(shown, shopper);
    modeLine.dataset.mode = shown;
  }

  function syncControls() {
    if (store.session) controls.lock(store.session);
    else controls.unlock();
  }

  // --- the log -------------------------------------------------------------------------
  function scrollToEnd() {
    log.scrollTop = log.scrollHeight;
  }

  function appendMessage(message, { persist = true } = {}) {
    if (persist) store.addMessage(message);
    log.append(messageNode(message));
    scrollToEnd();
  }

  function showError(message, { retry = true } = {}) {
    const li = el("li", { className: "chat-msg chat-msg-error", attrs: { "data-testid": "chat-error", role: "alert" } }, [
      el("span", { className: "chat-error-text", text: message }),
    ]);
    if (retry && lastText) {
      const button = el("button", { className: "secondary small", text: "Retry", attrs: { type: "button", "data-testid": "chat-retry" } });
      button.addEventListener("click", () => {
        li.remove();
        send(lastText, { retry: true });
      });
      li.append(button);
    }
    log.append(li);
    scrollToEnd();
  }

  function setBusy(busy) {
    sendButton.disabled = busy;
    form.setAttribute("aria-busy", String(busy));
    if (!busy) activity.textContent = "";
  }

  // --- the turn --------------------------------------------------------------------------
  function updateTurn(index, patch) {
    const turns = store.turns;
    if (!turns[index]) return;
    turns[index] = { ...turns[index], ...patch(turns[index]) };
    store.turns = turns;
    inspector.showTurn();
  }

  function startTurn(text) {
    const typing = el("span", { className: "typing", attrs: { "data-testid": "typing" } }, [
      el("span"), el("span"), el("span"),
      el("span", { className: "visually-hidden", text: "The assistant is typing" }),
    ]);
    const bubble = el("div", { className: "chat-bubble", attrs: { "data-testid": "msg-assistant", "aria-busy": "true" } }, [typing]);
    const li = el("li", { className: "chat-msg chat-msg-assistant pending", attrs: { "data-role": "assistant" } }, [bubble]);
    log.append(li);
    scrollToEnd();
    const turns = store.turns;
    turns.push({ n: turns.length + 1, question: text, stateless: !signedIn });
    store.turns = turns;
    inspector.followNewest();
    pending = {
      text, li, bubble, streamed: "", index: store.turns.length - 1, tools: null,
      timer: setTimeout(() => failTurn("The assistant did not answer in time."), TURN_TIMEOUT_MS),
    };
  }

  function endTurn() {
    if (!pending) return;
    clearTimeout(pending.timer);
    pending = null;
    setBusy(false);
  }

  function failTurn(message) {
    if (!pending) return;
    // Keep whatever part of the answer arrived; drop an empty bubble.
    if (!pending.streamed) pending.li.remove();
    else {
      pending.bubble.removeAttribute("aria-busy");
      pending.li.classList.remove("pending");
      pending.li.classList.add("incomplete");
    }
    updateTurn(pending.index, () => ({ error: message }));
    endTurn();
    showError(message);
  }

  function send(text, { retry = false } = {}) {
    if (pending) return;
    lastText = text;
    if (!retry) appendMessage({ role: "user", text });
    setBusy(true);
    startTurn(text);
    const { session_date, retention } = controls.values();
    socket.send({
      type: "message",
      text,
      session_id: store.sessionId,
      turn_count: store.turnCount,
      session_date,
      retention,
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
    pending.tools.append(el("li", { text: `${label}${summary}`, attrs: { "data-testid": "tool-activity", "data-tool": event.name } }));
    scrollToEnd();
  }

  function finishTurn(event) {
    const message = {
      role: "assistant",
      text: String(event.text ?? pending?.streamed ?? ""),
      products: Array.isArray(event.products) ? event.products : [],
      model: event.model || null,
    };
    store.addMessage(message);
    store.turnCount = (Number(store.turnCount) || 0) + 1;
    if (!pending) {
      log.append(messageNode(message));
    } else {
      const { li, bubble } = pending;
      bubble.removeAttribute("aria-busy");
      bubble.replaceChildren(renderMarkdown(message.text));
      li.classList.remove("pending");
      const cards = productCards(message.products);
      if (cards) li.append(cards);
      if (message.model) li.append(el("span", { className: "chat-msg-meta", text: `Answered by ${modelLabel(message.model)}` }));
      updateTurn(pending.index, () => ({ done: { turn_id: event.turn_id ?? null, model: event.model ?? null, spans: event.spans || [] } }));
    }
    announcer.textContent = `Assistant: ${message.text}`;
    endTurn();
    scrollToEnd();
  }

  function memoryAdded(event) {
    // It arrives after `done`, possibly once the next turn has begun: it belongs to the
    // newest answered turn that has not had its writes reported yet.
    const turns = store.turns;
    for (let i = turns.length - 1; i >= 0; i -= 1) {
      if (turns[i].done && !turns[i].added) {
        updateTurn(i, () => ({ added: { block_ids: event.block_ids || {}, facts: event.facts || [], duration_ms: event.duration_ms } }));
        break;
      }
    }
    if (!inspectorBox.hidden) inspector.loadRecords();
  }

  function forgetRecalled(blockId) {
    // A deleted record's text must not linger in this tab's inspector either.
    store.turns = store.turns.map((turn) => !turn.searched ? turn : {
      ...turn,
      searched: { ...turn.searched, items: turn.searched.items.map((item) => item.block_id === blockId ? { ...item, line: "", deleted: true } : item) },
    });
  }

  const handlers = {
    session(event) {
      if (event.created) store.turnCount = 0; // a freshly minted session has no exchanges yet
      store.sessionId = event.session_id ?? null;
      store.session = { session_date: event.session_date ?? null, retention: event.retention ?? null };
      store.mode = event.mode;
      showMode(event.mode);
      controls.lock(store.session);
      if (pending) updateTurn(pending.index, () => ({ session: event, stateless: event.mode !== "remembering" }));
    },
    "memory.searched"(event) {
      if (pending) updateTurn(pending.index, () => ({ searched: { counts: event.counts, duration_ms: event.duration_ms, items: event.items || [] } }));
    },
    token(event) {
      if (!pending) return;
      if (!pending.streamed) pending.bubble.replaceChildren();
      pending.streamed += String(event.text ?? "");
      // Raw text while streaming; markdown once the whole answer is known.
      pending.bubble.textContent = pending.streamed;
      activity.textContent = "";
      scrollToEnd();
    },
    tool(event) {
      toolActivity(event);
      if (pending) updateTurn(pending.index, (turn) => ({ tools: [...(turn.tools || []), { name: event.name, summary: event.summary, duration_ms: event.duration_ms }] }));
    },
    done: finishTurn,
    "memory.added": memoryAdded,
    error(event) {
      const message = event.message || "Something went wrong.";
      if (pending) failTurn(message);
      else showError(message, { retry: Boolean(event.retryable) });
    },
    closed() {},
  };

  const socket = createSocket(socketUrl(panel.dataset.wsPath || "/ws/assistant/"), {
    onEvent(event) {
      handlers[event.type]?.(event);
    },
    onOpen() {
      panel.dataset.connected = "true";
    },
    onDrop() {
      panel.dataset.connected = "false";
      failTurn("Connection to the assistant was lost.");
    },
  });

  // --- open, hide, close -----------------------------------------------------------------
  function setPanelOpen(open, { focus = true } = {}) {
    panel.hidden = !open;
    launcher.hidden = open;
    launcher.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("chat-open", open);
    store.open = open;
    if (open) {
      socket.start();
      scrollToEnd(); // the log could not scroll while the panel was hidden
      if (focus) input.focus();
    } else if (focus) {
      launcher.focus();
    }
  }

  function setInspectorOpen(open) {
    inspectorBox.hidden = !open;
    panel.classList.toggle("with-inspector", open);
    for (const toggle of panel.querySelectorAll('[data-action="toggle-inspector"]')) toggle.setAttribute("aria-expanded", String(open));
    if (open) {
      inspector.showTurn();
      inspector.loadRecords();
      inspectorBox.querySelector("select, button")?.focus();
    }
  }

  function setControlsOpen(open) {
    controlsBox.hidden = !open;
    controlsToggle.setAttribute("aria-expanded", String(open));
  }

  function closeConversation() {
    const sessionId = store.sessionId;
    if (sessionId) socket.send({ type: "close", session_id: sessionId });
    if (pending) {
      clearTimeout(pending.timer);
      pending = null;
    }
    setBusy(false);
    lastText = null;
    store.clearConversation();
    log.replaceChildren();
    controls.reset();
    showMode(null);
    setInspectorOpen(false);
    setControlsOpen(false);
    inspector.showTurn();
    setPanelOpen(false);
  }

  launcher.addEventListener("click", () => setPanelOpen(true));
  panel.addEventListener("click", (event) => {
    const action = event.target.closest("[data-action]")?.dataset.action;
    if (action === "close") closeConversation();
    else if (action === "minimise") setPanelOpen(false);
    else if (action === "toggle-inspector") setInspectorOpen(inspectorBox.hidden);
    else if (action === "toggle-controls") setControlsOpen(controlsBox.hidden);
  });
  panel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    if (!inspectorBox.hidden) {
      setInspectorOpen(false);
      inspectorToggle.focus();
    } else {
      // Escape hides the panel; only the close button ends the conversation.
      setPanelOpen(false);
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || pending) return;
    input.value = "";
    send(text);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // --- restore after navigation -----------------------------------------------------------
  showMode(store.mode);
  syncControls();
  for (const message of store.messages) appendMessage(message, { persist: false });
  inspector.showTurn();
  if (store.open) setPanelOpen(true, { focus: false });
  panel.dataset.ready = "true";
}

init();
