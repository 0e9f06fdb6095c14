// Talking to the workspace: actions as the selected person, and the live event stream.

/** POST /ui/<name> with JSON; resolves to {ok, error, delivery}. */
export async function act(name, body) {
  try {
    const response = await fetch(`/ui/${name}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
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
  const source = new EventSource(`/ui/events?user=${encodeURIComponent(user)}`);
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
