// The page: person switcher, channels, messages, the thread panel, composers, modals, App Home.
// Everything it does goes through /ui/* as the selected person; what it shows comes from the
// live event stream (/ui/events), re-rendered from each snapshot.
import { act, follow } from "./api.js";
import { h, clear } from "./dom.js";
import { renderBlocks } from "./blocks.js";
import { renderMessage, renderEphemeral } from "./messages.js";
import { ModalLayer, confirmDialog } from "./modal.js";
import { setupComposer } from "./composer.js";

const $ = (id) => document.getElementById(id);
const app = {
  user: localStorage.getItem("tandem.user") || "U0ALICE",
  channel: "C0OPS",
  thread: null,
  pane: "channel",
  snap: null,
  stop: null,
  fresh: new Set(),
  seen: {},
};

const view = {
  get users() {
    return app.snap ? Object.fromEntries(app.snap.users.map((u) => [u.id, u])) : {};
  },
  ctx() {
    const channels = app.snap ? Object.fromEntries(app.snap.channels.map((c) => [c.id, c])) : {};
    return { users: this.users, channels, confirm: (c) => confirmDialog(c, { users: this.users, channels }) };
  },
  get fresh() {
    return app.fresh;
  },
  press: (el, block, target) => report(act("click", { user: app.user, channel: target.channel, ts: target.ts, action_id: el.action_id, value: el.value ?? null })),
  openThread(ts) {
    app.thread = ts;
    render();
    $("thread-input").focus();
  },
  dismiss: (ephemeral) => report(act("dismiss", { user: app.user, ts: ephemeral.ts })),
};

const modals = new ModalLayer($("modal-root"), {
  ctx: () => view.ctx(),
  press: (el, block, target) => report(act("click", { user: app.user, view_id: target.id, action_id: el.action_id, value: el.value ?? null })),
  submit: (target, values) => report(act("submit", { user: app.user, view_id: target.id, values })),
  close: (target) => report(act("close", { user: app.user, view_id: target.id })),
});

async function report(pending) {
  const reply = await pending;
  if (!reply.ok) toast(reply.error || "Something went wrong.");
  return reply;
}

export function toast(message) {
  const note = h("div", { class: "toast", role: "status", testid: "toast" }, message);
  $("toasts").append(note);
  setTimeout(() => note.remove(), 6000);
}

// -- following the workspace -----------------------------------------------------------------

function connect() {
  if (app.stop) app.stop();
  app.snap = null;
  app.stop = follow(app.user, (snap, changes) => {
    app.fresh = new Set(changes.filter((c) => c.kind.endsWith("_posted")).map((c) => c.ts));
    app.snap = snap;
    render();
    app.fresh = new Set();
  }, status);
}

function status(kind) {
  const node = $("connection");
  node.dataset.state = kind;
  node.textContent = kind === "live" ? "● live" : "○ reconnecting…";
}

function switchUser(id) {
  app.user = id;
  localStorage.setItem("tandem.user", id);
  connect();
  // Slack sends app_home_opened when a person looks at the Home tab: the new person looks at it now.
  if (app.pane === "home") act("home_opened", { user: app.user });
}

// -- rendering -------------------------------------------------------------------------------

function render() {
  if (!app.snap) return;
  renderSidebar();
  if (app.pane === "home") renderHome();
  else renderChannel();
  renderThread();
  modals.show(app.snap.modals);
}

function renderSidebar() {
  const me = app.snap.users.find((u) => u.id === app.snap.me);
  const people = app.snap.users.filter((u) => !u.is_bot);
  const switcher = $("user-switcher");
  if (switcher.options.length !== people.length) {
    clear(switcher).append(...people.map((u) => h("option", { value: u.id }, `${u.name}${u.role ? ` — ${u.role}` : ""}`)));
  }
  switcher.value = app.snap.me;
  document.body.dataset.me = app.snap.me;
  $("me").textContent = me ? me.real_name : "";
  clear($("channels")).append(...app.snap.channels.map((c) => {
    const count = topLevel(c.id).length;
    if (app.pane === "channel" && c.id === app.channel) app.seen[c.id] = count;
    const unread = Math.max(0, count - (app.seen[c.id] ?? count));
    const active = app.pane === "channel" && c.id === app.channel;
    return h("li", {},
      h("button", {
        class: `nav-item${active ? " active" : ""}${unread ? " unread" : ""}`, type: "button",
        testid: `channel-${c.name}`, onclick: () => openChannel(c.id),
      }, h("span", { class: "hash" }, "#"), c.name, unread ? h("span", { class: "pill" }, String(unread)) : null));
  }));
  $("app-home").classList.toggle("active", app.pane === "home");
}

function topLevel(channel) {
  return (app.snap.messages[channel] || []).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
}

function repliesTo(channel, ts) {
  return (app.snap.messages[channel] || []).filter((m) => m.thread_ts === ts && m.ts !== ts);
}

/** Redraw a message list, staying at the bottom if it was there (or something new came in). */
function keepScroll(box, draw) {
  const place = `${app.user}/${app.channel}/${app.thread}`;
  const moved = box.dataset.place !== place;
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  const top = box.scrollTop;
  draw();
  box.dataset.place = place;
  box.scrollTop = moved || atBottom || app.fresh.size ? box.scrollHeight : top;
}

