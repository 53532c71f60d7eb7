// The server's HTTP API as the page uses it: health, models, preferences, threads, messages, the
// stash and mind maps, with the API key (when the server needs one) sent as a bearer token.

const keyName = "parley.apiKey";

/** An error the server answered with (OpenAI's shape), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class Api {
  constructor() {
    this.key = sessionStorage.getItem(keyName) ?? localStorage.getItem(keyName) ?? "";
  }

  /** Keeps `key` for this tab, or on this device when `remember` is set. */
  setKey(key, remember) {
    this.key = key;
    sessionStorage.setItem(keyName, key);
    if (remember) localStorage.setItem(keyName, key);
    else localStorage.removeItem(keyName);
  }

  forgetKey() {
    this.key = "";
    sessionStorage.removeItem(keyName);
    localStorage.removeItem(keyName);
  }

  async request(method, path, body) {
    const headers = {};
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new ApiError(0, `The server could not be reached (${error.message}).`, "network");
    }
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!response.ok) {
      const message = json?.error?.message ?? `${method} ${path} failed with status ${response.status}.`;
      throw new ApiError(response.status, message, json?.error?.code);
    }
    return { json, headers: response.headers };
  }

  async get(path) { return (await this.request("GET", path)).json; }

  /** `/health`: open without a key; says whether the rest needs one. */
  health() { return this.get("/health"); }
  models() { return this.get("/v1/models"); }
  threads() { return this.get("/v1/threads"); }
  thread(id) { return this.get(`/v1/threads/${id}`); }
  async updateThread(id, patch) { return (await this.request("PATCH", `/v1/threads/${id}`, patch)).json; }
  async deleteThread(id) { return (await this.request("DELETE", `/v1/threads/${id}`)).json; }
  async editMessage(thread, message, text) {
    return (await this.request("PATCH", `/v1/threads/${thread}/messages/${message}`, { edited_text: text })).json;
  }
  /** The key's preferences kept on the server: `{saved, preferences}`. */
  preferences() { return this.get("/v1/settings/preferences"); }
  async savePreferences(preferences) { return (await this.request("PUT", "/v1/settings/preferences", preferences)).json; }
  /** A mind map of a saved conversation: `{topic, branches, svg, provider}`. */
  async compare(body) { return (await this.request("POST", "/v1/parley/compare", body)).json; }
  async mindMap(thread) { return (await this.request("POST", "/v1/mindmaps", { thread })).json; }
  stash() { return this.get("/v1/stash"); }
  async addToStash(item) { return (await this.request("POST", "/v1/stash", item)).json; }
  async removeFromStash(id) { return (await this.request("DELETE", `/v1/stash/${id}`)).json; }

  /** The realtime endpoint's URL on this origin, with the model and the thread to continue. */
  realtimeURL({ model, thread }) {
    const url = new URL("/v1/realtime", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    if (model && model !== "auto") url.searchParams.set("model", model);
    if (thread) url.searchParams.set("thread", String(thread));
    return url.href;
  }

  /** The WebSocket subprotocols: `realtime`, and the key the way OpenAI's browser clients send it. */
  realtimeProtocols() {
    return this.key ? ["realtime", `openai-insecure-api-key.${this.key}`] : ["realtime"];
  }
}
