// A tiny DOM builder: the pages build every element with it, so no data is ever parsed as markup.

/**
 * `h("a", { href: "x", class: "link", onclick }, "text", child)`: an element with attributes,
 * event handlers (`on…`), `dataset` entries and children (strings become text nodes; null and
 * false are skipped).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key === "class") element.className = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `element`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** The element with this id (the pages' HTML names every slot they fill). */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}`);
  return element;
}

/** A table with a header row and one row per item; `columns`: [{ label, value(item), class? }]. */
export function table(columns, items, { rowAttributes } = {}) {
  return h(
    "table",
    {},
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        columns.map((c) => h("th", { class: c.class }, c.label)),
      ),
    ),
    h(
      "tbody",
      {},
      items.map((item) =>
        h(
          "tr",
          rowAttributes ? rowAttributes(item) : {},
          columns.map((c) => h("td", { class: c.class }, c.value(item))),
        ),
      ),
    ),
  );
}
