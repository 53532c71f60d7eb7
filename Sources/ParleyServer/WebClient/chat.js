// The conversation as chat bubbles: the user's (spoken or typed, with images, the raw and the
// corrected transcript) and the assistant's (streamed, with the provider and latency in small
// print), built with DOM calls only (no HTML strings, so no text is ever markup).

export class Chat {
  /** `actions.stash(bubble)` keeps a message; `actions.edit(bubble, text)` saves a correction. */
  constructor(root, empty, actions) {
    this.root = root;
    this.empty = empty;
    this.actions = actions;
    this.bubbles = [];
  }

  clear() {
    for (const bubble of this.bubbles) bubble.element.remove();
    for (const extra of this.root.querySelectorAll(".notice, .tool")) extra.remove();
    this.bubbles = [];
    this.empty.hidden = false;
  }

  /** A user message; `heard` is what speech-to-text heard (a spoken one), shown when it differs from `text`. */
  user({ text, images = [], spoken = false, heard = null, thread = null, message = null }) {
    const bubble = this.bubble("user", "You said:");
    for (const source of images) {
      const image = document.createElement("img");
      image.src = source;
      image.alt = "Attached image";
      bubble.element.insertBefore(image, bubble.textElement);
    }
    Object.assign(bubble, { spoken, heard, thread, message });
    bubble.setText(text);
    this.decorate(bubble);
    return bubble;
  }

  /** An assistant reply, empty until its text streams in. */
  assistant({ text = "", thread = null, message = null, provider = null, latencyMs = null, interrupted = false } = {}) {
    const bubble = this.bubble("assistant", "Parley said:");
    Object.assign(bubble, { thread, message, provider, latencyMs, interrupted });
    bubble.setText(text);
    this.decorate(bubble);
    return bubble;
  }

  /**
   * What the assistant looked up before a reply: one folded entry per tool that ran, placed
   * above `bubble` (`tools`: `[{name, arguments, output, is_error}]`, arguments as JSON text).
   */
  toolsBefore(bubble, tools) {
    for (const tool of tools) {
      const entry = this.tool(tool.name, tool.arguments, tool.output, tool.is_error);
      bubble.element.before(entry.element);
    }
  }

  /** One tool call: its name and arguments, and its output once known (`entry.setOutput`). */
  tool(name, args, output = null, isError = false) {
    const element = document.createElement("details");
    element.className = "bubble tool";
    const summary = document.createElement("summary");
    summary.textContent = `Looked up: ${toolLabel(name, args)}`;
    const result = document.createElement("pre");
    result.className = "tool-output";
    element.append(summary, result);
    const entry = {
      element,
      setOutput: (text, failed = false) => {
        result.textContent = text;
        element.classList.toggle("error", failed);
        if (failed) summary.textContent = `Could not look up: ${toolLabel(name, args)}`;
      },
    };
    entry.setOutput(output ?? "(no result)", isError);
    this.root.append(element);
    this.empty.hidden = true;
    return entry;
  }

  /** A line about the conversation itself (an error, a dropped turn). */
  notice(text, isError = false) {
    const note = document.createElement("p");
    note.className = `bubble notice${isError ? " error" : ""}`;
    note.textContent = text;
    this.root.append(note);
    this.empty.hidden = true;
    this.scroll();
  }

  /** Shows a saved thread (`GET /v1/threads/{id}`). */
  showThread(thread) {
    this.clear();
    const calls = new Map(); // call id → its entry, for the tool's result that follows
    for (const message of thread.messages ?? []) {
      if (message.role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
        if (message.text) this.assistant({ text: message.text, thread: thread.id, message: message.id, provider: message.provider });
        for (const call of message.tool_calls) calls.set(call.id, this.tool(call.name, call.arguments));
        continue;
      }
      if (message.role === "tool") {
        calls.get(message.tool_call_id)?.setOutput(message.text ?? "", message.is_tool_error === true);
        continue;
      }
      const images = (message.images ?? []).map((image) => `data:${image.mime_type};base64,${image.data}`);
      if (message.role === "user") {
        // What the person meant: their correction when there is one.
        const text = message.edited_text ?? message.text;
        const spoken = message.raw_transcript != null;
        this.user({ text, images, spoken, heard: message.raw_transcript, thread: thread.id, message: message.id });
      } else if (message.role === "assistant") {
        const timings = message.timings_ms ?? {};
        this.assistant({
          text: message.text, thread: thread.id, message: message.id, provider: message.provider,
          latencyMs: timings.first_audio_after_endpoint ?? timings.llm_first_token ?? null, interrupted: message.interrupted,
        });
      }
    }
  }

