// Slack mrkdwn to DOM: *bold*, _italic_, ~strike~, `code`, ```code blocks```,
// <url|links>, <@U…> mentions (as @name), <#C…> channels, <!here>, <!date^…|fallback>
// (the fallback, with the reader's local time as a tooltip), > quotes and list lines.
// Slack escapes & < > as entities; they are decoded only into text nodes.
import { h } from "./dom.js";

const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">" };
const SAFE_URL = /^(https?:|mailto:)/i;
const CODE_BLOCK = /```([\s\S]*?)```/g;
const QUOTE = /^(>|&gt;) ?/;
const LIST = /^(\s*)([•◦▪‣-]|\d{1,3}[.)])\s+/;
const INLINE = new RegExp(
  [
    "`([^`\\n]+)`", // 1: code
    "<([^<>\\n]+)>", // 2: link, mention, date, special
    "(?<![\\w*])\\*(?=\\S)([^*\\n]*?[^\\s*])\\*(?![\\w*])", // 3: bold
    "(?<![\\w_])_(?=\\S)([^_\\n]*?[^\\s_])_(?![\\w_])", // 4: italic
    "(?<![\\w~])~(?=\\S)([^~\\n]*?[^\\s~])~(?![\\w~])", // 5: strike
  ].join("|"),
  "g",
);

export function decode(text) {
  return String(text).replace(/&(amp|lt|gt);/g, (m) => ENTITIES[m]);
}

/**
 * Render mrkdwn ``text`` into a fragment.
 * ``ctx.users`` / ``ctx.channels`` map ids to records, for mentions.
 */
export function mrkdwn(text, ctx = {}) {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const match of String(text).matchAll(CODE_BLOCK)) {
    out.append(lines(text.slice(last, match.index), ctx));
    out.append(h("pre", { class: "mk-pre" }, decode(match[1].replace(/^\n/, ""))));
    last = match.index + match[0].length;
  }
  out.append(lines(text.slice(last), ctx));
  return out;
}

/** Block-level structure of text without code blocks: paragraphs, quotes, list items. */
function lines(text, ctx) {
  const out = document.createDocumentFragment();
  if (!text) return out;
  let para = [];
  const flush = () => {
    if (para.length) out.append(h("div", { class: "mk-p" }, inline(para.join("\n"), ctx)));
    para = [];
  };
  const rows = text.replace(/^\n+|\n+$/g, "").split("\n");
  for (const row of rows) {
    const quote = row.match(QUOTE);
    const item = quote ? null : row.match(LIST);
    if (quote) {
      flush();
      out.append(h("blockquote", { class: "mk-quote" }, inline(row.slice(quote[0].length), ctx)));
    } else if (item) {
      flush();
      const depth = Math.min(Math.floor(item[1].replace(/\t/g, "    ").length / 2), 4);
      const marker = /\d/.test(item[2]) ? item[2] : "•";
      out.append(
        h("div", { class: `mk-li depth-${depth}` },
          h("span", { class: "mk-marker" }, marker),
          h("span", {}, inline(row.slice(item[0].length), ctx))),
      );
    } else {
      para.push(row);
    }
  }
  flush();
  return out;
}

/** Inline formatting, recursively inside bold / italic / strike. */
export function inline(text, ctx = {}) {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.append(decode(text.slice(last, m.index)));
    if (m[1] !== undefined) out.append(h("code", { class: "mk-code" }, decode(m[1])));
    else if (m[2] !== undefined) out.append(token(m[2], ctx));
    else if (m[3] !== undefined) out.append(h("strong", {}, inline(m[3], ctx)));
    else if (m[4] !== undefined) out.append(h("em", {}, inline(m[4], ctx)));
    else out.append(h("s", {}, inline(m[5], ctx)));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.append(decode(text.slice(last)));
  return out;
}

/** What is inside <…>: a mention, a channel, a special mention, a date or a link. */
function token(body, ctx) {
  const bar = body.indexOf("|");
  const target = bar < 0 ? body : body.slice(0, bar);
  const label = bar < 0 ? null : decode(body.slice(bar + 1));
  if (target.startsWith("@")) {
    const user = (ctx.users || {})[target.slice(1)];
    const name = user ? user.name : label ? label.replace(/^@/, "") : target.slice(1);
    return h("span", { class: "mk-mention", title: user ? user.real_name : null }, `@${name}`);
  }
  if (target.startsWith("#")) {
    const channel = (ctx.channels || {})[target.slice(1)];
    return h("span", { class: "mk-mention" }, `#${channel ? channel.name : label || target.slice(1)}`);
  }
  if (target.startsWith("!date^")) {
    const epoch = Number(target.split("^")[1]);
    const local = Number.isFinite(epoch) ? new Date(epoch * 1000).toLocaleString() : null;
    return h("time", { class: "mk-date", title: local }, label || local || target);
  }
  if (target.startsWith("!subteam^")) return h("span", { class: "mk-mention" }, label || "@group");
  if (target.startsWith("!")) return h("span", { class: "mk-mention" }, `@${label || target.slice(1)}`);
  const url = decode(target);
  if (!SAFE_URL.test(url)) return document.createTextNode(label || url);
  // A permalink into this workspace opens here; anything else in a new tab.
  const here = url.startsWith(`${location.origin}/#/`);
  return h("a", { href: url, target: here ? null : "_blank", rel: "noopener noreferrer" }, label || url);
}
