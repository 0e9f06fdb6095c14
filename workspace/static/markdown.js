// Standard Markdown (the markdown block) to DOM: # headings, **bold**, *italic* / _italic_,
// ~~strike~~, `code`, ``` fenced code ```, [links](https://…), > quotes, - / * / 1. list items.
// The bot sends & < > as entities; they are decoded only into text nodes, never parsed as HTML.
import { h } from "./dom.js";
import { decode } from "./mrkdwn.js";

const SAFE_URL = /^(https?:|mailto:)/i;
const FENCE = /^\s*(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const QUOTE = /^(>|&gt;)\s?/;
const LIST = /^(\s*)([-*+]|\d{1,3}[.)])\s+/;
const INLINE = new RegExp(
  [
    "`([^`\\n]+)`", // 1: code
    "\\*\\*(?=\\S)([^\\n]*?\\S)\\*\\*", // 2: bold
    "~~(?=\\S)([^~\\n]*?\\S)~~", // 3: strike
    "\\[([^\\]\\n]+)\\]\\(([^)\\s]+)\\)", // 4, 5: link
    "(?<![\\w*])\\*(?=\\S)([^*\\n]*?[^\\s*])\\*(?![\\w*])", // 6: italic
    "(?<![\\w_])_(?=\\S)([^_\\n]*?[^\\s_])_(?![\\w_])", // 7: italic
  ].join("|"),
  "g",
);

export function markdown(text) {
  const out = h("div", { class: "md" });
  const rows = String(text).split("\n");
  let para = [];
  let code = null;
  const flush = () => {
    if (para.length) out.append(h("p", { class: "md-p" }, inline(para.join("\n"))));
    para = [];
  };
  for (const row of rows) {
    if (FENCE.test(row)) {
      if (code === null) {
        flush();
        code = [];
      } else {
        out.append(h("pre", { class: "mk-pre" }, decode(code.join("\n"))));
        code = null;
      }
      continue;
    }
    if (code !== null) {
      code.push(row);
      continue;
    }
    const heading = row.match(HEADING);
    const quote = row.match(QUOTE);
    const item = row.match(LIST);
    if (!row.trim()) {
      flush();
    } else if (heading) {
      flush();
      out.append(h("div", { class: `md-h md-h${heading[1].length}` }, inline(heading[2])));
    } else if (quote) {
      flush();
      out.append(h("blockquote", { class: "mk-quote" }, inline(row.slice(quote[0].length))));
    } else if (item) {
      flush();
      const marker = /\d/.test(item[2]) ? item[2] : "•";
      out.append(h("div", { class: "mk-li" }, h("span", { class: "mk-marker" }, marker), h("span", {}, inline(row.slice(item[0].length)))));
    } else {
      para.push(row);
    }
  }
  if (code !== null) out.append(h("pre", { class: "mk-pre" }, decode(code.join("\n"))));
  flush();
  return out;
}

function inline(text) {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.append(decode(text.slice(last, m.index)));
    if (m[1] !== undefined) out.append(h("code", { class: "mk-code" }, decode(m[1])));
    else if (m[2] !== undefined) out.append(h("strong", {}, inline(m[2])));
    else if (m[3] !== undefined) out.append(h("s", {}, inline(m[3])));
    else if (m[4] !== undefined) {
      const url = decode(m[5]);
      out.append(SAFE_URL.test(url) ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, decode(m[4])) : decode(m[4]));
    } else out.append(h("em", {}, inline(m[6] !== undefined ? m[6] : m[7])));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.append(decode(text.slice(last)));
  return out;
}
