// Text to DOM for answers, product cards and memory lines. Model and memory text only ever
// reaches the page through textContent: a stored note or a model answer can never inject
// markup, and only the product pages of this answer's own cards ever become links.

import { productArt } from "./art.js";

// **bold**, [label](href): the two inline forms answers use.
const INLINE = /\*\*([^*\n]+)\*\*|\[([^\]\n]+)\]\(([^)\s]*)\)/g;
const BULLET = /^\s*[-*•]\s+(.*)$/;
// This shop's product pages; anything else (another path, another site) is never a link.
const PRODUCT_HREF = /^\/products\/[A-Za-z0-9_\-/]*$/;

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

export function isProductHref(href) {
  return typeof href === "string" && PRODUCT_HREF.test(href) && !href.includes("//");
}

/** The links an answer may hold: the product pages of its own cards, nothing else. */
export function linksOf(products) {
  return new Set((Array.isArray(products) ? products : [])
    .map((product) => product?.url)
    .filter(isProductHref));
}

function appendInline(parent, text, links) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(text.slice(last, match.index));
    const [, bold, label, href] = match;
    if (bold !== undefined) parent.append(el("strong", { text: bold }));
    else if (links.has(href)) parent.append(el("a", { text: label, attrs: { href } }));
    else parent.append(label); // any other link keeps its words and loses its target
    last = match.index + match[0].length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

/**
 * While an answer streams, its last line may hold markup that has not closed yet: an open
 * `**` is shown bold up to where the text has got, a link still arriving as its label.
 */
export function streamingText(text) {
  // A bullet whose words have not come yet is no bullet.
  let shown = text.replace(/(^|\n)\s*[-*•]\s*$/, "$1");
  shown = shown.replace(/\[([^\]\n]*)(?:\]\([^)\s]*)?$/, "$1");
  const lastLine = shown.slice(shown.lastIndexOf("\n") + 1);
  const marks = lastLine.match(/\*\*/g)?.length || 0;
  if (marks % 2) shown = /\*\*$/.test(shown) ? shown.slice(0, -2) : `${shown}**`;
  return shown;
}

/**
 * Light markdown: paragraphs, bullet lists, **bold** and links. `links` is the set of hrefs
 * that may become links (the answer's own cards); with none given, no link is ever made.
 */
export function renderMarkdown(text, { links = new Set(), streaming = false } = {}) {
  const root = document.createDocumentFragment();
  const source = streaming ? streamingText(String(text || "")) : String(text || "");
  let list = null;
  let paragraph = null;
  for (const line of source.split(/\r?\n/)) {
    const bullet = line.match(BULLET);
    if (bullet) {
      paragraph = null;
      if (!list) root.append((list = el("ul")));
      const li = el("li");
      appendInline(li, bullet[1], links);
      list.append(li);
    } else if (!line.trim()) {
      paragraph = null;
      list = null;
    } else {
      list = null;
      if (paragraph) paragraph.append(el("br"));
      else root.append((paragraph = el("p")));
      appendInline(paragraph, line, links);
    }
  }
  return root;
}

/** One line of memory (a recalled note, a record) with its **bold** shown, never a link. */
export function renderInline(text) {
  const root = document.createDocumentFragment();
  appendInline(root, String(text || ""), new Set());
  return root;
}

export function formatPrice(value) {
  const amount = Number(value);
  return Number.isFinite(amount) ? `€${amount.toFixed(2)}` : "";
}

function listOf(value) {
  return Array.isArray(value) ? value.map(String) : [];
}

function colourClass(colour) {
  return colour.toLowerCase().replace(/[^a-z]/g, "");
}

/** One card from a `done.products` entry; only a product-page URL becomes a link. */
export function productCard(product) {
  const sizes = listOf(product.sizes_in_stock);
  const colours = listOf(product.colours);
  const url = isProductHref(product.url) ? product.url : null;
  const name = String(product.name ?? "");
  const title = url
    ? el("a", { className: "card-name", text: name, attrs: { href: url, "data-testid": "card-link" } })
    : el("span", { className: "card-name", text: name });
  const swatches = el("ul", { className: "card-swatches", attrs: { "aria-label": "Colours" } },
    colours.map((colour) => el("li", { className: `card-swatch swatch-${colourClass(colour)}`, attrs: { title: colour } }, [
      el("span", { className: "visually-hidden", text: colour }),
    ])));
  return el("li", {
    className: "chat-card",
    attrs: {
      "data-testid": "product-card",
      "data-sku": product.sku,
      "data-sizes": sizes.join(" "),
      "data-colours": colours.join(" "),
      "data-price": String(product.price_eur ?? ""),
    },
  }, [
    productArt(product),
    el("div", { className: "card-body" }, [
      el("div", { className: "card-head" }, [
        title,
        el("span", { className: "card-price", text: formatPrice(product.price_eur) }),
      ]),
      el("div", { className: "card-facts" }, [
        product.brand ? el("span", { className: "card-brand", text: product.brand }) : null,
        colours.length ? swatches : null,
        el("span", {
          className: "card-sizes",
          text: sizes.length ? `Sizes ${sizes.join(" ")}` : "Out of stock",
        }),
      ]),
      product.blurb ? el("span", { className: "card-blurb", text: product.blurb }) : null,
    ]),
  ]);
}

export function productCards(products) {
  if (!Array.isArray(products) || !products.length) return null;
  return el("ul", { className: "chat-cards", attrs: { "aria-label": "Suggested products" } },
    products.map(productCard));
}

export function modelLabel(model) {
  return /offline/i.test(String(model)) ? "the offline model" : String(model);
}
