// A message box: Enter sends, Shift+Enter is a new line; "/" opens the bot's command menu.
import { h, clear } from "./dom.js";

export const COMMANDS = [
  { usage: "/tandem <task>", insert: "/tandem ", about: "Start a run, e.g. /tandem restart payments and check errors after" },
  { usage: "/tandem help", insert: "/tandem help", about: "What Tandem can do" },
  { usage: "/tandem list", insert: "/tandem list", about: "Open runs here, and runs waiting on you" },
  { usage: "/tandem status <run>", insert: "/tandem status ", about: "Where a run stands" },
  { usage: "/tandem cancel <run>", insert: "/tandem cancel ", about: "Stop a run" },
  { usage: "/tandem rules", insert: "/tandem rules", about: "Always-allow rules in this channel, with Revoke" },
  { usage: "/tandem lessons", insert: "/tandem lessons", about: "What corrections taught plans here, with Forget" },
  { usage: "/tandem report [7d|30d]", insert: "/tandem report", about: "How people and Tandem worked together here" },
];

/** options: { send(text) -> Promise<boolean> (false keeps the text), menu: element for commands (optional) } */
export function setupComposer(form, input, { send, menu = null }) {
  const matches = () => {
    const value = input.value;
    return value.startsWith("/") && !value.includes("\n") ? COMMANDS.filter((c) => c.insert.startsWith(value)) : [];
  };
  const showMenu = () => {
    if (!menu) return;
    const found = matches();
    menu.hidden = !found.length;
    clear(menu).append(...found.map((c) =>
      h("button", {
        class: "command", type: "button", testid: "command-option", dataset: { insert: c.insert },
        onmousedown: (e) => e.preventDefault(),
        onclick: () => {
          input.value = c.insert;
          input.focus();
          showMenu();
        },
      }, h("span", { class: "usage" }, c.usage), h("span", { class: "about" }, c.about))));
  };
  const submit = async () => {
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    showMenu();
    input.disabled = true;
    try {
      if ((await send(text)) === false && !input.value) input.value = text;
    } finally {
      input.disabled = false;
      input.focus();
    }
  };
  input.addEventListener("input", showMenu);
  input.addEventListener("blur", () => menu && (menu.hidden = true));
  input.addEventListener("focus", showMenu);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Tab" && menu && !menu.hidden && matches().length) {
      event.preventDefault();
      input.value = matches()[0].insert;
      showMenu();
    } else if (event.key === "Escape" && menu) {
      menu.hidden = true;
    } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
}
