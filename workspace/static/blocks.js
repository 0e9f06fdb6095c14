// Block Kit to DOM, for what Tandem sends: header, section (text, fields, accessory),
// context, context_actions (feedback_buttons), divider, markdown (standard Markdown), table (raw_text / raw_number cells, the first
// row as its header), data_table (its caption, pages of page_size rows, sorted by a click on a column's header), actions (buttons with styles and confirm dialogs) and, in modals,
// input blocks with radio_buttons, plain_text_input, static_select and checkboxes.
// Any other block or element is shown as its pretty-printed JSON, so nothing breaks the page.
import { h } from "./dom.js";
import { markdown } from "./markdown.js";
import { mrkdwn } from "./mrkdwn.js";

/**
 * ctx: { users, channels: id maps for mentions;
 *        press(element, block): a button was pressed (after its confirm dialog, if any);
 *        confirm(confirmObject): Promise<boolean>;
 *        inputs: { get(block, element), set(block, element, value) } and errors: {block_id: text}, in modals }
 */
export function renderBlocks(blocks, ctx) {
  const box = h("div", { class: "blocks" });
  for (const block of blocks || []) box.append(renderBlock(block, ctx));
  return box;
}

const BLOCKS = { header, section, context, divider, actions, input, markdown: markdownBlock, table, data_table: dataTable, context_actions: contextActions };

function renderBlock(block, ctx) {
  const render = block && Object.hasOwn(BLOCKS, block.type) ? BLOCKS[block.type] : null;
  if (!render) return unsupported(block, "block");
  try {
    return render(block, ctx);
  } catch (error) {
    console.warn("could not render block", block, error);
    return unsupported(block, "block");
  }
}

/** The JSON of anything this page does not render natively. */
export function unsupported(thing, what) {
  const type = thing && typeof thing === "object" && typeof thing.type === "string" ? thing.type : "unknown";
  return h("div", { class: `bk-unsupported ${what}`, testid: `${what}-unsupported`, dataset: { type } },
    h("div", { class: "bk-unsupported-title" }, `Not rendered here: ${what} "${type}"`),
    h("pre", {}, JSON.stringify(thing, null, 2)));
}

/** A text object: mrkdwn or plain_text. */
export function text(obj, ctx) {
  if (!obj) return document.createTextNode("");
  if (typeof obj === "string") return document.createTextNode(obj);
  if (obj.type === "mrkdwn") return h("div", { class: "mrkdwn" }, mrkdwn(obj.text || "", ctx));
  if (obj.type === "plain_text") return document.createTextNode(obj.text || "");
  return unsupported(obj, "element");
}

function header(block) {
  return h("div", { class: "bk-header", testid: "block-header" }, text(block.text));
}

function section(block, ctx) {
  const body = h("div", { class: "bk-section-body" });
  if (block.text) body.append(h("div", { class: "bk-text" }, text(block.text, ctx)));
  if (block.fields && block.fields.length) {
    body.append(h("div", { class: "bk-fields" }, block.fields.map((f) => h("div", { class: "bk-field" }, text(f, ctx)))));
  }
  const accessory = block.accessory ? h("div", { class: "bk-accessory" }, element(block.accessory, block, ctx)) : null;
  return h("div", { class: "bk-section", testid: "block-section" }, body, accessory);
}

function context(block, ctx) {
  const items = (block.elements || []).map((el) =>
    el.type === "mrkdwn" || el.type === "plain_text" ? h("div", { class: "bk-context-item" }, text(el, ctx)) : unsupported(el, "element"),
  );
  return h("div", { class: "bk-context", testid: "block-context" }, items);
}

function markdownBlock(block) {
  return h("div", { class: "bk-markdown", testid: "block-markdown" }, markdown(block.text || ""));
}

function table(block) {
  const cell = (c, tag) => {
    if (c && (c.type === "raw_text" || c.type === "raw_number")) return h(tag, {}, String(c.text ?? c.value ?? ""));
    return h(tag, {}, unsupported(c, "element"));
  };
  const rows = block.rows || [];
  const head = rows.length ? h("thead", {}, h("tr", {}, rows[0].map((c) => cell(c, "th")))) : null;
  const body = h("tbody", {}, rows.slice(1).map((row) => h("tr", {}, row.map((c) => cell(c, "td")))));
  return h("div", { class: "bk-table-wrap", testid: "block-table" }, h("table", { class: "bk-table" }, head, body));
}

