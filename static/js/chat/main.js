// The chat panel: opens from the launcher (or Alt+Shift+A, or the skip link), greets, streams
// the assistant's answers over the websocket (docs/protocol.md) with Stop, and keeps the
// conversation across page navigation.

import { createApi } from "./api.js";
import { createControls } from "./controls.js";
import { createInspector } from "./inspector.js";
import { createLog } from "./log.js";
import { endedText, modeText } from "./modes.js";
import { pageContext } from "./page.js";
import { CLOSE_SIGNED_OUT, createSocket, socketUrl } from "./socket.js";
import { createStore } from "./store.js";
import { createTurn } from "./turn.js";
import { el } from "./render.js";

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
  const logBox = $("chat-log");
  const form = $("chat-form");
  const input = $("chat-input");
  const closeButton = $("chat-close");
  const confirmBox = $("chat-confirm");
  const modeLine = $("chat-mode");
  const announcer = $("chat-announcer");
  const controlsBox = $("chat-controls");
  const controlsToggle = $("controls-toggle");
  const inspectorBox = $("inspector");
  const inspectorToggle = $("inspector-toggle");

  const signedIn = panel.dataset.signedIn === "true";
  let memoryEnabled = panel.dataset.memoryEnabled !== "false"; // staff's switch, as of now
  let ended = null; // why this panel's sign-in ended (`signed_out`); then it takes no input
  const shopper = panel.dataset.shopper || null;
  const page = pageContext(panel);
  const store = createStore(signedIn ? panel.dataset.username : "");
  const controls = createControls(controlsBox, store);
  const api = createApi({ recordsUrl: panel.dataset.recordsUrl, csrfFallback: panel.dataset.csrf });
  const inspector = createInspector(inspectorBox, {
    api, store, signedIn, onRecordDeleted: forgetRecalled,
  });

  // --- mode line and controls --------------------------------------------------------
  function showMode(mode, { failed = [] } = {}) {
    if (ended) return; // the line says why the chat ended, whatever comes after
    // Until the server reports a mode, assume what signing in promises, unless staff have
    // switched memory off (the page knows that much).
    const shown = mode || pageMode();
    const partly = shown === "remembering" && failed.length > 0;
    modeLine.textContent = modeText(shown, shopper)
      + (partly ? " — part of your memory could not be read this turn" : "");
    modeLine.dataset.mode = shown;
    if (partly) modeLine.dataset.degraded = "true";
    else delete modeLine.dataset.degraded;
  }

  /** The mode the server is in right now, as far as the page knows: its own settings. */
  function pageMode() {
    return !signedIn ? "stateless" : memoryEnabled ? "remembering" : "memory_off";
  }

  function syncControls() {
    if (store.session) controls.lock(store.session);
    else controls.unlock();
  }

  // Its callbacks reach the turn and the handlers below; it connects once the panel opens.
  const socket = createSocket(socketUrl(panel.dataset.wsPath || "/ws/assistant/"), {
    onEvent(event) {
      handlers[event.type]?.(event);
    },
    onOpen() {
      panel.dataset.connected = "true";
    },
    onDrop(code) {
      panel.dataset.connected = "false";
      // The server closed for good without its event reaching us: the same ending.
      if (code === CLOSE_SIGNED_OUT) signedOut({ reason: "signed_out" });
      else turn.fail("Connection to the assistant was lost.");
    },
  });
  const log = createLog(logBox, { store, input, onSend: (text) => turn.send(text) });
  const turn = createTurn(panel, { socket, store, log, inspector, controls, showMode, signedIn, page });

  function forgetRecalled(blockId) {
    // A deleted record's text must not linger in this tab's inspector either; null: all of them.
    const gone = (item) => (blockId === null || item.block_id === blockId ? { ...item, line: "", deleted: true } : item);
    store.turns = store.turns.map((entry) => ({
      ...entry,
      searched: entry.searched ? { ...entry.searched, items: (entry.searched.items || []).map(gone) } : entry.searched,
      recalledByTool: (entry.recalledByTool || []).map(gone),
    }));
  }

  function memoryChanged(event) {
    const ids = Array.isArray(event.session_ids) ? event.session_ids.map(String) : [];
    if (store.sessionId && ids.includes(store.sessionId)) {
      store.forgetSession();
      syncControls();
      const note = "Your memory was erased: your next message starts a new conversation.";
      log.showNote(note);
      announcer.textContent = note;
    }
    forgetRecalled(event.reason === "erased" ? null : event.block_id ?? "");
    inspector.showTurn();
    if (!inspectorBox.hidden) inspector.loadRecords();
  }

  /**
   * The shopper this panel was opened for is no longer signed in here (signed out in any
   * tab, someone else signed in, the account deactivated or deleted). Whoever sits at this
   * browser now is not that shopper: their conversation leaves the screen and this tab's
   * storage, the socket stays closed, and the panel offers to sign in again.
   */
  function signedOut(event) {
    if (ended) return;
    ended = event.reason || "signed_out";
    socket.stop();
    turn.abandon();
    store.clearConversation();
    log.clear();
    controls.reset();
    setInspectorOpen(false);
    setControlsOpen(false);
    setConfirmOpen(false);
    inspector.showTurn();
    const { line, note } = endedText(ended);
    modeLine.textContent = line;
    modeLine.dataset.mode = "ended";
    delete modeLine.dataset.degraded;
    const next = encodeURIComponent(location.pathname + location.search);
    const signIn = el("a", { className: "chat-signin", text: "Sign in again", attrs: { href: `${panel.dataset.signinUrl || "/signin/"}?next=${next}`, "data-testid": "chat-signin" } });
    log.showNote(note, { testid: "chat-ended", children: [signIn] }).classList.add("chat-ended");
    announcer.textContent = note;
    input.value = "";
    input.placeholder = "Sign in again to chat";
    input.disabled = true;
    $("chat-send").disabled = true;
    form.dataset.ended = "true";
    if (!panel.hidden) signIn.focus();
  }

  const handlers = {
    ...turn.handlers,
    "memory.changed": memoryChanged,
    welcome(event) {
      if (store.started) return; // the conversation began while the greeting was on its way
      store.greeting = {
        text: String(event.greeting || ""),
        suggestions: (Array.isArray(event.suggestions) ? event.suggestions : []).map(String).slice(0, 3),
      };
      // The server's mode as of this greeting: fresher than the page's.
      if (!turn.busy) {
        store.mode = event.mode;
        showMode(event.mode);
      }
      log.showGreeting();
      announcer.textContent = store.greeting.text;
    },
    "mode.changed"(event) {
      // Staff switched memory on or off: the line says so now, not after the next message.
      memoryEnabled = event.mode !== "memory_off";
      store.mode = event.mode;
      showMode(event.mode);
    },
    signed_out: signedOut,
    closed() {},
  };

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
      if (!ended) {
        socket.start();
        if (!wasOpen && !store.started) socket.send({ type: "hello", page });
      }
      fitInput();
      log.scrollToEnd(); // the log could not scroll while the panel was hidden
      // Once the sign-in ended the input is disabled: the way on is the sign-in link.
      if (focus) (ended ? logBox.querySelector('[data-testid="chat-signin"]') : input)?.focus();
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
      log.scrollToEnd();
    }
  }

  /**
   * ✕ ends the conversation for good (the server writes the visit's summary and ends the
   * session), so with a conversation in progress it asks first.
   */
  function requestClose() {
    if (ended) setPanelOpen(false); // nothing left to end: the note stays for the next look
    else if (!store.started && !turn.busy) closeConversation();
    else setConfirmOpen(true);
  }

  function closeConversation() {
    setConfirmOpen(false);
    const sessionId = store.sessionId;
    if (turn.busy || sessionId) socket.send({ type: "close", session_id: sessionId });
    turn.abandon();
    store.clearConversation();
    log.clear();
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
    else if (action === "stop") turn.stop();
  });
  // On a phone the panel covers the page: following a product link hides it (the
  // conversation stays, one tap on the launcher away) so the product page shows.
  logBox.addEventListener("click", (event) => {
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
    if (!text || turn.busy || ended) return;
    input.value = "";
    fitInput();
    turn.send(text);
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
  if (store.turns.some((entry) => entry.pending)) {
    store.turns = store.turns.map((entry) => (entry.pending ? { ...entry, pending: false, stopped: true } : entry));
  }
  // The mode line starts from the server's state as this page was rendered (staff may have
  // switched memory since the last turn), never from what this tab last heard.
  store.mode = pageMode();
  showMode(store.mode);
  syncControls();
  for (const message of store.messages) log.appendMessage(message, { persist: false });
  log.showGreeting();
  log.showMoreButton();
  inspector.showTurn();
  if (store.open) setPanelOpen(true, { focus: false });
  panel.dataset.ready = "true";
}

init();
