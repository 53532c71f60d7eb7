// One connection to `/v1/realtime`: JSON events out, server events in (the OpenAI Realtime
// protocol, GA names), each dispatched as a DOM event named by its type.

export class RealtimeClient extends EventTarget {
  constructor() {
    super();
    this.socket = null;
    this.opening = null;
  }

  get isOpen() { return this.socket?.readyState === WebSocket.OPEN; }

  /**
   * Opens the connection and resolves with the `session.created` event. Rejects if the socket
   * closes first (a refused key, a thread that is not ours, the server being away).
   */
  connect(url, protocols) {
    this.close();
    const socket = new WebSocket(url, protocols);
    this.socket = socket;
    this.opening = new Promise((resolve, reject) => {
      let created = false;
      socket.addEventListener("message", (message) => {
        if (socket !== this.socket) return;
        let event;
        try {
          event = JSON.parse(message.data);
        } catch {
          return;
        }
        if (event.type === "session.created" && !created) {
          created = true;
          resolve(event);
        }
        this.dispatchEvent(new CustomEvent(event.type, { detail: event }));
        this.dispatchEvent(new CustomEvent("server-event", { detail: event }));
      });
      socket.addEventListener("close", (close) => {
        if (socket !== this.socket) return;
        this.socket = null;
        if (!created) {
          reject(new Error(close.reason || "the server refused it or could not be reached"));
          return;
        }
        this.dispatchEvent(new CustomEvent("closed", { detail: { code: close.code, reason: close.reason } }));
      });
    });
    return this.opening;
  }

  send(event) {
    if (!this.isOpen) throw new Error("The realtime connection is not open.");
    this.socket.send(JSON.stringify(event));
  }

  close() {
    const socket = this.socket;
    this.socket = null;
    this.opening = null;
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, "done");
  }
}
