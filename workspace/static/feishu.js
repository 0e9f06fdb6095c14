// The local Feishu chat: polls /ui/state, renders card JSON 2.0, and sends messages and clicks
// through the fake (which encrypts and signs them for the bot, as Feishu does).

const feed = document.getElementById("feed");
const personSelect = document.getElementById("person");
const statusLine = document.getElementById("status");
const toasts = document.getElementById("toasts");
let person = new URLSearchParams(location.search).get("as") || "alice";
let names = {};
let shown = new Map(); // message id -> rendered signature
let privateShown = "";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// Card markdown as DOM nodes: mentions (<at id=ou_x></at>), **bold**, `code`, code fences,
// [links](url), line breaks. The bot escapes what people wrote (&lt; …): entities are decoded into text.
const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', "#39": "'" };
const INLINE = /<at (?:id|user_id)="?([^"> ]+)"?><\/at>|`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\((https?:[^)\s]+)\)|\n/g;

function decode(text) {
  return text.replace(/&(lt|gt|amp|quot|#39);/g, (_, name) => ENTITIES[name]);
}

function inline(text, parent) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    parent.append(decode(text.slice(last, match.index)));
    last = match.index + match[0].length;
    const [, mention, code, bold, label, url] = match;
    if (mention !== undefined) {
      const name = names[mention] || mention;
      parent.append(el("span", { class: "mention", text: `@${name.toLowerCase()}` }));
    } else if (code !== undefined) {
      parent.append(el("code", { text: decode(code) }));
    } else if (bold !== undefined) {
      const strong = el("b");
      inline(bold, strong);
      parent.append(strong);
    } else if (label !== undefined) {
      parent.append(el("a", { href: url, target: "_blank", rel: "noopener", text: decode(label) }));
    } else {
      parent.append(el("br"));
    }
  }
  parent.append(decode(text.slice(last)));
}

function markdown(content, parent) {
  let last = 0;
  for (const match of content.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
    inline(content.slice(last, match.index), parent);
    parent.append(el("pre", { text: decode(match[1]) }));
    last = match.index + match[0].length;
  }
  inline(content.slice(last), parent);
  return parent;
}

function formValues(node) {
  const form = node.closest("[data-form]");
  if (!form) return null;
  const values = {};
  for (const field of form.querySelectorAll("[name]")) {
    if (field.value !== "") values[field.name] = field.value;
  }
  return values;
}

function renderElement(element, messageId) {
  switch (element.tag) {
    case "markdown": {
      return markdown(element.content || "", el("div", { class: `md ${element.text_size || ""}`, "data-testid": "feishu-md" }));
    }
    case "hr":
      return el("hr");
    case "column_set":
      return el("div", { class: "buttons" }, ...(element.columns || []).flatMap((c) => (c.elements || []).map((e) => renderElement(e, messageId))));
    case "button": {
      const value = ((element.behaviors || []).find((b) => b.type === "callback") || {}).value;
      const button = el("button", {
        type: "button",
        class: `btn ${element.type || ""}`,
        "data-action": value ? value.action : "",
        text: (element.text || {}).content || "",
      });
      button.addEventListener("click", () => click(messageId, value || {}, element.form_action_type === "submit" ? formValues(button) : null, button));
      return button;
    }
    case "collapsible_panel": {
      const title = ((element.header || {}).title || {}).content || "";
      const panel = el("details", { class: "panel", "data-testid": "feishu-panel" }, el("summary", { text: title }),
        ...(element.elements || []).map((e) => renderElement(e, messageId)));
      if (element.expanded) panel.open = true;
      return panel;
    }
    case "table": {
      const columns = element.columns || [];
      const head = el("tr", {}, ...columns.map((c) => el("th", { text: c.display_name || "" })));
      const rows = (element.rows || []).map((row) =>
        el("tr", {}, ...columns.map((c) => markdown(String(row[c.name] ?? ""), el("td", { class: "md" })))));
      return el("table", { class: "table", "data-testid": "feishu-table" }, el("thead", {}, head), el("tbody", {}, ...rows));
    }
    case "form":
      return el("div", { class: "form", "data-form": element.name || "form" }, ...(element.elements || []).map((e) => renderElement(e, messageId)));
    case "input":
      return el("textarea", { name: element.name, placeholder: (element.placeholder || {}).content || "", "data-testid": "feishu-input" });
    case "select_static": {
      const select = el("select", { name: element.name, "data-testid": "feishu-select" });
      for (const option of element.options || []) {
        const item = el("option", { value: option.value, text: (option.text || {}).content || option.value });
        if (option.value === element.initial_option) item.selected = true;
        select.append(item);
      }
      return select;
    }
    default:
      return element.elements ? el("div", {}, ...element.elements.map((e) => renderElement(e, messageId))) : null;
  }
}

