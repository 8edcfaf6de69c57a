// The page the shopper is on, as the server rendered it into the panel's data attributes
// (docs/protocol.md, `page`): a product page names its style SKU, the catalog its filters.

const FILTERS = ["q", "category", "colour", "size", "brand", "max_price"];

export function pageContext(panel) {
  const data = panel.dataset;
  if (data.pageKind === "product" && data.pageSku) return { kind: "product", sku: data.pageSku };
  if (data.pageKind !== "catalog") return { kind: "other" };
  const filters = {};
  for (const name of FILTERS) {
    // data-filter-max-price reads back as dataset.filterMaxPrice.
    const key = `filter${name.replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase())}`;
    const value = (data[key] || "").trim();
    if (!value) continue;
    if (name === "max_price") {
      const amount = Number(value);
      if (Number.isFinite(amount) && amount >= 0) filters.max_price = amount;
    } else {
      filters[name] = value.slice(0, 100);
    }
  }
  return { kind: "catalog", filters };
}
