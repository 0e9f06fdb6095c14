// The inbox page: answers go as JSON with the CSRF header; server-sent events redraw what changed.
const root = document.body.dataset.root;

function csrf() {
  const found = document.cookie.split("; ").find((c) => c.startsWith("tandem_inbox_csrf="));
  return found ? decodeURIComponent(found.split("=").slice(1).join("=")) : "";
}

async function post(path, body) {
  const response = await fetch(root + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let reply;
  try {
    reply = await response.json();
  } catch {
    reply = { ok: false, message: `The inbox answered ${response.status}: ${await response.text()}` };
  }
  return reply;
}

function say(message, ok) {
  const outcome = document.querySelector('[data-testid="inbox-outcome"]');
  if (outcome) {
    outcome.textContent = message;
    outcome.dataset.ok = ok ? "yes" : "no";
  }
}

async function redraw() {
  const part = document.getElementById("part");
  if (!part) return;
  const kept = document.querySelector('[data-testid="inbox-outcome"]')?.textContent || "";
  const response = await fetch(part.dataset.part, { credentials: "same-origin" });
  if (response.status === 303 || response.redirected) {
    location.reload();
    return;
  }
  part.innerHTML = await response.text();
  const outcome = part.querySelector('[data-testid="inbox-outcome"]');
  if (outcome && kept) outcome.textContent = kept;
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-choice]");
  if (button) {
    const form = button.closest("[data-answer]");
    const field = (name) => form.querySelector(`[name="${name}"]`)?.value || "";
    const body = { choice: button.dataset.choice, intent: field("intent"), feedback: field("feedback"), value: button.dataset.value ?? field("value") };
    button.disabled = true;
    const reply = await post(`/items/${encodeURIComponent(form.dataset.review)}/answer`, body);
    say(reply.message, reply.ok);
    button.disabled = false;
    if (reply.ok) await redraw();
    return;
  }
  if (event.target.closest("[data-signout]")) {
    const reply = await post("/signout", {});
    location.assign(reply.go || root + "/signin");
  }
});

document.addEventListener("change", async (event) => {
  const select = event.target.closest("[data-switch]");
  if (!select) return;
  const reply = await post("/signin/switch", { person: select.value, next: location.pathname + location.search });
  if (reply.ok) location.assign(reply.go);
  else say(reply.message, false);
});

document.addEventListener("submit", async (event) => {
  const form = event.target.closest("[data-signin]");
  if (!form) return;
  event.preventDefault();
  const reply = await post("/signin/switch", { person: form.querySelector("[name=person]").value, next: form.dataset.next });
  if (reply.ok) location.assign(reply.go);
  else say(reply.message, false);
});

if (document.body.dataset.me) {
  const events = new EventSource(root + "/events");
  events.addEventListener("ready", () => (document.body.dataset.live = "live"));
  events.addEventListener("changed", () => redraw());
  events.onerror = () => (document.body.dataset.live = "reconnecting");
}
