// A picture for a product card, drawn here from the product itself: the outline of its kind
// of garment, filled with its colours in bands. No image is fetched from anywhere.

const SVG = "http://www.w3.org/2000/svg";

// Outlines on a 64×64 grid. Sleeved tops share a body; trousers, skirts and shoes their own.
const SHAPES = {
  tee: "M22 9 L27 7 Q32 12 37 7 L42 9 L55 19 L49 27 L44 23 L44 57 L20 57 L20 23 L15 27 L9 19 Z",
  shirt: "M22 8 L28 6 L32 12 L36 6 L42 8 L53 16 L57 45 L51 46 L46 25 L46 58 L18 58 L18 25 L13 46 L7 45 L11 16 Z",
  knit: "M23 8 Q32 13 41 8 L53 15 L58 46 L51 47 L46 26 L46 58 L18 58 L18 26 L13 47 L6 46 L11 15 Z",
  jacket: "M21 7 L28 5 L32 14 L36 5 L43 7 L54 15 L58 47 L51 48 L47 26 L47 59 L17 59 L17 26 L13 48 L6 47 L10 15 Z",
  trousers: "M19 6 L45 6 L48 58 L36 58 L32 24 L28 58 L16 58 Z",
  dress: "M26 6 L38 6 L37 17 L43 25 L53 58 L11 58 L21 25 L27 17 Z",
  skirt: "M21 14 L43 14 L53 52 L11 52 Z",
  sneaker: "M7 38 L10 26 Q18 29 26 22 L35 30 Q47 33 57 38 L57 46 L7 46 Z",
  boot: "M21 8 L38 8 L38 33 Q51 35 55 44 L55 53 L21 53 Z",
  sandal: "M8 42 Q32 36 56 42 L56 48 Q32 44 8 48 Z M18 41 L26 29 L34 40 L30 40 L26 34 L22 41 Z",
  other: "M14 10 L40 10 L56 26 L40 42 L14 42 Q10 42 10 38 L10 14 Q10 10 14 10 Z",
};
// The card's catalog category decides the drawing; an older card without one falls back to
// its style number's code (TS-0001 is a t-shirt), then its name.
const BY_CATEGORY = {
  "t-shirts": "tee", shirts: "shirt", knitwear: "knit", jackets: "jacket", jeans: "trousers",
  trousers: "trousers", dresses: "dress", skirts: "skirt", sneakers: "sneaker", boots: "boot",
  sandals: "sandal",
};
const BY_SKU = {
  TS: "tee", SH: "shirt", KN: "knit", JK: "jacket", JN: "trousers", TR: "trousers",
  DR: "dress", SK: "skirt", SN: "sneaker", BT: "boot", SD: "sandal",
};
const BY_NAME = [
  [/\b(tee|t-shirt|henley)\b/i, "tee"], [/\bshirt|blouse\b/i, "shirt"],
  [/\b(knit|sweater|jumper|cardigan|hoodie)\b/i, "knit"], [/\b(jacket|coat|parka|blazer)\b/i, "jacket"],
  [/\b(jeans|trousers|chinos|pants)\b/i, "trousers"], [/\bdress\b/i, "dress"], [/\bskirt\b/i, "skirt"],
  [/\b(sneakers?|trainers?|runners?)\b/i, "sneaker"], [/\bboots?\b/i, "boot"], [/\bsandals?\b/i, "sandal"],
];

let drawn = 0; // clip-path ids must be unique in the page

export function shapeOf(product) {
  const category = String(product.category || "").toLowerCase();
  if (BY_CATEGORY[category]) return BY_CATEGORY[category];
  const code = String(product.sku || "").slice(0, 2).toUpperCase();
  if (BY_SKU[code]) return BY_SKU[code];
  const name = String(product.name || "");
  return BY_NAME.find(([pattern]) => pattern.test(name))?.[1] || "other";
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

/** An SVG of the product's kind, filled with its colours; decorative (the card says it all). */
export function productArt(product) {
  const shape = shapeOf(product);
  const colours = (Array.isArray(product.colours) ? product.colours : []).map(String).slice(0, 4);
  const clipId = `card-art-${(drawn += 1)}`;
  const root = svg("svg", {
    class: `card-art art-${shape}`, viewBox: "0 0 64 64", "aria-hidden": "true", focusable: "false",
    "data-shape": shape,
  });
  const clip = svg("clipPath", { id: clipId });
  clip.append(svg("path", { d: SHAPES[shape] }));
  root.append(clip);
  const bands = svg("g", { "clip-path": `url(#${clipId})` });
  const fills = colours.length ? colours : ["none"];
  const width = 64 / fills.length;
  fills.forEach((colour, i) => {
    bands.append(svg("rect", {
      x: String(i * width), y: "0", width: String(width + 0.5), height: "64",
      class: `art-fill fill-${colour.toLowerCase().replace(/[^a-z]/g, "")}`,
    }));
  });
  root.append(bands, svg("path", { d: SHAPES[shape], class: "art-outline" }));
  return root;
}