  bubble(role, label) {
    const element = document.createElement("article");
    element.className = `bubble ${role}`;
    const hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = `${label} `;
    const textElement = document.createElement("p");
    textElement.className = "text";
    element.append(hidden, textElement);
    const meta = document.createElement("p");
    meta.className = "meta";
    element.append(meta);
    this.root.append(element);
    this.empty.hidden = true;
    const bubble = {
      role, element, textElement, meta, text: "",
      setText: (text) => {
        bubble.text = text;
        textElement.textContent = text;
        this.scroll();
      },
      append: (piece) => bubble.setText(bubble.text + piece),
      update: (fields) => {
        Object.assign(bubble, fields);
        this.decorate(bubble);
      },
    };
    this.bubbles.push(bubble);
    this.scroll();
    return bubble;
  }

  /** The small print and the actions of a bubble. */
  decorate(bubble) {
    const meta = bubble.meta;
    meta.replaceChildren();
    const facts = [];
    if (bubble.role === "user") {
      if (bubble.spoken) facts.push(corrected(bubble) ? "spoken, corrected" : "spoken");
    } else {
      if (bubble.provider) facts.push(bubble.provider);
      if (bubble.latencyMs != null && bubble.latencyMs > 0) facts.push(`${(bubble.latencyMs / 1000).toFixed(1)} s`);
      if (bubble.interrupted) facts.push("interrupted");
    }
    if (facts.length > 0) {
      const span = document.createElement("span");
      span.className = "facts";
      span.textContent = facts.join(" · ");
      if (bubble.role === "assistant" && bubble.latencyMs) span.title = "Who answered, and the time from the end of your turn to the first sound of the reply";
      meta.append(span);
    }
    bubble.element.querySelector(".raw")?.remove();
    if (bubble.role === "user" && corrected(bubble)) {
      const raw = document.createElement("p");
      raw.className = "raw";
      raw.textContent = `Heard: “${bubble.heard}”`;
      bubble.element.insertBefore(raw, meta);
    }
    const stash = document.createElement("button");
    stash.type = "button";
    stash.textContent = "Stash";
    stash.setAttribute("aria-label", `Stash this ${bubble.role === "user" ? "message" : "reply"}`);
    stash.addEventListener("click", () => this.actions.stash(bubble));
    meta.append(stash);
    if (bubble.role === "user" && bubble.spoken && bubble.message != null) {
      const edit = document.createElement("button");
      edit.type = "button";
      edit.textContent = "Edit";
      edit.setAttribute("aria-label", "Correct this message");
      edit.addEventListener("click", () => this.startEditing(bubble, edit));
      meta.append(edit);
    }
  }

  startEditing(bubble, opener) {
    if (bubble.element.querySelector(".edit-area")) return;
    const area = document.createElement("div");
    area.className = "edit-area";
    const label = document.createElement("label");
    const id = `edit-${bubble.message}`;
    label.htmlFor = id;
    label.textContent = "Corrected text (kept beside what was heard)";
    const field = document.createElement("textarea");
    field.id = id;
    field.rows = 2;
    field.value = bubble.text;
    const buttons = document.createElement("div");
    const save = document.createElement("button");
    save.type = "button";
    save.className = "primary";
    save.textContent = "Save correction";
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "Cancel";
    buttons.append(save, cancel);
    area.append(label, field, buttons);
    bubble.element.append(area);
    field.focus();
    const close = () => {
      area.remove();
      opener.focus();
    };
    cancel.addEventListener("click", close);
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape") close();
    });
    save.addEventListener("click", async () => {
      const text = field.value.trim();
      if (!text) return;
      if (await this.actions.edit(bubble, text)) {
        area.remove();
        bubble.element.querySelector(".meta button:last-child")?.focus();
      }
    });
  }

  scroll() {
    this.root.scrollTop = this.root.scrollHeight;
  }
}

/** Whether a spoken message was corrected (its text is not what was heard). */
function corrected(bubble) {
  return bubble.spoken && bubble.heard != null && bubble.heard !== bubble.text;
}

/** `search_materials (query: "field trip")`: a tool's name and its arguments, briefly. */
function toolLabel(name, args) {
  let fields = {};
  try {
    fields = typeof args === "string" && args.length > 0 ? JSON.parse(args) : (args ?? {});
  } catch {
    return `${name} (${String(args).slice(0, 80)})`;
  }
  const parts = Object.entries(fields ?? {}).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return parts.length > 0 ? `${name} (${parts.join(", ").slice(0, 120)})` : name;
}
