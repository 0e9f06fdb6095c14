// Talking to the workspace: actions as the selected person, and the live event stream.

/**
 * This browser session (kept across reloads of this tab, new in a new browser): a modal opened by
 * what is done here shows here only, as Slack shows a modal in the client it was opened from.
 */
export const CLIENT = (() => {
  let id = sessionStorage.getItem("tandem.client");
  if (!id) {
    id = crypto.randomUUID();
    sessionStorage.setItem("tandem.client", id);
  }
  return id;
})();

/** POST /ui/<name> with JSON, as this browser session; resolves to {ok, error, delivery}. */
export async function act(name, body) {
  try {
    const response = await fetch(`/ui/${name}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...body, client: CLIENT }),
    });
    const reply = await response.json().catch(() => ({ ok: false, error: `HTTP ${response.status}` }));
    return reply;
  } catch (error) {
    return { ok: false, error: `The workspace is not reachable: ${error.message}` };
  }
}

/**
 * Follow what ``user`` sees: onState(snapshot, changes) on connect and after each change;
 * onStatus("live" | "connecting"). Returns a function that stops following.
 */
export function follow(user, onState, onStatus) {
  const source = new EventSource(`/ui/events?user=${encodeURIComponent(user)}&client=${encodeURIComponent(CLIENT)}`);
  const handle = (event) => {
    const data = JSON.parse(event.data);
    onState(data.state, data.changes);
  };
  source.addEventListener("snapshot", handle);
  source.addEventListener("change", handle);
  source.addEventListener("open", () => onStatus("live"));
  source.addEventListener("error", () => onStatus("connecting"));
  return () => source.close();
}
