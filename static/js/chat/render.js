// Text to DOM for answers and product cards. Model and memory text only ever reaches the
// page through textContent: a stored note or a model answer can never inject markup.

// Only this shop's product pages may become links; any other URL stays plain text.
const SAFE_HREF = /^\/products\/[A-Za-z0-9_\-/]*$/;
// **bold**, [label](href): the two inline forms answers use.
const INLINE = /\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
const BULLET = /^\s*[-*•]\s+(.*)$/;

export function el(tag, { className, text, attrs } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null) node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

export function isSafeHref(href) {
  return SAFE_HREF.test(href) && !href.includes("//");
}

function appendInline(parent, text) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(text.slice(last, match.index));
    const [, bold, label, href] = match;
    if (bold !== undefined) parent.append(el("strong", { text: bold }));
    else if (isSafeHref(href)) parent.append(el("a", { text: label, attrs: { href } }));
    else parent.append(label); // a foreign link keeps its words, loses its target
    last = match.index + match[0].length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

function appendLines(parent, lines) {
  lines.forEach((line, i) => {
    if (i) parent.append(el("br"));
    appendInline(parent, line);
  });
}

/** Light markdown: paragraphs, bullet lists, **bold** and links to product pages. */
export function renderMarkdown(text) {
  const root = document.createDocumentFragment();
  let list = null;
  let paragraph = [];
  const flushParagraph = () => {
    if (paragraph.length) {
      const p = el("p");
      appendLines(p, paragraph);
      root.append(p);
      paragraph = [];
    }
  };
  for (const line of String(text || "").split(/\r?\n/)) {
    const bullet = line.match(BULLET);
    if (bullet) {
      flushParagraph();
      if (!list) root.append((list = el("ul")));
      const li = el("li");
      appendInline(li, bullet[1]);
      list.append(li);
    } else if (!line.trim()) {
      flushParagraph();
      list = null;
    } else {
      list = null;
      paragraph.push(line);
    }
  }
  flushParagraph();
  return root;
}

export function formatPrice(value) {
  const amount = Number(value);
  return Number.isFinite(amount) ? `€${amount.toFixed(2)}` : "";
}

function listOf(value) {
  return Array.isArray(value) ? value.map(String) : [];
}

/** One card from a `done.products` entry; only a product-page URL becomes a link. */
export function productCard(product) {
  const sizes = listOf(product.sizes_in_stock);
  const colours = listOf(product.colours);
  const url = typeof product.url === "string" && isSafeHref(product.url) ? product.url : null;
  const name = url
    ? el("a", { className: "card-name", text: product.name, attrs: { href: url } })
    : el("span", { className: "card-name", text: product.name });
  const swatches = el("span", { className: "card-swatches", attrs: { "aria-hidden": "true" } },
    colours.map((colour) => el("span", { className: `card-swatch swatch-${colour.replace(/[^a-z]/g, "")}` })));
  return el("li", {
    className: "chat-card",
    attrs: {
      "data-testid": "product-card",
      "data-sku": product.sku,
      "data-sizes": sizes.join(" "),
      "data-colours": colours.join(" "),
    },
  }, [
    swatches,
    name,
    el("span", { className: "card-price", text: formatPrice(product.price_eur) }),
    colours.length ? el("span", { className: "card-meta", text: colours.join(", ") }) : null,
    el("span", {
      className: "card-meta",
      text: sizes.length ? `Sizes: ${sizes.join(" ")}` : "Out of stock",
    }),
  ]);
}

export function productCards(products) {
  if (!Array.isArray(products) || !products.length) return null;
  return el("ul", { className: "chat-cards", attrs: { "aria-label": "Suggested products" } },
    products.map(productCard));
}

/** A whole stored message as a log entry. */
export function messageNode(message) {
  const { role } = message;
  const li = el("li", { className: `chat-msg chat-msg-${role}`, attrs: { "data-role": role } });
  const bubble = el("div", { className: "chat-bubble", attrs: { "data-testid": `msg-${role}` } });
  if (role === "assistant") bubble.append(renderMarkdown(message.text));
  else bubble.textContent = message.text;
  li.append(bubble);
  const cards = role === "assistant" ? productCards(message.products) : null;
  if (cards) li.append(cards);
  if (role === "assistant" && message.model) {
    li.append(el("span", { className: "chat-msg-meta", text: `Answered by ${modelLabel(message.model)}` }));
  }
  return li;
}

export function modelLabel(model) {
  return /offline/i.test(String(model)) ? "the offline model" : String(model);
}
