// The saved conversations and the stash, from the threads API: the history list (open,
// delete), the stash (use, remove), and the chat's Stash and Edit actions.

import { $, announce, showError } from "./notices.js";

export class Library {
  /**
   * `hooks.current()` is the thread on show, `hooks.open(id)` shows another, and
   * `hooks.deletedCurrent()` starts afresh when the one on show is deleted.
   */
  constructor(api, hooks) {
    this.api = api;
    this.hooks = hooks;
  }

  /** Lists the saved conversations, the current one marked. */
  async refreshThreads() {
    let list;
    try {
      list = await this.api.threads();
    } catch (error) {
      if (error.status !== 401) showError(`The history could not be loaded: ${error.message}`);
      return;
    }
    const items = list.data ?? [];
    const ul = $("threads");
    ul.replaceChildren();
    for (const summary of items) {
      const thread = summary.thread;
      const title = thread.title ?? "Untitled conversation";
      const li = document.createElement("li");
      const open = document.createElement("button");
      open.type = "button";
      open.className = "thread-open";
      open.dataset.thread = String(thread.id);
      const name = document.createElement("span");
      name.className = "thread-title";
      name.textContent = title;
      const preview = document.createElement("span");
      preview.className = "thread-preview";
      preview.textContent = summary.last_message_preview ?? "";
      const when = document.createElement("span");
      when.className = "thread-when";
      when.textContent = new Date(thread.updated_at).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
      open.append(name, preview, when);
      open.addEventListener("click", () => this.hooks.open(thread.id));
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "link danger";
      remove.textContent = "Delete";
      remove.setAttribute("aria-label", `Delete the conversation “${title}”`);
      remove.addEventListener("click", () => this.deleteThread(thread.id, title));
      li.append(open, remove);
      ul.append(li);
    }
    $("threads-empty").hidden = items.length > 0;
    this.markCurrent();
  }

  /** Marks the conversation on show (aria-current). */
  markCurrent() {
    for (const button of document.querySelectorAll(".thread-open")) {
      if (button.dataset.thread === String(this.hooks.current())) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
  }

  async deleteThread(id, title) {
    if (!confirm(`Delete “${title}” and everything said in it?`)) return;
    try {
      await this.api.deleteThread(id);
    } catch (error) {
      showError(error.message);
      return;
    }
    announce(`Deleted “${title}”.`);
    if (this.hooks.current() === id) this.hooks.deletedCurrent();
    await this.refreshThreads();
    $("new-conversation").focus();
  }

  /** Lists the stash. */
  async refreshStash() {
    let list;
    try {
      list = await this.api.stash();
    } catch (error) {
      if (error.status !== 401) showError(`The stash could not be loaded: ${error.message}`);
      return;
    }
    const items = list.data ?? [];
    const ul = $("stash");
    ul.replaceChildren();
    for (const item of items) {
      const li = document.createElement("li");
      const text = document.createElement("p");
      text.className = "stash-text";
      const kind = document.createElement("span");
      kind.className = "stash-kind";
      kind.textContent = item.kind;
      text.append(kind, document.createTextNode(item.text));
      const use = document.createElement("button");
      use.type = "button";
      use.className = "link";
      use.textContent = "Use";
      use.setAttribute("aria-label", `Put into the message box: ${item.text.slice(0, 60)}`);
      use.addEventListener("click", () => {
        $("message").value = item.text;
        $("message").focus();
      });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "link danger";
      remove.textContent = "Remove";
      remove.setAttribute("aria-label", `Remove from the stash: ${item.text.slice(0, 60)}`);
      remove.addEventListener("click", async () => {
        try {
          await this.api.removeFromStash(item.id);
          announce("Removed from the stash.");
        } catch (error) {
          showError(error.message);
        }
        await this.refreshStash();
        $("stash-title").focus?.();
      });
      li.append(text, use, remove);
      ul.append(li);
    }
    $("stash-empty").hidden = items.length > 0;
  }

  /** Keeps a message of the chat in the stash. */
  async stash(bubble) {
    const item = { text: bubble.text, kind: bubble.role === "user" ? "transcript" : "reply" };
    const thread = bubble.thread ?? this.hooks.current();
    if (thread) item.thread_id = thread;
    if (bubble.message != null) item.message_id = bubble.message;
    try {
      await this.api.addToStash(item);
      announce("Kept in the stash.");
      await this.refreshStash();
    } catch (error) {
      showError(`Could not stash it: ${error.message}`);
    }
  }

  /** Saves the correction of a spoken message beside what was heard; whether it was saved. */
  async edit(bubble, text) {
    try {
      await this.api.editMessage(bubble.thread, bubble.message, text);
    } catch (error) {
      showError(`The correction was not saved: ${error.message}`);
      return false;
    }
    if (bubble.heard == null) bubble.heard = bubble.text;
    bubble.setText(text);
    bubble.update({});
    announce("Correction saved; the transcript as heard is kept too.");
    return true;
  }
}
