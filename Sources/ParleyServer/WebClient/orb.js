// The orb: the state of the conversation (idle, armed, listening, thinking, speaking) as
// colour and motion, the audio level as its size and glow, and the state in words for
// screen readers (the status line beside it is an aria-live region).

const words = {
  idle: { label: "Talk", status: "Ready" },
  armed: { label: "Speak", status: "Listening — speak now" },
  listening: { label: "Listening", status: "Listening" },
  thinking: { label: "Thinking", status: "Thinking…" },
  speaking: { label: "Speaking", status: "Speaking — talk to interrupt" },
};

export class Orb {
  constructor(button, label, status) {
    this.button = button;
    this.label = label;
    this.status = status;
    this.state = "idle";
    this.target = 0;
    this.current = 0;
    this.frame = null;
  }

  /** Shows `state`; `detail` replaces the status words (e.g. "Review what you said"). */
  set(state, detail) {
    const text = detail ?? words[state].status;
    if (state === this.state && this.status.textContent === text) return;
    this.state = state;
    this.button.dataset.state = state;
    this.label.textContent = words[state].label;
    this.status.textContent = text;
    if (state === "idle" || state === "thinking") this.level(0);
  }

  /** Whether the microphone is on (the orb is a toggle button while it is). */
  setPressed(pressed) {
    this.button.setAttribute("aria-pressed", pressed ? "true" : "false");
  }

  /** Blocks or allows pressing (while a transcript is being reviewed). */
  setBlocked(blocked) {
    if (blocked) this.button.setAttribute("aria-disabled", "true");
    else this.button.removeAttribute("aria-disabled");
  }

  get blocked() { return this.button.getAttribute("aria-disabled") === "true"; }

  /** The audio level, 0…1, eased over a few frames. */
  level(value) {
    this.target = value;
    if (this.frame === null) this.frame = requestAnimationFrame(() => this.step());
  }

  step() {
    this.current += (this.target - this.current) * 0.35;
    if (Math.abs(this.target - this.current) < 0.01) this.current = this.target;
    this.button.style.setProperty("--level", this.current.toFixed(3));
    this.frame = this.current === this.target ? null : requestAnimationFrame(() => this.step());
  }
}
