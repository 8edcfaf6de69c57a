// One websocket to the assistant that reconnects by itself, with capped exponential backoff.

const BACKOFF_START_MS = 500;
const BACKOFF_CAP_MS = 10000;
// The server's close once the sign-in a socket spoke for has ended (docs/protocol.md).
export const CLOSE_SIGNED_OUT = 4001;

export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}

/**
 * handlers: onEvent(event), onOpen(), onDrop(code) — onDrop fires when an open socket
 * closes, so the panel can fail the turn in flight instead of waiting for ever. After a
 * close with CLOSE_SIGNED_OUT (the sign-in it spoke for ended) it does not reconnect.
 */
export function createSocket(url, { onEvent, onOpen, onDrop }) {
  let ws = null;
  let delay = BACKOFF_START_MS;
  let timer = null;
  let wanted = false;
  const queue = [];

  function connect() {
    clearTimeout(timer);
    timer = null;
    if (!wanted || (ws && ws.readyState <= WebSocket.OPEN)) return;
    ws = new WebSocket(url);
    ws.addEventListener("open", () => {
      delay = BACKOFF_START_MS;
      while (queue.length) ws.send(queue.shift());
      onOpen?.();
    });
    ws.addEventListener("message", (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return; // the server only sends JSON; anything else is not ours to show
      }
      if (event && typeof event.type === "string") onEvent(event);
    });
    ws.addEventListener("close", (event) => {
      ws = null;
      if (event.code === CLOSE_SIGNED_OUT) wanted = false;
      // A queued frame belongs to a turn the panel now fails (with Retry); sending it
      // later as well would ask the same question twice.
      queue.length = 0;
      onDrop?.(event.code);
      if (wanted) {
        timer = setTimeout(connect, delay);
        delay = Math.min(delay * 2, BACKOFF_CAP_MS);
      }
    });
  }

  return {
    start() {
      wanted = true;
      connect();
    },
    stop() {
      wanted = false;
      clearTimeout(timer);
      queue.length = 0;
      ws?.close();
    },
    get isOpen() {
      return ws?.readyState === WebSocket.OPEN;
    },
    // Frames sent while (re)connecting wait for the socket instead of being lost.
    send(frame) {
      const data = JSON.stringify(frame);
      if (ws?.readyState === WebSocket.OPEN) ws.send(data);
      else {
        queue.push(data);
        connect();
      }
    },
  };
}