// The page and sort a person chose for a data_table, by the table's content: the page draws a channel afresh
// whenever a message arrives or changes, and a sort must not snap back then (it does not in Slack). Only tables
// someone sorted or paged are kept, the last TABLE_VIEWS_KEPT of them: a page open for weeks does not grow.
const tableViews = new Map();
const TABLE_VIEWS_KEPT = 50;

function keepTableView(id, view) {
  tableViews.delete(id);
  tableViews.set(id, view);
  if (tableViews.size > TABLE_VIEWS_KEPT) tableViews.delete(tableViews.keys().next().value);
}

function dataTable(block) {
  const [header = [], ...rows] = block.rows || [];
  const size = Math.max(1, Math.min(100, block.page_size || 5));
  const shown = (c) => (c && (c.type === "raw_text" || c.type === "raw_number") ? String(c.text ?? c.value ?? "") : null);
  const key = (c) => (c && c.type === "raw_number" ? Number(c.value) : (shown(c) || "").toLowerCase());
  const id = JSON.stringify(block);
  const view = tableViews.get(id) ?? { page: 0, column: null, ascending: true };
  const box = h("div", { class: "bk-table-wrap", testid: "block-data-table" });
  const draw = () => {
    const sorted = view.column === null ? rows : [...rows].sort((a, b) => {
      const [x, y] = [key(a[view.column]), key(b[view.column])];
      return (x < y ? -1 : x > y ? 1 : 0) * (view.ascending ? 1 : -1);
    });
    const pages = Math.max(1, Math.ceil(sorted.length / size));
    view.page = Math.min(view.page, pages - 1);
    const cell = (c, tag) => (shown(c) === null ? h(tag, {}, unsupported(c, "element")) : h(tag, {}, shown(c)));
    const heads = header.map((c, i) => {
      const mark = view.column === i ? (view.ascending ? " ▲" : " ▼") : "";
      const th = h("th", { class: "bk-sortable", title: "Sort by this column" }, `${shown(c) ?? ""}${mark}`);
      th.addEventListener("click", () => {
        view.ascending = view.column === i ? !view.ascending : true;
        view.column = i;
        keepTableView(id, view);
        draw();
      });
      return th;
    });
    const body = sorted.slice(view.page * size, (view.page + 1) * size).map((row) => h("tr", {}, row.map((c) => cell(c, "td"))));
    const table = h("table", { class: "bk-table" }, h("caption", { class: "bk-caption" }, block.caption || ""),
      h("thead", {}, h("tr", {}, heads)), h("tbody", {}, body));
    const pager = [];
    if (pages > 1) {
      const go = (to, label) => {
        const b = h("button", { class: "bk-page", type: "button", disabled: to < 0 || to >= pages }, label);
        b.addEventListener("click", () => { view.page = to; keepTableView(id, view); draw(); });
        return b;
      };
      pager.push(h("div", { class: "bk-pager" }, go(view.page - 1, "‹"), ` Page ${view.page + 1} of ${pages} `, go(view.page + 1, "›")));
    }
    box.replaceChildren(table, ...pager);
  };
  draw();
  return box;
}

function divider() {
  return h("hr", { class: "bk-divider" });
}

function actions(block, ctx) {
  return h("div", { class: "bk-actions", testid: "block-actions" }, (block.elements || []).map((el) => element(el, block, ctx)));
}

function element(el, block, ctx) {
  if (el && el.type === "button") return button(el, block, ctx);
  if (el && el.type === "feedback_buttons") return feedbackButtons(el, block, ctx);
  return unsupported(el, "element");
}

function contextActions(block, ctx) {
  return h("div", { class: "bk-context-actions", testid: "block-context-actions" }, (block.elements || []).map((el) => element(el, block, ctx)));
}

/** 👍/👎: each press sends the element's action_id with that button's value, as Slack does. */
function feedbackButtons(el, block, ctx) {
  const one = (b, kind) =>
    h("button", {
      class: "bk-feedback",
      type: "button",
      testid: `feedback-${kind}`,
      title: b.accessibility_label || null,
      onclick: () => ctx.press({ action_id: el.action_id, value: b.value }, block),
    }, text(b.text));
  return h("span", { class: "bk-feedback-buttons" }, one(el.positive_button || {}, "positive"), one(el.negative_button || {}, "negative"));
}

