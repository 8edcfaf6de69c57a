// The chat panel: opens from the launcher (or Alt+Shift+A, or the skip link), greets, streams
// the assistant's answers over the websocket (docs/protocol.md) with Stop, and keeps the
// conversation across page navigation.

import { createApi } from "./api.js";
import { createControls } from "./controls.js";
import { createInspector } from "./inspector.js";
import { modeText } from "./modes.js";
import { pageContext } from "./page.js";
import { el, linksOf, modelLabel, productCards, renderMarkdown } from "./render.js";
import { createSocket, socketUrl } from "./socket.js";
import { createStore } from "./store.js";

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
const SHOW_MORE_TEXT = "Show me more";
// The full-screen layout of chat.css: there the panel covers the page it links to.
const PHONE = "(max-width: 640px)";

function isShortcut(event) {
  return event.altKey && event.shiftKey && !event.ctrlKey && !event.metaKey && event.code === "KeyA";
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
  const stopButton = $("chat-stop");
  const closeButton = $("chat-close");
  const confirmBox = $("chat-confirm");
  const modeLine = $("chat-mode");
  const activity = $("chat-activity");
  const announcer = $("chat-announcer");
  const controlsBox = $("chat-controls");
  const controlsToggle = $("controls-toggle");
  const inspectorBox = $("inspector");
  const inspectorToggle = $("inspector-toggle");

  const signedIn = panel.dataset.signedIn === "true";
  const memoryEnabled = panel.dataset.memoryEnabled !== "false";
  const shopper = panel.dataset.shopper || null;
  const page = pageContext(panel);
  const store = createStore(signedIn ? panel.dataset.username : "");
  const controls = createControls(controlsBox, store);
  const api = createApi({ recordsUrl: panel.dataset.recordsUrl, csrfFallback: panel.dataset.csrf });
  const inspector = createInspector(inspectorBox, {
    api, store, signedIn, onRecordDeleted: forgetRecalled,
  });

  let pending = null; // the turn in flight: { text, li, bubble, streamed, index, tools, timer, stopping }
  let lastText = null; // what Retry resends
  let welcomeNode = null;

  // --- mode line and controls --------------------------------------------------------
  function showMode(mode, { failed = [] } = {}) {
    // Until the server reports a mode, assume what signing in promises, unless staff have
    // switched memory off (the page knows that much).
    const shown = mode || (!signedIn ? "stateless" : memoryEnabled ? "remembering" : "memory_off");
    const partly = shown === "remembering" && failed.length > 0;
    modeLine.textContent = modeText(shown, shopper)
      + (partly ? " — part of your memory could not be read this turn" : "");
    modeLine.dataset.mode = shown;
    if (partly) modeLine.dataset.degraded = "true";
    else delete modeLine.dataset.degraded;
  }

  function syncControls() {
    if (store.session) controls.lock(store.session);
    else controls.unlock();
  }

  // --- the log -------------------------------------------------------------------------
  function scrollToEnd() {
    log.scrollTop = log.scrollHeight;
  }

  /**
   * Follow an answer as it grows, but never scroll its question out of sight: a long answer
   * stops at its question, where reading begins.
   */
  function followAnswer(li) {
    const question = li.previousElementSibling?.dataset.role === "user" ? li.previousElementSibling : li;
    const top = question.getBoundingClientRect().top - log.getBoundingClientRect().top + log.scrollTop;
    const end = log.scrollHeight - log.clientHeight;
    log.scrollTop = Math.min(end, Math.max(0, top - 8));
  }

  function stoppedLabel() {
    return el("span", { className: "chat-stopped", text: "Stopped", attrs: { "data-testid": "chat-stopped" } });
  }

  /** An answer's bubble contents, its cards and what follows them. */
  function fillAnswer(li, bubble, message) {
    bubble.removeAttribute("aria-busy");
    if (message.stopped && !message.text) {
      bubble.replaceChildren(el("p", { className: "empty", text: "Stopped before the answer began." }));
    } else {
      // A stopped answer ends where it was cut: its open markup is closed as while streaming.
      bubble.replaceChildren(renderMarkdown(message.text, { links: linksOf(message.products), streaming: Boolean(message.stopped) }));
    }
    const cards = productCards(message.products);
    if (cards) li.append(cards);
    if (message.stopped) li.append(stoppedLabel());
    else if (message.model) li.append(el("span", { className: "chat-msg-meta", text: `Answered by ${modelLabel(message.model)}` }));
  }

  function messageNode(message) {
    const { role } = message;
    const li = el("li", { className: `chat-msg chat-msg-${role}${message.stopped ? " stopped" : ""}`, attrs: { "data-role": role } });
    const bubble = el("div", { className: "chat-bubble", attrs: { "data-testid": `msg-${role}` } });
    li.append(bubble);
    if (role === "assistant") fillAnswer(li, bubble, message);
    else bubble.textContent = message.text;
    return li;
  }

  function appendMessage(message, { persist = true } = {}) {
    if (persist) store.addMessage(message);
    log.append(messageNode(message));
    scrollToEnd();
  }

  /** "Show more" under the newest answer, when its search found more than it showed. */
  function showMoreButton() {
    for (const button of log.querySelectorAll('[data-testid="show-more"]')) button.remove();
    const messages = store.messages;
    const last = messages[messages.length - 1];
    if (pending || !last || last.role !== "assistant" || !last.more || last.stopped) return;
    const answers = log.querySelectorAll("li.chat-msg-assistant:not(.chat-welcome)");
    const li = answers[answers.length - 1];
    if (!li) return;
    const button = el("button", {
      className: "secondary small chat-more", text: "Show more",
      attrs: { type: "button", "data-testid": "show-more" },
    });
    button.addEventListener("click", () => {
      input.focus(); // the button goes with the next turn; focus must not go with it
      send(SHOW_MORE_TEXT);
    });
    const meta = li.querySelector(".chat-msg-meta");
    li.insertBefore(button, meta);
  }

  function showWelcome() {
    welcomeNode?.remove();
    welcomeNode = null;
    const welcome = store.welcome;
    if (!welcome) return;
    const suggestions = store.started ? [] : welcome.suggestions;
    const list = suggestions.length
      ? el("ul", { className: "chat-suggestions", attrs: { "aria-label": "Suggestions" } }, suggestions.map((text) => {
        const button = el("button", { className: "secondary small", text, attrs: { type: "button", "data-testid": "suggestion" } });
        button.addEventListener("click", () => {
          input.focus();
          send(text);
        });
        return el("li", {}, [button]);
      }))
      : null;
    welcomeNode = el("li", { className: "chat-msg chat-msg-assistant chat-welcome", attrs: { "data-testid": "chat-welcome" } }, [
      el("div", { className: "chat-bubble", attrs: { "data-testid": "welcome-greeting" } }, [renderMarkdown(welcome.greeting)]),
      list,
    ]);
    log.prepend(welcomeNode);
  }

  function showError(message, { retry = true } = {}) {
    const li = el("li", { className: "chat-msg chat-msg-error", attrs: { "data-testid": "chat-error", role: "alert" } }, [
      el("span", { className: "chat-error-text", text: message }),
    ]);
    if (retry && lastText) {
      const button = el("button", { className: "secondary small", text: "Retry", attrs: { type: "button", "data-testid": "chat-retry" } });
      button.addEventListener("click", () => {
        input.focus();
        li.remove();
        send(lastText, { retry: true });
      });
      li.append(button);
    }
    log.append(li);
    scrollToEnd();
  }

  function showNote(text) {
    log.append(el("li", { className: "chat-note", text, attrs: { "data-testid": "chat-note", role: "status" } }));
    scrollToEnd();
  }

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
    turns.push({ n: turns.length + 1, question: text, mode: null, pending: true });
    store.turns = turns;
    inspector.followNewest();
    pending = {
      text, li, bubble, streamed: "", index: store.turns.length - 1, tools: null, stopping: false, drawing: false,
      timer: setTimeout(() => failTurn("The assistant did not answer in time."), TURN_TIMEOUT_MS),
    };
  }

  function endTurn() {
    if (!pending) return;
    clearTimeout(pending.timer);
    pending = null;
    setBusy(false);
    showMoreButton();
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
    updateTurn(pending.index, () => ({ error: message, pending: false }));
    endTurn();
    showError(message);
  }

  function send(text, { retry = false } = {}) {
    if (pending) return;
    lastText = text;
    if (!retry) appendMessage({ role: "user", text });
    showWelcome(); // the suggestions go once the conversation has started
    setBusy(true);
    startTurn(text);
    showMoreButton(); // a new turn takes the place of the last one's "Show more"
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
    if (!signedIn) frame.history = store.history();
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

  /** Draw the streamed text once per frame, formatted as far as it has arrived. */
  function drawStreamed() {
    if (!pending || pending.drawing) return;
    pending.drawing = true;
    const turn = pending;
    requestAnimationFrame(() => {
      turn.drawing = false;
      if (pending !== turn) return; // done or stopped drew the whole text already
      turn.bubble.replaceChildren(renderMarkdown(turn.streamed, { streaming: true }));
      followAnswer(turn.li);
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
    scrollToEnd();
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
      log.append(messageNode(message));
    } else {
      const { li, bubble } = pending;
      li.classList.remove("pending");
      fillAnswer(li, bubble, message);
      updateTurn(pending.index, () => ({ pending: false, done: { turn_id: event.turn_id ?? null, model: event.model ?? null, spans: event.spans || [] } }));
    }
    announcer.textContent = `Assistant: ${message.text}`;
    const li = pending?.li;
    endTurn();
    if (li) followAnswer(li);
    else scrollToEnd();
  }

  function finishStopped() {
    const { li, bubble, streamed, index } = pending;
    const message = { role: "assistant", text: streamed, products: [], stopped: true };
    store.addMessage(message);
    li.classList.remove("pending");
    li.classList.add("stopped");
    fillAnswer(li, bubble, message);
    updateTurn(index, () => ({ pending: false, stopped: true }));
    announcer.textContent = "Stopped.";
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
    // A deleted record's text must not linger in this tab's inspector either; null: all of them.
    const gone = (item) => (blockId === null || item.block_id === blockId ? { ...item, line: "", deleted: true } : item);
    store.turns = store.turns.map((turn) => ({
      ...turn,
      searched: turn.searched ? { ...turn.searched, items: (turn.searched.items || []).map(gone) } : turn.searched,
      recalledByTool: (turn.recalledByTool || []).map(gone),
    }));
  }

  function memoryChanged(event) {
    const ids = Array.isArray(event.session_ids) ? event.session_ids.map(String) : [];
    if (store.sessionId && ids.includes(store.sessionId)) {
      store.forgetSession();
      syncControls();
      showNote("Your memory was erased: your next message starts a new conversation.");
    }
    forgetRecalled(event.reason === "erased" ? null : event.block_id ?? "");
    inspector.showTurn();
    if (!inspectorBox.hidden) inspector.loadRecords();
  }

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
    "memory.changed": memoryChanged,
    welcome(event) {
      if (store.started) return; // the conversation began while the greeting was on its way
      store.welcome = {
        greeting: String(event.greeting || ""),
        suggestions: (Array.isArray(event.suggestions) ? event.suggestions : []).map(String).slice(0, 3),
      };
      if (!store.mode) showMode(event.mode);
      showWelcome();
      announcer.textContent = store.welcome.greeting;
    },
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

  // --- the input ---------------------------------------------------------------------------
  /** Grow the input with its text, up to the five lines its max-height allows. */
  function fitInput() {
    input.style.height = "auto";
    const borders = input.offsetHeight - input.clientHeight;
    const max = parseFloat(getComputedStyle(input).maxHeight) || Infinity;
    const wanted = input.scrollHeight + borders;
    input.style.height = `${Math.min(wanted, max)}px`;
    input.style.overflowY = wanted > max + 1 ? "auto" : "hidden"; // 1px: rounding at five lines
  }

  // --- open, hide, close -----------------------------------------------------------------
  function setPanelOpen(open, { focus = true } = {}) {
    const wasOpen = !panel.hidden;
    panel.hidden = !open;
    launcher.hidden = open;
    launcher.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("chat-open", open);
    store.open = open;
    if (open) {
      socket.start();
      if (!wasOpen && !store.started) socket.send({ type: "hello", page });
      fitInput();
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

  function setConfirmOpen(open) {
    confirmBox.hidden = !open;
    closeButton.setAttribute("aria-expanded", String(open));
    if (open) {
      confirmBox.querySelector('[data-action="confirm-cancel"]').focus();
      scrollToEnd();
    }
  }

  /**
   * ✕ ends the conversation for good (the server writes the visit's summary and ends the
   * session), so with a conversation in progress it asks first.
   */
  function requestClose() {
    if (!store.started && !pending) closeConversation();
    else setConfirmOpen(true);
  }

  function closeConversation() {
    setConfirmOpen(false);
    const sessionId = store.sessionId;
    if (pending || sessionId) socket.send({ type: "close", session_id: sessionId });
    if (pending) {
      clearTimeout(pending.timer);
      pending = null;
    }
    setBusy(false);
    lastText = null;
    store.clearConversation();
    log.replaceChildren();
    welcomeNode = null;
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
    if (action === "close") requestClose();
    else if (action === "confirm-close") closeConversation();
    else if (action === "confirm-cancel") {
      setConfirmOpen(false);
      closeButton.focus();
    } else if (action === "minimise") setPanelOpen(false);
    else if (action === "toggle-inspector") setInspectorOpen(inspectorBox.hidden);
    else if (action === "toggle-controls") setControlsOpen(controlsBox.hidden);
    else if (action === "stop") stop();
  });
  // On a phone the panel covers the page: following a product link hides it (the
  // conversation stays, one tap on the launcher away) so the product page shows.
  log.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    const plainClick = event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey;
    if (link && plainClick && window.matchMedia(PHONE).matches) setPanelOpen(false, { focus: false });
  });
  panel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    if (!confirmBox.hidden) {
      setConfirmOpen(false);
      closeButton.focus();
    } else if (!inspectorBox.hidden) {
      setInspectorOpen(false);
      inspectorToggle.focus();
    } else {
      // Escape hides the panel; only the close button ends the conversation.
      setPanelOpen(false);
    }
  });
  document.addEventListener("keydown", (event) => {
    if (!isShortcut(event)) return;
    event.preventDefault();
    setPanelOpen(true);
  });
  for (const link of document.querySelectorAll("[data-chat-skip]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      setPanelOpen(true);
    });
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || pending) return;
    input.value = "";
    fitInput();
    send(text);
  });
  input.addEventListener("input", fitInput);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // --- restore after navigation -----------------------------------------------------------
  // A turn still in flight when the page went away was stopped with its socket.
  if (store.turns.some((turn) => turn.pending)) {
    store.turns = store.turns.map((turn) => (turn.pending ? { ...turn, pending: false, stopped: true } : turn));
  }
  showMode(store.mode);
  syncControls();
  for (const message of store.messages) appendMessage(message, { persist: false });
  showWelcome();
  showMoreButton();
  inspector.showTurn();
  if (store.open) setPanelOpen(true, { focus: false });
  panel.dataset.ready = "true";
}

init();
