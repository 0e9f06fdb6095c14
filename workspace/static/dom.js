// Building DOM safely: every string becomes a text node or an attribute value,
// never HTML: nothing in this app parses a string as markup.

/**
 * h("button", {class: "x", testid: "send", onclick: fn}, "Send")
 * Props: class, testid (data-testid), dataset, text, on<event>; the rest are attributes.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "testid") el.dataset.testid = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

/** "10:42" for a Slack ts (seconds since the epoch, as a string). */
export function timeOf(ts) {
  const date = new Date(Number(ts) * 1000);
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** A few characters an avatar shows, and a stable colour for a person. */
export function avatar(user) {
  const name = (user && (user.real_name || user.name)) || "?";
  const hue = [...(user ? user.id : "?")].reduce((sum, c) => sum + c.charCodeAt(0) * 37, 0) % 360;
  const style = user && user.is_bot ? "" : `background: hsl(${hue} 45% 42%)`;
  return h("div", { class: user && user.is_bot ? "avatar bot" : "avatar", style, "aria-hidden": "true" },
    user && user.is_bot ? "T" : name.slice(0, 1).toUpperCase());
}
