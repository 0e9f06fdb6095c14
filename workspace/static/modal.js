// Modals (the top of the person's view stack) and confirm dialogs.
import { h, clear } from "./dom.js";
import { renderBlocks, inputValue, text } from "./blocks.js";

const REQUIRED = "Please complete this required field.";

/** A confirm dialog for a button's ``confirm`` object; resolves true when confirmed. */
export function confirmDialog(confirm, ctx) {
  return new Promise((resolve) => {
    const done = (answer) => {
      overlay.remove();
      document.removeEventListener("keydown", onKey);
      resolve(answer);
    };
    const onKey = (event) => event.key === "Escape" && done(false);
    const danger = confirm.style === "danger";
    const overlay = h("div", { class: "overlay confirm-overlay" },
      h("div", { class: "dialog confirm", role: "alertdialog", "aria-modal": "true", testid: "confirm-dialog" },
        h("h2", { class: "dialog-title" }, text(confirm.title || { type: "plain_text", text: "Are you sure?" })),
        h("div", { class: "dialog-body" }, text(confirm.text, ctx)),
        h("div", { class: "dialog-footer" },
          h("button", { class: "bk-button default", type: "button", testid: "confirm-deny", onclick: () => done(false) },
            text(confirm.deny || { type: "plain_text", text: "Cancel" })),
          h("button", { class: `bk-button ${danger ? "danger" : "primary"}`, type: "button", testid: "confirm-ok", onclick: () => done(true) },
            text(confirm.confirm || { type: "plain_text", text: "Yes" })))));
    document.addEventListener("keydown", onKey);
    document.body.append(overlay);
    overlay.querySelector('[data-testid="confirm-ok"]').focus();
  });
}

/**
 * Keeps the modal layer in step with the person's view stack.
 * app: { ctx(): base render context; press(el, block, view); submit(view, values); close(view) }
 */
export class ModalLayer {
  constructor(root, app) {
    this.root = root;
    this.app = app;
    this.drafts = new Map();
    this.localErrors = {};
    this.shownKey = null;
  }

  /** Show the top of ``stack`` (or nothing); re-render only when the view or its errors change. */
  show(stack) {
    this.stack = stack;
    const view = stack.length ? stack[stack.length - 1] : null;
    if (!view || !this.view || this.view.id !== view.id || this.view.hash !== view.hash) this.localErrors = {};
    const key = view ? `${view.id}:${view.hash}:${JSON.stringify(view.errors)}:${JSON.stringify(this.localErrors)}` : null;
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.view = view;
    clear(this.root);
    if (!view) return;
    this.root.append(this.render(view, stack.length));
    const first = this.root.querySelector("textarea, input[type=text], input[type=radio]:checked");
    if (first && !this.root.contains(document.activeElement)) first.focus();
  }

  render(view, depth) {
    const ctx = {
      ...this.app.ctx(),
      press: (el, block) => this.app.press(el, block, view),
      errors: { ...(view.errors || {}), ...this.localErrors },
      inputs: {
        get: (block, el) => this.drafts.get(this.key(view, block, el)),
        set: (block, el, value) => this.drafts.set(this.key(view, block, el), value),
      },
    };
    const closeLabel = view.close ? view.close.text : depth > 1 ? "Back" : "Cancel";
    const form = h("form", {
      class: "dialog modal",
      role: "dialog",
      "aria-modal": "true",
      testid: "modal",
      dataset: { viewId: view.id, callbackId: view.callback_id || "" },
      onsubmit: (event) => {
        event.preventDefault();
        this.submit(view, ctx);
      },
      onkeydown: (event) => event.key === "Escape" && this.app.close(view),
    },
      h("div", { class: "dialog-header" },
        h("h2", { class: "dialog-title", testid: "modal-title" }, text(view.title)),
        h("button", { class: "icon-button", type: "button", "aria-label": "Close", testid: "modal-x", onclick: () => this.app.close(view) }, "×")),
      h("div", { class: "dialog-body" }, renderBlocks(view.blocks, ctx)),
      h("div", { class: "dialog-footer" },
        h("button", { class: "bk-button default", type: "button", testid: "modal-close", onclick: () => this.app.close(view) }, closeLabel),
        view.submit ? h("button", { class: "bk-button primary", type: "submit", testid: "modal-submit" }, text(view.submit)) : null));
    return h("div", { class: "overlay" }, form);
  }

  key(view, block, el) {
    return `${view.id}|${block.block_id}|${el.action_id}`;
  }

  async submit(view, ctx) {
    const values = {};
    const missing = {};
    for (const block of view.blocks || []) {
      if (block.type !== "input" || !block.element) continue;
      const value = inputValue(block, ctx);
      const empty = value === null || value === "" || (Array.isArray(value) && !value.length);
      if (empty && !block.optional) missing[block.block_id] = REQUIRED;
      else if (!empty) values[block.block_id] = value;
    }
    this.localErrors = missing;
    if (Object.keys(missing).length) {
      this.shownKey = null;
      this.show(this.stack);
      return;
    }
    const button = this.root.querySelector('[data-testid="modal-submit"]');
    if (button) button.disabled = true;
    try {
      await this.app.submit(view, values);
    } finally {
      if (button) button.disabled = false;
    }
  }
}