function renderChannel() {
  const channel = app.snap.channels.find((c) => c.id === app.channel) || app.snap.channels[0];
  document.body.dataset.pane = "channel";
  $("pane-title").textContent = `# ${channel.name}`;
  $("pane-topic").textContent = channel.name === "ops" ? "Where Tandem runs ops tasks with you in the loop" : "";
  $("composer-input").placeholder = `Message #${channel.name} as ${nameOf(app.snap.me)} — type / for commands`;
  const items = [
    ...topLevel(channel.id).map((m) => ({ ts: m.ts, node: () => renderMessage(m, view, { replies: repliesTo(channel.id, m.ts) }) })),
    ...app.snap.ephemerals.filter((e) => e.channel === channel.id && !e.thread_ts).map((e) => ({ ts: e.ts, node: () => renderEphemeral(e, view) })),
  ].sort((a, b) => Number(a.ts) - Number(b.ts));
  const box = $("messages");
  keepScroll(box, () => {
    clear(box);
    if (!items.length) box.append(welcome(channel));
    box.append(...items.map((item) => item.node()));
  });
}

function welcome(channel) {
  const example = "/tandem restart payments and check errors after";
  return h("div", { class: "welcome", testid: "welcome" },
    h("h2", {}, `This is the very beginning of #${channel.name}`),
    h("p", {}, "Tandem plans an ops task, then waits for a person at each review: approve, request changes, cancel — or reply in the thread in your own words."),
    h("p", {}, "Switch between alice (asks), bob (approves) and carol (just watching) at the top left."),
    h("button", { class: "bk-button primary", type: "button", onclick: () => fill(`${example}`) }, `Try: ${example}`));
}

function fill(text) {
  const input = $("composer-input");
  input.value = text;
  input.focus();
}

function renderThread() {
  const panel = $("thread");
  const parent = app.thread && (app.snap.messages[app.channel] || []).find((m) => m.ts === app.thread);
  document.body.classList.toggle("with-thread", Boolean(parent) && app.pane === "channel");
  if (!parent || app.pane !== "channel") {
    app.thread = null;
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const channel = app.snap.channels.find((c) => c.id === app.channel);
  $("thread-channel").textContent = `# ${channel.name}`;
  const replies = repliesTo(app.channel, parent.ts);
  const items = [
    ...replies.map((m) => ({ ts: m.ts, node: () => renderMessage(m, view, { inThread: true }) })),
    ...app.snap.ephemerals.filter((e) => e.thread_ts === parent.ts).map((e) => ({ ts: e.ts, node: () => renderEphemeral(e, view) })),
  ].sort((a, b) => Number(a.ts) - Number(b.ts));
  const box = $("thread-messages");
  keepScroll(box, () => {
    clear(box).append(
      renderMessage(parent, view, { inThread: true }),
      h("div", { class: "replies-rule" }, h("span", {}, `${replies.length} ${replies.length === 1 ? "reply" : "replies"}`)),
      ...items.map((item) => item.node()));
  });
}

function renderHome() {
  document.body.dataset.pane = "home";
  $("pane-title").textContent = "Tandem";
  $("pane-topic").textContent = "App Home";
  const home = app.snap.home;
  const ctx = {
    ...view.ctx(),
    press: (el) => report(act("click", { user: app.user, view_id: home.id, action_id: el.action_id, value: el.value ?? null })),
  };
  clear($("messages")).append(h("div", { class: "home", testid: "home-tab" }, home
    ? renderBlocks(home.blocks, ctx)
    : h("p", { class: "muted" }, `Tandem has not published a Home tab for ${nameOf(app.snap.me)}. Runs live in #ops.`)));
}

function nameOf(id) {
  const user = app.snap && app.snap.users.find((u) => u.id === id);
  return user ? user.name : id;
}

function openChannel(id) {
  app.pane = "channel";
  if (app.channel !== id) app.thread = null;
  app.channel = id;
  render();
}

/** A permalink (``#/C…/ts``, from chat.getPermalink) opens its channel and the message's thread. */
function route() {
  const found = location.hash.match(/^#\/(C[A-Z0-9]+)\/(\d+\.\d+)$/);
  if (!found) return;
  openChannel(found[1]);
  app.thread = found[2];
  render();
}
window.addEventListener("hashchange", route);

// -- wiring ------------------------------------------------------------------------------------

$("user-switcher").addEventListener("change", (e) => switchUser(e.target.value));
// The web inbox, signed in as the person this page shows.
$("inbox-link").addEventListener("click", (e) => (e.currentTarget.href = `/inbox?user=${encodeURIComponent(app.user)}`));
$("app-home").addEventListener("click", () => {
  app.pane = "home";
  render();
  act("home_opened", { user: app.user }); // the bot may publish a fresh Home view; the stream shows it
});
$("thread-close").addEventListener("click", () => {
  app.thread = null;
  render();
});
setupComposer($("composer"), $("composer-input"), {
  send: (text) => send(text, null),
  menu: $("command-menu"),
});
setupComposer($("thread-composer"), $("thread-input"), { send: (text) => send(text, app.thread) });

async function send(text, threadTs) {
  const command = text.match(/^\/(\S+)\s*([\s\S]*)$/);
  if (command) {
    if (command[1] !== "tandem") {
      toast(`/${command[1]} is not a command here. Try /tandem help.`);
      return false;
    }
    return (await report(act("command", { user: app.user, channel: app.channel, text: command[2] }))).ok;
  }
  return (await report(act("post", { user: app.user, channel: app.channel, text, thread_ts: threadTs }))).ok;
}

connect();
route();