function button(el, block, ctx) {
  const style = el.style === "primary" || el.style === "danger" ? el.style : "default";
  const node = h("button", {
    class: `bk-button ${style}`,
    type: "button",
    testid: "button",
    dataset: { actionId: el.action_id || "" },
    onclick: async () => {
      if (el.url) window.open(el.url, "_blank", "noopener");
      if (el.confirm && !(await ctx.confirm(el.confirm))) return;
      node.disabled = true;
      node.classList.add("busy");
      try {
        await ctx.press(el, block);
      } finally {
        node.disabled = false;
        node.classList.remove("busy");
      }
    },
  }, text(el.text));
  return node;
}

// -- inputs (modals) ---------------------------------------------------------------------

const INPUTS = { radio_buttons: radios, plain_text_input: plainText, static_select: select, checkboxes };

function input(block, ctx) {
  const el = block.element || {};
  const render = Object.hasOwn(INPUTS, el.type) ? INPUTS[el.type] : null;
  const error = ctx.errors && ctx.errors[block.block_id];
  const label = h("label", { class: "bk-label" }, text(block.label),
    block.optional ? h("span", { class: "bk-optional" }, " (optional)") : null);
  return h("div", { class: error ? "bk-input has-error" : "bk-input", testid: "block-input", dataset: { blockId: block.block_id || "" } },
    label,
    render && ctx.inputs ? render(block, el, ctx) : unsupported(el, "element"),
    block.hint ? h("div", { class: "bk-hint" }, text(block.hint)) : null,
    error ? h("div", { class: "bk-error", testid: "input-error", role: "alert" }, error) : null);
}

function radios(block, el, ctx) {
  const chosen = ctx.inputs.get(block, el) ?? (el.initial_option ? el.initial_option.value : null);
  const name = `${block.block_id}-${el.action_id}`;
  return h("div", { class: "bk-radios", role: "radiogroup" }, (el.options || []).map((option) =>
    h("label", { class: "bk-radio", testid: "radio-option", dataset: { value: option.value } },
      h("input", {
        type: "radio", name, value: option.value, checked: option.value === chosen,
        onchange: () => ctx.inputs.set(block, el, option.value),
      }),
      h("span", { class: "bk-radio-text" },
        text(option.text, ctx),
        option.description ? h("span", { class: "bk-radio-description" }, text(option.description, ctx)) : null),
    )));
}

function plainText(block, el, ctx) {
  const value = ctx.inputs.get(block, el) ?? el.initial_value ?? "";
  const props = {
    class: "bk-textinput",
    testid: "text-input",
    dataset: { blockId: block.block_id || "" },
    placeholder: el.placeholder ? el.placeholder.text : null,
    maxlength: el.max_length || null,
    value,
    oninput: (event) => ctx.inputs.set(block, el, event.target.value),
  };
  return el.multiline ? h("textarea", { ...props, rows: 4 }) : h("input", { ...props, type: "text" });
}

function select(block, el, ctx) {
  const chosen = ctx.inputs.get(block, el) ?? (el.initial_option ? el.initial_option.value : "");
  const options = (el.options || []).map((o) => h("option", { value: o.value, selected: o.value === chosen }, o.text.text));
  return h("select", { class: "bk-select", onchange: (e) => ctx.inputs.set(block, el, e.target.value) },
    h("option", { value: "", disabled: true, selected: !chosen }, el.placeholder ? el.placeholder.text : "Choose…"),
    options);
}

function checkboxes(block, el, ctx) {
  const initial = (el.initial_options || []).map((o) => o.value);
  const chosen = new Set(ctx.inputs.get(block, el) ?? initial);
  return h("div", { class: "bk-radios" }, (el.options || []).map((option) =>
    h("label", { class: "bk-radio" },
      h("input", {
        type: "checkbox", value: option.value, checked: chosen.has(option.value),
        onchange: (e) => {
          if (e.target.checked) chosen.add(option.value);
          else chosen.delete(option.value);
          ctx.inputs.set(block, el, [...chosen]);
        },
      }),
      h("span", { class: "bk-radio-text" }, text(option.text, ctx),
        option.description ? h("span", { class: "bk-radio-description" }, text(option.description, ctx)) : null))));
}

/** The value Slack would submit for an input block, or null when nothing is chosen. */
export function inputValue(block, ctx) {
  const el = block.element || {};
  const entered = ctx.inputs.get(block, el);
  if (el.type === "radio_buttons" || el.type === "static_select") return entered ?? (el.initial_option ? el.initial_option.value : null);
  if (el.type === "checkboxes") return entered ?? (el.initial_options || []).map((o) => o.value);
  if (el.type === "plain_text_input") return entered ?? el.initial_value ?? null;
  return null;
}
