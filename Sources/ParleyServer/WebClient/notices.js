// What the page tells the person besides the conversation: announcements for screen readers
// (a polite live region), alerts that stay until dismissed, and the connection's state.

export const $ = (id) => document.getElementById(id);

export function announce(text) {
  const announcer = $("announcer");
  announcer.textContent = "";
  setTimeout(() => { announcer.textContent = text; }, 50);
}

export function showError(message) {
  const alerts = $("alerts");
  while (alerts.children.length >= 3) alerts.firstElementChild.remove();
  const alert = document.createElement("div");
  alert.className = "alert";
  const text = document.createElement("p");
  text.textContent = message;
  const dismiss = document.createElement("button");
  dismiss.type = "button";
  dismiss.textContent = "Dismiss";
  dismiss.setAttribute("aria-label", "Dismiss this message");
  dismiss.addEventListener("click", () => alert.remove());
  alert.append(text, dismiss);
  alerts.append(alert);
  setTimeout(() => alert.remove(), 15000);
}

export function setConnection(kind, text) {
  const element = $("connection");
  element.dataset.state = kind;
  element.textContent = text;
}
