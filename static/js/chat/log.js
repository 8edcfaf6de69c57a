// The conversation log: the shopper's messages, the answers with their cards, the greeting
// with its suggestions, errors with Retry and the panel's own notes. It draws; the turn
// (turn.js) decides what happens, and a button here only hands its text to `onSend`.

import { el, linksOf, modelLabel, productCards, renderMarkdown } from "./render.js";

const SHOW_MORE_TEXT = "Show me more";

export function createLog(root, { store, input, onSend }) {
  let greetingNode = null;

  function scrollToEnd() {
    root.scrollTop = root.scrollHeight;
  }

  /**
   * Follow an answer as it grows, but never scroll its question out of sight: a long answer
   * stops at its question, where reading begins.
   */
  function followAnswer(li) {
    const question = li.previousElementSibling?.dataset.role === "user" ? li.previousElementSibling : li;
    const top = question.getBoundingClientRect().top - root.getBoundingClientRect().top + root.scrollTop;
    const end = root.scrollHeight - root.clientHeight;
    root.scrollTop = Math.min(end, Math.max(0, top - 8));
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
    root.append(messageNode(message));
    scrollToEnd();
  }

  /** The answer on its way: a typing indicator, filled by the turn as it streams. */
  function appendPending() {
    const typing = el("span", { className: "typing", attrs: { "data-testid": "typing" } }, [
      el("span"), el("span"), el("span"),
      el("span", { className: "visually-hidden", text: "The assistant is typing" }),
    ]);
    const bubble = el("div", { className: "chat-bubble", attrs: { "data-testid": "msg-assistant", "aria-busy": "true" } }, [typing]);
    const li = el("li", { className: "chat-msg chat-msg-assistant pending", attrs: { "data-role": "assistant" } }, [bubble]);
    root.append(li);
    scrollToEnd();
    return { li, bubble };
  }

  /** "Show more" under the newest answer, when its search found more than it showed. */
  function showMoreButton({ busy = false } = {}) {
    for (const button of root.querySelectorAll('[data-testid="show-more"]')) button.remove();
    const messages = store.messages;
    const last = messages[messages.length - 1];
    if (busy || !last || last.role !== "assistant" || !last.more || last.stopped) return;
    const answers = root.querySelectorAll("li.chat-msg-assistant:not(.chat-greeting)");
    const li = answers[answers.length - 1];
    if (!li) return;
    const button = el("button", {
      className: "secondary small chat-more", text: "Show more",
      attrs: { type: "button", "data-testid": "show-more" },
    });
    button.addEventListener("click", () => {
      input.focus(); // the button goes with the next turn; focus must not go with it
      onSend(SHOW_MORE_TEXT);
    });
    const meta = li.querySelector(".chat-msg-meta");
    li.insertBefore(button, meta);
  }

  function showGreeting() {
    greetingNode?.remove();
    greetingNode = null;
    const greeting = store.greeting;
    if (!greeting) return;
    const suggestions = store.started ? [] : greeting.suggestions;
    const list = suggestions.length
      ? el("ul", { className: "chat-suggestions", attrs: { "aria-label": "Suggestions" } }, suggestions.map((text) => {
        const button = el("button", { className: "secondary small", text, attrs: { type: "button", "data-testid": "suggestion" } });
        button.addEventListener("click", () => {
          input.focus();
          onSend(text);
        });
        return el("li", {}, [button]);
      }))
      : null;
    greetingNode = el("li", { className: "chat-msg chat-msg-assistant chat-greeting", attrs: { "data-testid": "chat-greeting" } }, [
      el("div", { className: "chat-bubble", attrs: { "data-testid": "greeting-text" } }, [renderMarkdown(greeting.text)]),
      list,
    ]);
    root.prepend(greetingNode);
  }

  /** An error line; with `onRetry`, a Retry button that asks the same question again. */
  function showError(message, { onRetry = null } = {}) {
    const li = el("li", { className: "chat-msg chat-msg-error", attrs: { "data-testid": "chat-error", role: "alert" } }, [
      el("span", { className: "chat-error-text", text: message }),
    ]);
    if (onRetry) {
      const button = el("button", { className: "secondary small", text: "Retry", attrs: { type: "button", "data-testid": "chat-retry" } });
      button.addEventListener("click", () => {
        input.focus();
        li.remove();
        onRetry();
      });
      li.append(button);
    }
    root.append(li);
    scrollToEnd();
  }

  /**
   * A line of the panel's own; `children` may carry a link or a button after the words. No
   * role of its own: a list item must stay one, so the caller announces it.
   */
  function showNote(text, { testid = "chat-note", children = [] } = {}) {
    const li = el("li", { className: "chat-note", attrs: { "data-testid": testid } }, [
      el("span", { text }),
      ...children,
    ]);
    root.append(li);
    scrollToEnd();
    return li;
  }

  function clear() {
    root.replaceChildren();
    greetingNode = null;
  }

  return {
    scrollToEnd, followAnswer, fillAnswer, messageNode, appendMessage, appendPending,
    showMoreButton, showGreeting, showError, showNote, clear,
  };
}