function renderCard(card, messageId) {
  const header = card.header || {};
  const title = (header.title || {}).content || "";
  const elements = ((card.body || {}).elements || []).map((e) => renderElement(e, messageId));
  return el("div", { class: "card", "data-testid": "feishu-card" },
    title ? el("div", { class: `card-header ${header.template || ""}`, text: title }) : null,
    el("div", { class: "card-body" }, ...elements));
}

function renderMessage(message) {
  const body = message.card ? renderCard(message.card, message.id) : el("div", { class: "md", text: message.text });
  return el("div", {
    class: "msg",
    "data-testid": "feishu-message",
    "data-id": message.id,
    "data-sender": message.sender,
  }, el("div", { class: `sender ${message.bot ? "bot" : ""}`, text: message.sender }), body);
}

function conversation(root) {
  let node = feed.querySelector(`[data-root="${root.id}"]`);
  if (node) return node;
  const input = el("input", { placeholder: "Reply in thread", "data-testid": "feishu-thread-input" });
  const reply = el("form", { class: "reply", autocomplete: "off" }, input, el("button", { type: "submit", text: "Reply" }));
  reply.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    post("/ui/say", { person, text, root_id: root.id });
  });
  node = el("div", { class: "conversation", "data-testid": "feishu-conversation", "data-root": root.id, "data-bot": String(root.bot) },
    el("div", { class: "root" }),
    el("div", { class: "thread", "data-testid": "feishu-thread", hidden: "" }, el("div", { class: "thread-title", text: "Thread" }), el("div", { class: "replies" }), reply));
  const privateBox = feed.querySelector("[data-testid=feishu-private]");
  feed.insertBefore(node, privateBox);
  return node;
}

function place(message, messages) {
  const signature = JSON.stringify(message);
  if (shown.get(message.id) === signature) return;
  shown.set(message.id, signature);
  const rendered = renderMessage(message);
  if (!message.root_id) {
    const node = conversation(message);
    node.querySelector(".root").replaceChildren(rendered);
    if (message.bot) node.querySelector(".thread").hidden = false;
    return;
  }
  const root = messages.find((m) => m.id === message.root_id) || { id: message.root_id, bot: true };
  const node = conversation(root);
  node.querySelector(".thread").hidden = false;
  const replies = node.querySelector(".replies");
  const old = replies.querySelector(`[data-id="${message.id}"]`);
  if (old) old.replaceWith(rendered);
  else replies.append(rendered);
}

function renderPrivate(cards) {
  const signature = JSON.stringify(cards);
  if (signature === privateShown) return;
  privateShown = signature;
  const box = feed.querySelector("[data-testid=feishu-private]");
  box.replaceChildren(...cards.map((c) => el("div", { class: "private", "data-testid": "feishu-private-card" },
    el("div", { class: "private-note", text: "Only visible to you" }), renderCard(c.card, ""))));
}

function toast(kind, text) {
  const node = el("div", { class: `toast ${kind}`, "data-testid": "feishu-toast", "data-kind": kind, text });
  toasts.append(node);
  setTimeout(() => node.remove(), 8000);
}

async function post(path, body) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await response.json();
  if (!response.ok) toast("error", data.error || "failed");
  else if (data.status !== 200) toast("error", `the bot answered ${data.status}: ${JSON.stringify(data.body)}`);
  return data;
}

async function click(messageId, value, formValue, button) {
  button.disabled = true;
  try {
    const data = await post("/ui/click", { person, message_id: messageId, value, form_value: formValue });
    const answer = (data && data.body) || {};
    if (answer.toast) toast(answer.toast.type || "info", answer.toast.content || "");
  } finally {
    button.disabled = false;
  }
  refresh();
}

async function refresh() {
  try {
    const response = await fetch(`/ui/state?person=${encodeURIComponent(person)}`);
    const state = await response.json();
    names = state.names;
    if (!personSelect.options.length) {
      for (const p of state.people) personSelect.append(el("option", { value: p.name, text: `${p.name} (${p.role})` }));
      document.getElementById("roles").textContent = state.people.map((p) => `${p.name}: ${p.role}`).join(" · ");
      personSelect.value = person;
    }
    for (const message of state.messages) place(message, state.messages);
    renderPrivate(state.private);
    document.body.dataset.me = person;
    statusLine.dataset.state = "live";
    statusLine.textContent = "● connected to the local Feishu";
  } catch (error) {
    statusLine.dataset.state = "down";
    statusLine.textContent = "○ reconnecting…";
  }
}

personSelect.addEventListener("change", () => {
  person = personSelect.value;
  shown = new Map();
  privateShown = "";
  feed.replaceChildren(el("div", { "data-testid": "feishu-private" }));
  refresh();
});

document.getElementById("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("composer-input");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  post("/ui/say", { person, text }).then(refresh);
});

feed.append(el("div", { "data-testid": "feishu-private" }));
refresh();
setInterval(refresh, 400);
