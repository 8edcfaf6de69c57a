// The inspector's Memory tab: per turn, what was recalled and saved and where the time
// went; below it, the shopper's own records with Delete.

import { el } from "./render.js";

const PAGE_SIZE = 20;
const SCOPE_LABELS = {
  session: "this visit",
  fact: "fact",
  turn: "earlier visit",
  episode: "past visit",
  tool: "look-up",
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

function recalledNodes(turn) {
  const searched = turn.searched;
  if (!searched) {
    return [el("li", { className: "empty", text: turn.stateless
      ? "Nothing is recalled when signed out."
      : "No recall for this turn." })];
  }
  if (!searched.items?.length) {
    return [el("li", { className: "empty", text: `Nothing recalled (${formatMs(searched.duration_ms)}).` })];
  }
  return searched.items.map((item) => el("li", {
    className: `recalled scope-${item.scope}`,
    attrs: { "data-testid": "recalled-item", "data-block-id": item.block_id, "data-scope": item.scope },
  }, [
    el("span", { className: "badge", text: SCOPE_LABELS[item.scope] || item.scope }),
    el("span", { className: "recalled-line", text: item.deleted ? "(deleted)" : item.line }),
    el("span", { className: "score", text: `score ${formatScore(item.score)}` }),
  ]));
}

function savedNodes(turn) {
  const added = turn.added;
  if (!added) {
    return [el("p", { className: "empty", text: turn.stateless ? "Nothing is saved when signed out." : "Nothing saved yet." })];
  }
  const ids = added.block_ids || {};
  const facts = (added.facts || []).map((fact) => el("li", { text: fact, attrs: { "data-testid": "saved-fact" } }));
  return [
    el("p", { className: "saved-ids", text: `Turn block: ${(ids.turn || []).join(", ") || "none"}` }),
    el("p", { className: "saved-ids", text: `Fact blocks: ${(ids.fact || []).join(", ") || "none"}` }),
    facts.length ? el("ul", { className: "saved-facts" }, facts) : el("p", { className: "empty", text: "No facts in this turn." }),
  ];
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
  if (!spans.length) return [el("li", { className: "empty", text: "No timings for this turn yet." })];
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
  return (record.created_at || record.ingested_at || "").slice(0, 10);
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

  function showTurn() {
    const turns = store.turns;
    turnSelect.replaceChildren(...turns.map((turn, i) => el("option", { text: turnLabel(turn), attrs: { value: String(i) } })));
    turnSelect.disabled = !turns.length;
    if (!turns.length) {
      turnSelect.append(el("option", { text: "No turns yet" }));
      recalled.replaceChildren(el("li", { className: "empty", text: "Send a message to see what the assistant recalls." }));
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

  function recordNode(record) {
    const button = el("button", {
      className: "danger small",
      text: "Delete",
      attrs: { type: "button", "data-testid": "record-delete", "aria-label": `Delete this ${record.kind} record` },
    });
    button.addEventListener("click", () => remove(record, button));
    const meta = [recordDate(record), record.session_id, record.status !== "ready" ? record.status : null,
      record.expires_at ? `expires ${record.expires_at.slice(0, 16).replace("T", " ")}` : null]
      .filter(Boolean).join(" · ");
    return el("li", {
      className: `record kind-${record.kind}`,
      attrs: { "data-testid": "record", "data-block-id": record.block_id, "data-kind": record.kind },
    }, [
      el("div", { className: "record-top" }, [
        el("span", { className: "badge", text: record.kind }),
        el("span", { className: "record-meta", text: meta }),
        button,
      ]),
      el("p", { className: "record-text", text: record.text }),
    ]);
  }

  async function loadRecords() {
    if (!signedIn) {
      recordsStatus.textContent = "Sign in to see what the assistant remembers about you.";
      recordsList.replaceChildren();
      newer.hidden = older.hidden = true;
      range.textContent = "";
      return;
    }
    const request = (loading = api.listRecords({ limit: PAGE_SIZE, offset }));
    recordsStatus.textContent = "Loading…";
    try {
      const page = await request;
      if (request !== loading) return; // a newer load superseded this one
      total = page.total;
      if (!page.records.length && offset > 0) {
        offset = Math.max(0, offset - PAGE_SIZE); // the last record of a page was deleted
        return loadRecords();
      }
      recordsList.replaceChildren(...page.records.map(recordNode));
      recordsStatus.textContent = page.records.length ? "" : "Nothing remembered yet.";
      range.textContent = page.records.length ? `${offset + 1}–${offset + page.records.length} of ${total}` : "";
      newer.hidden = older.hidden = total <= PAGE_SIZE;
      newer.disabled = offset === 0;
      older.disabled = offset + PAGE_SIZE >= total;
    } catch (error) {
      if (request !== loading) return;
      recordsStatus.textContent = error.message;
      recordsList.replaceChildren();
      newer.hidden = older.hidden = true;
      range.textContent = "";
    }
  }

  async function remove(record, button) {
    const preview = record.text.length > 80 ? `${record.text.slice(0, 79)}…` : record.text;
    if (!window.confirm(`Delete this memory record? The assistant will no longer recall it.\n\n“${preview}”`)) return;
    button.disabled = true;
    try {
      await api.deleteRecord(record.block_id);
    } catch (error) {
      button.disabled = false;
      recordsStatus.textContent = `Could not delete: ${error.message}`;
      return;
    }
    onRecordDeleted(record.block_id);
    recordsStatus.textContent = "Record deleted.";
    showTurn();
    await loadRecords();
    if (!recordsStatus.textContent) recordsStatus.textContent = "Record deleted.";
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
