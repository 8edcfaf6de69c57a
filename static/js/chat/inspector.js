// The inspector's Memory tab: per turn, what was recalled (before the answer, and by the
// model's own recall_memory look-ups) and saved, and where the time went; below it, the
// shopper's own records with when each expires, and Delete.

import { DAY, expiryText, localDate, remainingMs } from "./expiry.js";
import { failedSearches, notRecalledText, notSavedText } from "./modes.js";
import { el, renderInline, renderMarkdown } from "./render.js";

const PAGE_SIZE = 20;
const TICK_MS = 1000;
// With nothing due within a day the list still looks once a minute: a panel left open
// overnight (or a laptop that slept) would otherwise go on showing records that have gone.
const SLOW_TICK_MS = 60_000;
const SCOPE_LABELS = {
  session: "this visit",
  fact: "fact",
  turn: "earlier visit",
  episode: "past visit",
};

function turnLabel(turn) {
  const question = turn.question.length > 40 ? `${turn.question.slice(0, 39)}…` : turn.question;
  return `Turn ${turn.n}: ${question}`;
}

function formatScore(score) {
  return typeof score === "number" ? score.toFixed(3) : "—";
}

function formatMs(ms) {
  const value = Number(ms) || 0;
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

function recalledItem(item, { source } = {}) {
  return el("li", {
    className: `recalled scope-${item.scope}`,
    attrs: {
      "data-testid": "recalled-item",
      "data-block-id": item.block_id,
      "data-scope": item.scope,
      "data-source": source || "turn",
    },
  }, [
    el("span", { className: "badge", text: SCOPE_LABELS[item.scope] || item.scope }),
    el("span", { className: "score", text: `score ${formatScore(item.score)}` }),
    item.deleted
      ? el("span", { className: "recalled-line empty", text: "(deleted)" })
      : el("span", { className: "recalled-line" }, [renderInline(item.line)]),
  ]);
}

function empty(text, tag = "li") {
  return el(tag, { className: "empty", text });
}

function recalledNodes(turn) {
  const searched = turn.searched;
  const byTool = turn.recalledByTool || [];
  const nodes = [];
  if (!turn.mode) {
    nodes.push(empty(turn.pending ? "Waiting for this turn's recall…" : "No recall for this turn."));
    return nodes;
  }
  const reason = notRecalledText(turn.mode);
  if (reason) return [el("li", { className: "empty", text: reason, attrs: { "data-testid": "recall-note" } })];
  if (searched?.failed?.length) {
    nodes.push(el("li", {
      className: "recall-failed",
      attrs: { "data-testid": "recall-failed" },
      text: `Part of your memory could not be searched this turn (${failedSearches(searched.failed)}); `
        + "the answer used what was found.",
    }));
  }
  if (!searched) nodes.push(empty("Waiting for this turn's recall…"));
  else if (!searched.items?.length) nodes.push(empty(`Nothing recalled (${formatMs(searched.duration_ms)}).`));
  else nodes.push(...searched.items.map((item) => recalledItem(item)));
  if (byTool.length) {
    nodes.push(el("li", { className: "recalled-subhead", text: "Found by the assistant's own look-up (recall_memory)" }));
    nodes.push(...byTool.map((item) => recalledItem(item, { source: "recall_memory" })));
  }
  return nodes;
}

export const NOT_SAVED = "not saved — memory unavailable";

/** What memory.added says was saved, in words: a failed write is never "none". */
export function savedText(added) {
  const ids = added.block_ids || {};
  const failed = new Set(Array.isArray(added.failed) ? added.failed : []);
  const saved = (kind) => (ids[kind] || []).join(", ");
  return {
    turn: `Turn block: ${failed.has("turn") ? NOT_SAVED : saved("turn") || "none"}`,
    facts: `Fact blocks: ${[saved("fact"), failed.has("facts") ? NOT_SAVED : ""].filter(Boolean).join("; ") || "none"}`,
    noFacts: failed.has("facts") ? null : "No new facts in this turn.",
    failed: failed.size > 0,
  };
}

function savedNodes(turn) {
  const reason = turn.mode ? notSavedText(turn.mode) : null;
  if (reason) return [empty(reason, "p")];
  if (turn.stopped) return [empty("Stopped: nothing of this turn was saved.", "p")];
  const added = turn.added;
  if (!added) return [empty(turn.done ? "Saving…" : "Nothing saved yet.", "p")];
  const text = savedText(added);
  const failedClass = text.failed ? " save-failed" : "";
  const facts = (added.facts || []).map((fact) => el("li", { attrs: { "data-testid": "saved-fact" } }, [renderInline(fact)]));
  const nodes = [
    el("p", { className: `saved-ids${failedClass}`, text: text.turn, attrs: { "data-testid": "saved-turn" } }),
    el("p", { className: `saved-ids${failedClass}`, text: text.facts, attrs: { "data-testid": "saved-facts" } }),
  ];
  if (facts.length) nodes.push(el("ul", { className: "saved-facts" }, facts));
  else if (text.noFacts) nodes.push(empty(text.noFacts, "p"));
  return nodes;
}

/** done.spans plus the two memory events, which happen around the answer. */
export function timelineSpans(turn) {
  const spans = (turn.done?.spans || []).map((s) => ({
    name: String(s.name), start: Number(s.start_ms) || 0, duration: Number(s.duration_ms) || 0,
  }));
  const named = (pattern) => spans.some((s) => pattern.test(s.name));
  if (turn.searched && !named(/recall|memory\.searched/)) {
    spans.unshift({ name: "memory.searched", start: 0, duration: Number(turn.searched.duration_ms) || 0 });
  }
  if (turn.added && !named(/memory\.added|remember|record/)) {
    // The writes start once the answer is done: after the last span ends.
    const end = spans.reduce((max, s) => Math.max(max, s.start + s.duration), 0);
    spans.push({ name: "memory.added", start: end, duration: Number(turn.added.duration_ms) || 0 });
  }
  return spans;
}

function timelineNodes(turn) {
  const spans = timelineSpans(turn);
  if (!spans.length) return [empty(turn.stopped ? "Stopped before the answer was complete." : "No timings for this turn yet.")];
  const total = Math.max(1, ...spans.map((s) => s.start + s.duration));
  return spans.map((span) => {
    const bar = el("span", { className: "bar", attrs: { "aria-hidden": "true" } });
    bar.style.marginLeft = `${(span.start / total) * 100}%`;
    bar.style.width = `max(2px, ${(span.duration / total) * 100}%)`;
    if (/memory/.test(span.name)) bar.classList.add("bar-memory");
    else if (/tool|search_products|get_product|recall_memory/.test(span.name)) bar.classList.add("bar-tool");
    return el("li", { className: "span", attrs: { "data-testid": "timeline-span", "data-name": span.name } }, [
      el("span", { className: "span-name", text: span.name }),
      el("span", { className: "span-track" }, [bar]),
      el("span", { className: "span-ms", text: formatMs(span.duration) }),
    ]);
  });
}

function recordDate(record) {
  const stamp = Date.parse(record.created_at || record.ingested_at || "");
  return Number.isNaN(stamp) ? "" : localDate(new Date(stamp));
}

function slotLabel(record) {
  // "size/shoes" -> "size · shoes": where consolidation files the fact.
  const slot = record.slot ? String(record.slot).replace(/\//g, " · ") : null;
  return slot || record.category || null;
}

export function createInspector(root, { api, store, signedIn, onRecordDeleted }) {
  const turnSelect = root.querySelector('[data-testid="inspector-turn"]');
  const recalled = root.querySelector('[data-testid="inspector-recalled"]');
  const saved = root.querySelector('[data-testid="inspector-saved"]');
  const timeline = root.querySelector('[data-testid="inspector-timeline"]');
  const recordsList = root.querySelector('[data-testid="records-list"]');
  const recordsStatus = root.querySelector('[data-testid="records-status"]');
  const range = root.querySelector('[data-testid="records-range"]');
  const newer = root.querySelector('[data-testid="records-newer"]');
  const older = root.querySelector('[data-testid="records-older"]');
  let offset = 0;
  let total = 0;
  let selected = null; // null follows the newest turn
  let loading = null;
  let focusAfterLoad = null; // the position of a deleted record, whose neighbour gets focus
  let noteAfterLoad = null; // what the next load says before its own status
  let shown = []; // { record, node, expiry } of the records on screen
  let ticker = null;
  let tickEvery = null; // the ticker's period: TICK_MS, SLOW_TICK_MS or null (stopped)

  function showTurn() {
    const turns = store.turns;
    turnSelect.replaceChildren(...turns.map((turn, i) => el("option", { text: turnLabel(turn), attrs: { value: String(i) } })));
    turnSelect.disabled = !turns.length;
    if (!turns.length) {
      turnSelect.append(el("option", { text: "No turns yet" }));
      recalled.replaceChildren(empty("Send a message to see what the assistant recalls."));
      saved.replaceChildren();
      timeline.replaceChildren();
      return;
    }
    const index = selected === null || selected >= turns.length ? turns.length - 1 : selected;
    turnSelect.value = String(index);
    const turn = turns[index];
    recalled.replaceChildren(...recalledNodes(turn));
    saved.replaceChildren(...savedNodes(turn));
    timeline.replaceChildren(...timelineNodes(turn));
  }

  turnSelect.addEventListener("change", () => {
    const index = Number(turnSelect.value);
    selected = index === store.turns.length - 1 ? null : index;
    showTurn();
  });

  // --- records ---------------------------------------------------------------------------
  function recordNode(record) {
    const button = el("button", {
      className: "danger small",
      text: "Delete",
      attrs: { type: "button", "data-testid": "record-delete", "aria-label": `Delete this ${record.kind} record` },
    });
    button.addEventListener("click", () => remove(record, button));
    const expiry = el("time", {
      className: "record-expiry",
      attrs: { "data-testid": "record-expiry", datetime: record.expires_at || undefined, title: record.expires_at || "No expiry" },
    });
    const meta = [recordDate(record), record.status !== "ready" ? record.status : null].filter(Boolean).join(" · ");
    const slot = record.kind === "fact" ? slotLabel(record) : null;
    const node = el("li", {
      className: `record kind-${record.kind}${record.superseded ? " superseded" : ""}`,
      attrs: {
        "data-testid": "record",
        "data-block-id": record.block_id,
        "data-kind": record.kind,
        "data-superseded": record.superseded ? "true" : undefined,
        tabindex: "-1",
      },
    }, [
      el("div", { className: "record-top" }, [
        el("span", { className: "badge", text: record.superseded ? "replaced fact" : record.kind }),
        slot ? el("span", { className: "record-slot", text: slot }) : null,
        el("span", { className: "record-meta" }, [meta ? `${meta} · ` : "", expiry]),
        button,
      ]),
      el("div", { className: "record-text" }, [renderMarkdown(record.text)]),
      record.superseded
        ? el("p", { className: "record-note", text: "Replaced by a newer fact: kept as history, never recalled." })
        : null,
    ]);
    return { record, node, expiry };
  }

  function showRange() {
    range.textContent = shown.length ? `${offset + 1}–${offset + shown.length} of ${total}` : "";
    newer.hidden = older.hidden = total <= PAGE_SIZE;
    newer.disabled = offset === 0;
    older.disabled = offset + PAGE_SIZE >= total;
  }

  /** Bring every expiry up to date; a record whose time has come leaves the list. */
  function tick() {
    const now = Date.now();
    const expired = [];
    for (const entry of shown) {
      const words = expiryText(entry.record.expires_at, now);
      if (words === null) expired.push(entry);
      else if (entry.expiry.textContent !== words) entry.expiry.textContent = words;
    }
    for (const entry of expired) {
      const index = shown.indexOf(entry);
      const hadFocus = entry.node.contains(document.activeElement);
      entry.node.remove();
      shown.splice(index, 1);
      total = Math.max(0, total - 1);
      if (hadFocus) focusNear(index);
    }
    if (expired.length) {
      showRange();
      if (!shown.length) recordsStatus.textContent = "Nothing remembered yet.";
    }
    const left = shown.map((entry) => remainingMs(entry.record.expires_at, now));
    const every = left.some((ms) => ms < DAY) ? TICK_MS : left.some(Number.isFinite) ? SLOW_TICK_MS : null;
    if (every !== tickEvery) {
      clearInterval(ticker);
      ticker = every === null ? null : setInterval(tick, every);
      tickEvery = every;
    }
  }

  function focusNear(index) {
    const next = shown[Math.min(index, shown.length - 1)];
    (next ? next.node : recordsList).focus();
  }

  function clearRecords(status) {
    shown = [];
    recordsList.replaceChildren();
    recordsStatus.textContent = status;
    newer.hidden = older.hidden = true;
    range.textContent = "";
    tick();
  }

  async function loadRecords() {
    if (!signedIn) {
      clearRecords("Sign in to see what the assistant remembers about you.");
      return;
    }
    const request = (loading = api.listRecords({ limit: PAGE_SIZE, offset }));
    if (!shown.length) recordsStatus.textContent = "Loading…";
    try {
      const page = await request;
      if (request !== loading) return; // a newer load superseded this one
      if (!page.records.length && offset > 0) {
        offset = Math.max(0, offset - PAGE_SIZE); // the last record of a page went
        return loadRecords();
      }
      // The server sweeps expired records now and then; the list drops them at once.
      const now = Date.now();
      const live = page.records.filter((record) => expiryText(record.expires_at, now) !== null);
      total = page.total - (page.records.length - live.length);
      shown = live.map(recordNode);
      recordsList.replaceChildren(...shown.map((entry) => entry.node));
      const emptyWords = shown.length ? "" : "Nothing remembered yet.";
      recordsStatus.textContent = [noteAfterLoad, emptyWords].filter(Boolean).join(" ");
      noteAfterLoad = null;
      showRange();
      tick();
      if (focusAfterLoad !== null) {
        focusNear(focusAfterLoad);
        focusAfterLoad = null;
      }
    } catch (error) {
      if (request !== loading) return;
      clearRecords(error.message);
      if (focusAfterLoad !== null) {
        recordsList.focus();
        focusAfterLoad = null;
      }
    }
  }

  async function remove(record, button) {
    const preview = record.text.length > 80 ? `${record.text.slice(0, 79)}…` : record.text;
    if (!window.confirm(`Delete this memory record? The assistant will no longer recall it.\n\n“${preview}”`)) return;
    button.disabled = true;
    const index = shown.findIndex((entry) => entry.record.block_id === record.block_id);
    try {
      await api.deleteRecord(record.block_id);
    } catch (error) {
      button.disabled = false;
      button.focus();
      recordsStatus.textContent = `Could not delete: ${error.message}`;
      return;
    }
    onRecordDeleted(record.block_id);
    recordsStatus.textContent = noteAfterLoad = "Record deleted.";
    showTurn();
    focusAfterLoad = Math.max(0, index);
    await loadRecords();
  }

  newer.addEventListener("click", () => { offset = Math.max(0, offset - PAGE_SIZE); loadRecords(); });
  older.addEventListener("click", () => { offset += PAGE_SIZE; loadRecords(); });

  return {
    showTurn,
    loadRecords,
    followNewest() {
      selected = null;
      showTurn();
    },
  };
}
