// One message (or ephemeral) in a channel or a thread, Slack-style.
import { h, avatar, timeOf } from "./dom.js";
import { renderBlocks } from "./blocks.js";
import { mrkdwn } from "./mrkdwn.js";

/**
 * view: { users (id map), ctx(): base block context,
 *         press(el, block, target): a button on a message or ephemeral,
 *         openThread(ts), dismiss(ephemeral), fresh: Set of ts just posted }
 */
export function renderMessage(message, view, { replies = [], inThread = false } = {}) {
  const author = view.users[message.user];
  const ctx = { ...view.ctx(), press: (el, block) => view.press(el, block, message) };
  const node = h("div", {
    class: `message${view.fresh.has(message.ts) ? " fresh" : ""}`,
    testid: inThread ? "thread-message" : "message",
    dataset: { ts: message.ts, user: author ? author.name : message.user, bot: message.bot_id ? "true" : "false" },
  },
    avatar(author),
    h("div", { class: "message-main" },
      meta(author, message),
      body(message, ctx),
      !inThread && replies.length ? threadSummary(message, replies, view) : null),
    !inThread
      ? h("div", { class: "message-tools" },
        h("button", { class: "tool", type: "button", testid: "reply-in-thread", title: "Reply in thread", onclick: () => view.openThread(message.ts) }, "💬 Reply"))
      : null);
  return node;
}

export function renderEphemeral(ephemeral, view) {
  const bot = Object.values(view.users).find((u) => u.is_bot);
  const ctx = { ...view.ctx(), press: (el, block) => view.press(el, block, ephemeral) };
  return h("div", { class: `message ephemeral${view.fresh.has(ephemeral.ts) ? " fresh" : ""}`, testid: "ephemeral", dataset: { ts: ephemeral.ts } },
    avatar(bot),
    h("div", { class: "message-main" },
      meta(bot, ephemeral),
      body(ephemeral, ctx),
      h("div", { class: "ephemeral-note" },
        h("span", { class: "eye", "aria-hidden": "true" }, "👁"),
        " Only visible to you · ",
        h("button", { class: "link", type: "button", testid: "dismiss", onclick: () => view.dismiss(ephemeral) }, "Dismiss"))));
}

function meta(author, message) {
  return h("div", { class: "message-meta" },
    h("span", { class: "author" }, author ? (author.is_bot ? "Tandem" : author.real_name || author.name) : message.user),
    author && author.is_bot ? h("span", { class: "badge" }, "APP") : null,
    author && !author.is_bot ? h("span", { class: "handle" }, `@${author.name}`) : null,
    h("time", { class: "time", title: new Date(Number(message.ts) * 1000).toLocaleString() }, timeOf(message.ts)),
    message.edited ? h("span", { class: "edited" }, "(edited)") : null,
    message.streaming ? h("span", { class: "streaming", testid: "streaming" }, "writing…") : null);
}

function body(message, ctx) {
  const shared = files(message.files || []);
  if (message.blocks && message.blocks.length) return h("div", { class: "message-body" }, renderBlocks(message.blocks, ctx), shared);
  if (!message.text && shared) return h("div", { class: "message-body" }, shared);
  return h("div", { class: "message-body mrkdwn" }, mrkdwn(message.text || "", ctx), shared);
}

// Files shared with a message (files_upload_v2): images inline, anything else as a link.
function files(list) {
  if (!list.length) return null;
  return h("div", { class: "message-files" }, list.map((file) => {
    const src = new URL(file.url_private, location.href).pathname; // served by this workspace
    if (String(file.mimetype || "").startsWith("image/")) {
      return h("figure", { class: "file-image", testid: "file", dataset: { name: file.name } },
        h("img", { src, alt: file.alt_txt || file.title || file.name, loading: "lazy" }),
        h("figcaption", { class: "file-title" }, file.title || file.name));
    }
    return h("a", { class: "file-link", testid: "file", href: src, download: file.name, dataset: { name: file.name } }, `📎 ${file.title || file.name}`);
  }));
}

function threadSummary(message, replies, view) {
  const people = [...new Set(replies.map((r) => r.user))].slice(0, 4);
  const label = `${replies.length} ${replies.length === 1 ? "reply" : "replies"}`;
  return h("button", { class: "thread-summary", type: "button", testid: "open-thread", onclick: () => view.openThread(message.ts) },
    h("span", { class: "mini-avatars" }, people.map((id) => avatar(view.users[id]))),
    h("span", { class: "count" }, label),
    h("span", { class: "last" }, `Last reply ${timeOf(replies[replies.length - 1].ts)}`));
}
