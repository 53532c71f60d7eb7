// Parley's browser client: the orb, the live transcript and its review, the chat, history,
// the stash and settings, over the server's realtime WebSocket and threads API.

import { Api } from "./api.js";
import { Chat } from "./chat.js";
import { askForKey, keyWorks } from "./key-prompt.js";
import { Library } from "./library.js";
import { Microphone } from "./microphone.js";
import { MindMapView } from "./mindmap.js";
import { $, announce, setConnection, showError } from "./notices.js";
import { Orb } from "./orb.js";
import { Player } from "./player.js";
import { compareProviders, fillModels, showProviders } from "./providers.js";
import { RealtimeClient } from "./realtime.js";

const holdThresholdMs = 350; // a press shorter than this toggles; a longer one is push-to-talk
const releaseTailMs = 250; // audio still sent after a release: people let go on the last word
const pushToTalkSilenceMs = 10000; // while the user decides when the turn ends, pauses do not
const prefsName = "parley.prefs";

const api = new Api();
const realtime = new RealtimeClient();
const orb = new Orb($("orb"), $("orb-label"), $("orb-status"));
const chat = new Chat($("chat"), $("chat-empty"), {
  stash: (bubble) => library.stash(bubble),
  edit: (bubble, text) => library.edit(bubble, text),
});
const library = new Library(api, {
  current: () => state.thread,
  open: (id) => openThread(id),
  deletedCurrent: () => newConversation(),
});

const mindMap = new MindMapView(api);

const prefs = {
  model: "auto", prompt: "", maxTokens: null, voice: "", silenceMs: 800, turnDetection: "semantic_vad", eagerness: "auto", review: true, continuous: false,
  large: false, dyslexia: false, contrast: false, motion: false, tools: true,
  ...readPrefs(),
};

const state = {
  thread: null, // the saved thread the page shows and the connection continues
  threadSettings: null, // its saved settings (system prompt, reply length)
  keyRequired: false,
  connecting: null,
  prefsLoaded: false, // the server's copy of the preferences has been read (saving before would overwrite it)
  prefsSaving: Promise.resolve(), // saves go to the server one after another, in order
  sessionSent: "", // the session.update last sent, to send only changes
  sessionReviews: prefs.review, // whether the live session holds transcripts for review
  capture: null, // null, "hold", "toggle" or "continuous": how the microphone was started
  pausedForReview: false,
  speechInProgress: false,
  awaitingTranscript: false,
  partial: "",
  reviewing: null, // {item, heard}
  appendBase: "",
  response: null, // {id, bubble}
  attachments: [], // {url, name}
  chunksSent: 0,
};

let audio = null; // {context, mic, player}, made at the first press (browsers want a gesture)

// ---------------------------------------------------------------- preferences and display

function readPrefs() {
  try {
    return JSON.parse(localStorage.getItem(prefsName) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

// The preferences' names on the server (GET/PUT /v1/settings/preferences).
const serverNames = {
  model: "model", prompt: "system_prompt", maxTokens: "max_tokens", voice: "voice", silenceMs: "silence_ms", turnDetection: "turn_detection", eagerness: "eagerness", review: "review",
  continuous: "continuous", large: "large_text", dyslexia: "dyslexia_font", contrast: "high_contrast", motion: "reduced_motion",
  tools: "builtin_tools",
};

/**
 * Keeps the preferences on the server for this key (they follow the person to other devices)
 * and on this device (so the display is right before the server answers).
 */
function savePrefs() {
  localStorage.setItem(prefsName, JSON.stringify(prefs));
  if (!state.prefsLoaded) return;
  const document = {};
  for (const [local, remote] of Object.entries(serverNames)) document[remote] = prefs[local] ?? null;
  document.system_prompt ??= "";
  state.prefsSaving = state.prefsSaving
    .then(() => api.savePreferences(document))
    .catch((error) => showError(`Your settings were kept on this device only: ${error.message}`));
}

/** Takes the preferences saved on the server; a first visit sends this device's instead. */
async function loadServerPrefs() {
  let answer;
  try {
    answer = await api.preferences();
  } catch (error) {
    showError(`Your saved settings could not be read; this device's are used: ${error.message}`);
    return;
  }
  state.prefsLoaded = true;
  if (!answer.saved) {
    if (localStorage.getItem(prefsName)) savePrefs();
    return;
  }
  const model = prefs.model;
  for (const [local, remote] of Object.entries(serverNames)) {
    if (remote in answer.preferences) prefs[local] = answer.preferences[remote];
  }
  localStorage.setItem(prefsName, JSON.stringify(prefs));
  applyDisplay();
  if (prefs.model !== model && realtime.isOpen) reconnect();
}

function applyDisplay() {
  const root = document.documentElement;
  root.classList.toggle("large-text", prefs.large);
  root.classList.toggle("dyslexia", prefs.dyslexia);
  root.classList.toggle("high-contrast", prefs.contrast);
  root.classList.toggle("reduce-motion", prefs.motion);
  $("continuous").checked = prefs.continuous;
  $("review-toggle").checked = prefs.review;
}

// ---------------------------------------------------------------- audio

function ensureAudio() {
  if (!audio) {
    const context = new AudioContext();
    const player = new Player(context, playbackIdle);
    const mic = new Microphone(context, sendAudio, (level) => {
      if (orb.state === "armed" || orb.state === "listening") orb.level(level);
    });
    audio = { context, mic, player };
    setInterval(() => {
      if (orb.state === "speaking") orb.level(player.level());
    }, 60);
  }
  if (audio.context.state === "suspended") audio.context.resume();
  return audio;
}

function sendAudio(base64) {
  if (!realtime.isOpen || state.pausedForReview) return;
  realtime.send({ type: "input_audio_buffer.append", audio: base64 });
  state.chunksSent += 1;
}

/** Stops the reply playing now and tells the server how much of it was heard. */
function interruptReply() {
  if (!audio) return;
  const { item, played, wasPlaying } = audio.player.stop();
  if (!wasPlaying) return;
  if (item && realtime.isOpen) {
    realtime.send({ type: "conversation.item.truncate", item_id: item, content_index: 0, audio_end_ms: played });
  }
  state.response?.bubble?.update({ interrupted: true });
  announce("Reply interrupted.");
}

function playbackIdle() {
  if (state.response) orb.set("thinking");
  else settleOrb();
}

/** The orb's state between turns: listening for more, or at rest. */
function settleOrb() {
  if (state.reviewing) return;
  if (state.capture && !state.pausedForReview) orb.set(state.speechInProgress ? "listening" : "armed");
  else orb.set("idle");
}

// ---------------------------------------------------------------- the realtime connection

function currentPrompt() {
  return state.threadSettings?.system_prompt ?? prefs.prompt;
}

function currentMaxTokens() {
  return state.threadSettings?.max_tokens ?? prefs.maxTokens;
}

/**
 * How the server ends a spoken turn: hands-free, by the words (semantic_vad) or by a silence
 * (server_vad), as chosen; with push-to-talk, the user does, so pauses never end it.
 */
function turnDetection(continuous, review) {
  if (continuous && prefs.turnDetection === "semantic_vad") {
    return { type: "semantic_vad", eagerness: prefs.eagerness || "auto", create_response: !review };
  }
  return { type: "server_vad", silence_duration_ms: continuous ? prefs.silenceMs : pushToTalkSilenceMs, create_response: !review };
}

function sessionConfig() {
  const continuous = $("continuous").checked;
  const review = $("review-toggle").checked;
  return {
    type: "realtime",
    instructions: currentPrompt() || null,
    max_output_tokens: currentMaxTokens() || "inf",
    audio: {
      input: {
        format: { type: "audio/pcm", rate: 24000 },
        turn_detection: turnDetection(continuous, review),
      },
      output: { format: { type: "audio/pcm", rate: 24000 }, voice: prefs.voice || "alloy" },
    },
    parley: { partial_transcript_interval_ms: 1000, builtin_tools: prefs.tools !== false },
  };
}

/** Sends the session's settings when they changed since they were last sent. */
function configureSession() {
  if (!realtime.isOpen) return;
  const config = sessionConfig();
  const text = JSON.stringify(config);
  if (text === state.sessionSent) return;
  state.sessionSent = text;
  state.sessionReviews = !config.audio.input.turn_detection.create_response;
  realtime.send({ type: "session.update", session: config });
}

/** Opens the voice connection if it is not open (once at a time). */
function connect() {
  if (realtime.isOpen) return Promise.resolve();
  if (!state.connecting) state.connecting = openConnection().finally(() => { state.connecting = null; });
  return state.connecting;
}

async function openConnection() {
  setConnection("connecting", "Connecting…");
  for (let attempt = 0; ; attempt += 1) {
    try {
      await realtime.connect(api.realtimeURL({ model: prefs.model, thread: state.thread }), api.realtimeProtocols());
      state.sessionSent = "";
      setConnection("online", "Connected");
      configureSession();
      return;
    } catch (error) {
      setConnection("error", "Not connected");
      // A refused upgrade says nothing to a browser: ask the HTTP API whether it was the key.
      if (attempt === 0 && state.keyRequired && !(await keyWorks(api).catch(() => true))) {
        await askForKey(api, "That key was not accepted.");
        continue;
      }
      throw new Error(`Could not open the voice connection: ${error.message}`);
    }
  }
}

function reconnect() {
  realtime.close();
  resetTurnState();
  setConnection("offline", "Not connected");
  connect().catch((error) => showError(error.message));
}

function resetTurnState() {
  state.speechInProgress = false;
  state.awaitingTranscript = false;
  state.response = null;
  hideLive();
  closeReview();
}

realtime.addEventListener("closed", (event) => {
  const { code, reason } = event.detail;
  setConnection("offline", code === 1001 ? "The server is restarting" : "Disconnected");
  if (state.capture) stopCapture();
  audio?.player.stop();
  resetTurnState();
  orb.set("idle");
  if (code !== 1000 && code !== 1005) announce(`Disconnected${reason ? `: ${reason}` : ""}. Press the orb or send a message to reconnect.`);
});

const on = (type, handler) => realtime.addEventListener(type, (event) => handler(event.detail));

on("input_audio_buffer.speech_started", (event) => {
  // Speech over the reply pauses it: the server says whether it resumes (a backchannel, a cough)
  // or is cut (its response ends cancelled). A server that does not pause cuts it at once.
  if (audio?.player.playing && audio.player.pause()) {
    clearTimeout(state.pauseCheck);
    state.pauseCheck = setTimeout(() => { if (!state.pausedByServer) resumeReply(); }, 1500);
  }
  state.speechInProgress = true;
  state.partial = "";
  showLive("");
  if (!state.reviewing) orb.set("listening");
});

on("parley.response.paused", () => {
  state.pausedByServer = true;
});

on("parley.response.resumed", () => {
  resumeReply();
});

function resumeReply() {
  clearTimeout(state.pauseCheck);
  state.pausedByServer = false;
  if (audio?.player.resume() && !state.reviewing) orb.set("speaking");
}

on("conversation.item.input_audio_transcription.delta", (event) => {
  if (state.reviewing) return;
  // The whole partial (a Parley extension) when the server sends it: a partial transcript may
  // change earlier words, which a delta cannot say.
  state.partial = event.parley?.transcript ?? state.partial + event.delta;
  showLive(state.partial);
});

on("input_audio_buffer.speech_stopped", () => {
  state.speechInProgress = false;
  state.awaitingTranscript = true;
  if (state.capture === "hold" || state.capture === "toggle") stopCapture();
  orb.set("thinking", "Transcribing…");
});

on("conversation.item.input_audio_transcription.completed", (event) => {
  state.awaitingTranscript = false;
  hideLive();
  const heard = (event.transcript ?? "").trim();
  if (!heard) {
    if (!state.appendBase) announce("No words were heard.");
    settleOrb();
    return;
  }
  if (state.sessionReviews) {
    openReview(event.item_id, heard);
  } else {
    chat.user({ text: heard, spoken: true, heard, thread: state.thread });
    announce(`You said: ${heard}`);
    orb.set("thinking");
  }
});

on("response.created", (event) => {
  state.response = { id: event.response.id, bubble: null };
  if (!audio?.player.playing && !state.speechInProgress) orb.set("thinking");
});

function replyBubble() {
  if (!state.response.bubble) state.response.bubble = chat.assistant({ thread: state.thread });
  return state.response.bubble;
}

for (const type of ["response.output_audio_transcript.delta", "response.output_text.delta"]) {
  on(type, (event) => {
    if (state.response?.id === event.response_id) replyBubble().append(event.delta);
  });
}

on("response.output_audio.delta", (event) => {
  if (state.response?.id !== event.response_id) return;
  ensureAudio().player.enqueue(event.item_id, event.delta);
  if (!state.speechInProgress && !state.reviewing) orb.set("speaking");
});

on("response.done", (event) => {
  const response = event.response;
  if (audio?.player.paused) {
    // Cut while paused: what was heard is the reply.
    clearTimeout(state.pauseCheck);
    state.pausedByServer = false;
    if (response.status === "cancelled") interruptReply();
    else resumeReply();
  }
  const parley = response.parley ?? {};
  const open = state.response?.id === response.id ? state.response : null;
  state.response = null;
  const bubble = open?.bubble;
  if (bubble) {
    const saidText = response.output?.[0]?.content?.[0]?.transcript ?? response.output?.[0]?.content?.[0]?.text;
    if (response.status === "cancelled" && typeof saidText === "string" && saidText.length > 0) bubble.setText(saidText);
    if (Array.isArray(parley.tools) && parley.tools.length > 0) chat.toolsBefore(bubble, parley.tools);
    const latency = parley.latency_ms?.first_audio || parley.timings_ms?.first_audio || parley.latency_ms?.first_token || null;
    bubble.update({ provider: parley.providers?.llm || null, latencyMs: latency, interrupted: response.status === "cancelled" || bubble.interrupted });
    if (response.status === "completed") announce(`Parley: ${bubble.text}`);
  }
  if (response.status === "failed") chat.notice("The reply failed. Try again, or check the providers in Settings.", true);
  if (parley.thread_id) adoptThread(parley.thread_id);
  if (!audio?.player.playing) settleOrb();
  syncSoon();
});

on("conversation.item.deleted", () => {
  // A turn dropped at review: nothing was saved.
});

on("error", (event) => {
  const error = event.error ?? {};
  switch (error.code) {
    case "input_audio_buffer_commit_empty":
      announce("No speech was heard.");
      state.awaitingTranscript = false;
      settleOrb();
      return;
    case "no_transcript_to_review":
      return;
    case "conversation_failed":
      state.response = null;
      settleOrb();
      break;
    default:
      break;
  }
  showError(error.message ?? "The server reported an error.");
});

// ---------------------------------------------------------------- the live transcript and review

function showLive(text) {
  const live = $("live-transcript");
  live.hidden = false;
  live.textContent = text || "…";
}

function hideLive() {
  const live = $("live-transcript");
  live.hidden = true;
  live.textContent = "";
}

function openReview(item, heard) {
  const text = state.appendBase ? `${state.appendBase} ${heard}` : heard;
  state.appendBase = "";
  state.reviewing = { item, heard };
  if (state.capture === "continuous") state.pausedForReview = true;
  else if (state.capture) stopCapture();
  $("review").hidden = false;
  const field = $("review-text");
  field.value = text;
  orb.setBlocked(true);
  orb.set("idle", "Review what you said, then send it");
  field.focus();
  field.setSelectionRange(field.value.length, field.value.length);
}

function closeReview() {
  if (!state.reviewing) return;
  state.reviewing = null;
  $("review").hidden = true;
  orb.setBlocked(false);
}

function reviewSend() {
  if (!state.reviewing) return;
  const text = $("review-text").value.trim();
  if (!text) {
    reviewCancel();
    return;
  }
  const { heard } = state.reviewing;
  // The correction is sent in place of what was heard; the server keeps both.
  realtime.send(text === heard ? { type: "parley.transcript.send" } : { type: "parley.transcript.send", text });
  chat.user({ text, spoken: true, heard, thread: state.thread });
  closeReview();
  resumeAfterReview();
  orb.set("thinking");
  $("orb").focus();
}

function reviewDiscard() {
  if (!state.reviewing) return;
  if (realtime.isOpen) realtime.send({ type: "parley.transcript.discard" });
  closeReview();
}

function reviewRetry() {
  reviewDiscard();
  state.appendBase = "";
  announce("Say it again.");
  restartAfterReview();
}

function reviewAppend() {
  const text = $("review-text").value.trim();
  reviewDiscard();
  state.appendBase = text;
  announce("Go on: what you say next is added.");
  restartAfterReview();
}

function reviewCancel() {
  reviewDiscard();
  state.appendBase = "";
  resumeAfterReview();
  settleOrb();
  announce("Turn cancelled.");
  $("orb").focus();
}

function resumeAfterReview() {
  state.pausedForReview = false;
}

function restartAfterReview() {
  $("orb").focus();
  if (state.capture === "continuous") {
    state.pausedForReview = false;
    settleOrb();
  } else {
    beginCapture("toggle");
  }
}

// ---------------------------------------------------------------- capture: the orb and the space bar

async function beginCapture(mode) {
  if (state.reviewing) {
    announce("First send, retry, append or cancel what you said.");
    $("review-text").focus();
    return;
  }
  const { mic } = ensureAudio();
  interruptReply();
  state.capture = mode;
  state.pausedForReview = false;
  state.speechInProgress = false;
  orb.setPressed(true);
  orb.set("armed");
  try {
    await connect();
    configureSession();
    await mic.start();
    if (state.capture === null) mic.pause(); // the turn ended while the microphone opened
  } catch (error) {
    state.capture = null;
    orb.setPressed(false);
    orb.set("idle");
    showError(error.name === "NotAllowedError" ? "The microphone is blocked for this page: allow it in the browser, then try again." : error.message);
  }
}

/** Stops sending audio (the server's VAD or a commit ends the turn). */
function stopCapture() {
  state.capture = null;
  state.pausedForReview = false;
  audio?.mic.pause();
  orb.setPressed(false);
}

/** The person ends their turn: commit what was said, or drop a turn with no speech. */
async function endCapture() {
  const mode = state.capture;
  if (!mode) return;
  orb.setPressed(false);
  await new Promise((resolve) => setTimeout(resolve, releaseTailMs));
  if (state.capture !== mode) return;
  stopCapture();
  if (!realtime.isOpen) return settleOrb();
  if (state.speechInProgress) {
    realtime.send({ type: "input_audio_buffer.commit" });
    orb.set("thinking", "Transcribing…");
  } else if (!state.awaitingTranscript && !state.reviewing) {
    realtime.send({ type: "input_audio_buffer.clear" });
    if (mode !== "continuous" && !state.response) announce("Nothing was heard.");
    settleOrb();
  }
}

const press = { down: false, startedAt: 0, wasActive: false, suppressClickUntil: 0 };

function pressDown() {
  if (press.down || orb.blocked) {
    if (orb.blocked) beginCapture("toggle"); // explains and moves focus to the review
    return;
  }
  press.down = true;
  press.startedAt = performance.now();
  press.wasActive = state.capture !== null;
  if (press.wasActive) return; // this press ends the capture, on release
  beginCapture($("continuous").checked ? "continuous" : "hold");
}

function pressUp() {
  if (!press.down) return;
  press.down = false;
  if (press.wasActive) {
    endCapture();
    return;
  }
  if (state.capture !== "hold") return;
  if (performance.now() - press.startedAt < holdThresholdMs) {
    state.capture = "toggle";
    announce("Listening. Press again when you are done.");
  } else {
    endCapture();
  }
}

function pressCancel() {
  if (!press.down) return;
  press.down = false;
  if (!press.wasActive && state.capture === "hold") endCapture();
}

const orbButton = $("orb");
orbButton.addEventListener("pointerdown", (event) => {
  if (event.button !== 0) return;
  event.preventDefault();
  orbButton.setPointerCapture?.(event.pointerId);
  pressDown();
});
orbButton.addEventListener("pointerup", () => pressUp());
orbButton.addEventListener("pointercancel", () => pressCancel());
orbButton.addEventListener("lostpointercapture", () => pressCancel());
orbButton.addEventListener("click", (event) => {
  // Enter on the focused orb (a click with no pointer): one press, a toggle.
  if (event.detail !== 0 || performance.now() < press.suppressClickUntil) return;
  pressDown();
  press.startedAt = performance.now();
  pressUp();
});

function isSpace(event) {
  return event.code === "Space" || event.key === " ";
}

/** The space bar talks unless it is typing or pressing another control. */
function spaceTalks(event) {
  if (document.querySelector("dialog[open]")) return false;
  const target = event.target;
  if (target === orbButton || target === document.body || target === document.documentElement) return true;
  return !target.closest?.("button, a, input, select, textarea, summary, [contenteditable], label");
}

document.addEventListener("keydown", (event) => {
  if (!isSpace(event) || event.ctrlKey || event.altKey || event.metaKey || !spaceTalks(event)) return;
  event.preventDefault();
  if (event.repeat) return;
  pressDown();
});

document.addEventListener("keyup", (event) => {
  if (!isSpace(event) || !spaceTalks(event)) return;
  event.preventDefault();
  press.suppressClickUntil = performance.now() + 400;
  pressUp();
});

$("continuous").addEventListener("change", () => {
  prefs.continuous = $("continuous").checked;
  savePrefs();
  if (state.capture) endCapture();
  configureSession();
  announce(prefs.continuous ? "Hands-free: press the orb once, then talk; turns end when you pause." : "Press to talk.");
});

$("review-toggle").addEventListener("change", () => {
  prefs.review = $("review-toggle").checked;
  savePrefs();
  configureSession();
});

$("review-send").addEventListener("click", reviewSend);
$("review-retry").addEventListener("click", reviewRetry);
$("review-append").addEventListener("click", reviewAppend);
$("review-cancel").addEventListener("click", reviewCancel);
$("review-text").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    reviewSend();
  } else if (event.key === "Escape") {
    event.preventDefault();
    reviewCancel();
  }
});

// ---------------------------------------------------------------- typing and images

$("composer").addEventListener("submit", async (event) => {
  event.preventDefault();
  const field = $("message");
  const text = field.value.trim();
  const images = state.attachments.map((attachment) => attachment.url);
  if (!text && images.length === 0) return;
  if (state.reviewing || state.awaitingTranscript) {
    announce("First finish the spoken turn.");
    return;
  }
  ensureAudio();
  try {
    await connect();
  } catch (error) {
    showError(error.message);
    return;
  }
  configureSession();
  interruptReply();
  const content = [];
  if (text) content.push({ type: "input_text", text });
  for (const url of images) content.push({ type: "input_image", image_url: url });
  realtime.send({ type: "conversation.item.create", item: { type: "message", role: "user", content } });
  realtime.send({ type: "response.create" });
  chat.user({ text, images, thread: state.thread });
  field.value = "";
  state.attachments = [];
  renderAttachments();
  orb.set("thinking");
});

$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});

$("attach").addEventListener("click", () => $("image-input").click());

$("image-input").addEventListener("change", async () => {
  const input = $("image-input");
  for (const file of input.files) {
    if (!file.type.startsWith("image/")) continue;
    try {
      state.attachments.push({ url: await shrink(file), name: file.name });
    } catch {
      showError(`${file.name} could not be read as an image.`);
    }
  }
  input.value = "";
  renderAttachments();
  announce(`${state.attachments.length} image${state.attachments.length === 1 ? "" : "s"} attached.`);
});

/** The image as a JPEG data URL at most 1024 pixels on its longer side. */
async function shrink(file) {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, 1024 / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return canvas.toDataURL("image/jpeg", 0.85);
}

function renderAttachments() {
  const box = $("attachments");
  box.replaceChildren();
  state.attachments.forEach((attachment, index) => {
    const figure = document.createElement("figure");
    const image = document.createElement("img");
    image.src = attachment.url;
    image.alt = attachment.name;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove the image ${attachment.name}`);
    remove.addEventListener("click", () => {
      state.attachments.splice(index, 1);
      renderAttachments();
      $("attach").focus();
    });
    figure.append(image, remove);
    box.append(figure);
  });
}

// ---------------------------------------------------------------- threads, history, stash

function setURL(thread) {
  const url = new URL(location.href);
  if (thread) url.searchParams.set("thread", String(thread));
  else url.searchParams.delete("thread");
  history.replaceState(null, "", url);
  $("mindmap-open").disabled = !thread; // a map needs a saved conversation
}

$("mindmap-open").addEventListener("click", () => {
  if (state.thread) mindMap.show(state.thread);
});

function adoptThread(id) {
  if (state.thread === id) return;
  state.thread = id;
  setURL(id);
  for (const bubble of chat.bubbles) if (bubble.thread == null) bubble.thread = id;
  library.refreshThreads();
}

/**
 * Once saved, gives the bubbles of this session their message ids (for Edit and Stash) and
 * what was saved of each reply (a reply cut short keeps only what was heard).
 */
let syncTimer = null;
function syncSoon(attempt = 0) {
  clearTimeout(syncTimer);
  syncTimer = setTimeout(async () => {
    if (!state.thread) return;
    let thread;
    try {
      thread = await api.thread(state.thread);
    } catch {
      return;
    }
    const saved = (thread.messages ?? []).filter((message) => message.role === "user" || message.role === "assistant");
    if (saved.length !== chat.bubbles.length) {
      if (attempt < 4) syncSoon(attempt + 1);
      return;
    }
    saved.forEach((message, index) => {
      const bubble = chat.bubbles[index];
      if (bubble.role !== message.role || bubble.message === message.id) return;
      if (message.role === "user") {
        bubble.update({ message: message.id, thread: thread.id, heard: message.raw_transcript ?? bubble.heard });
        return;
      }
      // A reply cut short is saved as far as it was heard: show that, not all that was written.
      if (message.interrupted) bubble.setText(message.text);
      const timings = message.timings_ms ?? {};
      bubble.update({
        message: message.id, thread: thread.id, provider: message.provider ?? bubble.provider, interrupted: message.interrupted,
        latencyMs: bubble.latencyMs ?? timings.first_audio_after_endpoint ?? null,
      });
    });
  }, 600);
}

async function openThread(id) {
  stopEverything();
  let thread;
  try {
    thread = await api.thread(id);
  } catch (error) {
    showError(error.status === 404 ? `Conversation ${id} was not found.` : error.message);
    if (state.thread === id) newConversation();
    return;
  }
  state.thread = thread.id;
  state.threadSettings = thread.settings;
  if (narrow.matches) showSidebar(false);
  chat.showThread(thread);
  setURL(thread.id);
  library.markCurrent();
  reconnect();
  announce(`Opened “${thread.title ?? "Untitled"}” with ${thread.messages.length} messages.`);
}

function newConversation() {
  stopEverything();
  state.thread = null;
  state.threadSettings = null;
  chat.clear();
  setURL(null);
  library.markCurrent();
  reconnect();
  announce("New conversation.");
}

function stopEverything() {
  if (state.capture) stopCapture();
  audio?.player.stop();
  if (state.reviewing) reviewDiscard();
  state.appendBase = "";
  resetTurnState();
  orb.set("idle");
}

$("new-conversation").addEventListener("click", newConversation);
$("history-toggle").addEventListener("click", () => showSidebar($("sidebar").hidden));

// ---------------------------------------------------------------- settings

function openSettings() {
  $("setting-model").value = prefs.model;
  $("setting-prompt").value = currentPrompt() ?? "";
  $("setting-tokens").value = currentMaxTokens() ?? "";
  $("setting-voice").value = prefs.voice;
  $("setting-silence").value = prefs.silenceMs;
  // (medium is auto by another name)
  const eagerness = !prefs.eagerness || prefs.eagerness === "medium" ? "auto" : prefs.eagerness;
  $("setting-turn").value = prefs.turnDetection === "server_vad" ? "server_vad" : `semantic_vad:${eagerness}`;
  $("setting-large").checked = prefs.large;
  $("setting-dyslexia").checked = prefs.dyslexia;
  $("setting-contrast").checked = prefs.contrast;
  $("setting-motion").checked = prefs.motion;
  $("setting-tools").checked = prefs.tools !== false;
  $("key-state").textContent = state.keyRequired ? (api.key ? "This server needs a key; one is in use." : "This server needs a key.") : "This server needs no key.";
  $("key-forget").hidden = !api.key;
  $("key-enter").hidden = !state.keyRequired;
  $("settings").showModal();
  showProviders(api, $("providers"));
}

async function saveSettings() {
  const model = $("setting-model").value || "auto";
  const prompt = $("setting-prompt").value.trim();
  const tokens = Number.parseInt($("setting-tokens").value, 10);
  const maxTokens = Number.isFinite(tokens) && tokens >= 1 ? Math.min(tokens, 4096) : null;
  const silence = Number.parseInt($("setting-silence").value, 10);
  const [detection, eagerness] = $("setting-turn").value.split(":");
  const modelChanged = model !== prefs.model;
  Object.assign(prefs, {
    model,
    voice: $("setting-voice").value.trim(),
    silenceMs: Number.isFinite(silence) ? Math.min(5000, Math.max(200, silence)) : 800,
    turnDetection: detection === "server_vad" ? "server_vad" : "semantic_vad",
    eagerness: eagerness || prefs.eagerness || "auto",
    large: $("setting-large").checked,
    dyslexia: $("setting-dyslexia").checked,
    contrast: $("setting-contrast").checked,
    motion: $("setting-motion").checked,
    tools: $("setting-tools").checked,
  });
  if (state.thread) {
    // The open conversation's own settings live with it on the server.
    const settings = {};
    if (prompt) settings.system_prompt = prompt;
    if (maxTokens) settings.max_tokens = maxTokens;
    try {
      if (Object.keys(settings).length > 0) {
        const saved = await api.updateThread(state.thread, { settings });
        state.threadSettings = saved.settings;
      }
    } catch (error) {
      showError(`The conversation's settings were not saved: ${error.message}`);
    }
  } else {
    prefs.prompt = prompt;
    prefs.maxTokens = maxTokens;
  }
  savePrefs();
  applyDisplay();
  if (modelChanged) reconnect();
  else configureSession();
  announce("Settings saved.");
}

$("settings-open").addEventListener("click", openSettings);
$("providers-refresh").addEventListener("click", () => showProviders(api, $("providers")));
$("compare-kind").addEventListener("change", () => {
  $("compare-input").value = $("compare-kind").value === "chat" ? "What is the capital of France?" : "The capital of France is Paris.";
});
$("compare-run").addEventListener("click", async () => {
  const input = $("compare-input").value.trim();
  if (!input) return announce("Type a question or a sentence to compare.");
  $("compare-run").disabled = true;
  try {
    await compareProviders(api, $("compare-kind").value, input, $("compare-results"));
  } finally {
    $("compare-run").disabled = false;
  }
});
$("settings").addEventListener("close", () => {
  if ($("settings").returnValue === "save") saveSettings();
  $("settings-open").focus();
});
$("key-forget").addEventListener("click", () => {
  api.forgetKey();
  $("key-forget").hidden = true;
  $("key-state").textContent = "The key is forgotten on this device.";
  announce("API key forgotten.");
});
$("key-enter").addEventListener("click", async () => {
  $("settings").close("cancel");
  await askForKey(api);
  reconnect();
  afterAuthorised();
});

// ---------------------------------------------------------------- start

async function afterAuthorised() {
  await loadServerPrefs();
  configureSession();
  await Promise.all([library.refreshThreads(), library.refreshStash(), fillModels(api, $("setting-model"), prefs.model)]);
}

/** On a narrow screen the history covers the conversation: it starts closed. */
const narrow = matchMedia("(max-width: 760px)");

function showSidebar(shown) {
  $("sidebar").hidden = !shown;
  $("history-toggle").setAttribute("aria-expanded", String(shown));
}

async function start() {
  applyDisplay();
  if (narrow.matches) showSidebar(false);
  let health = null;
  try {
    health = await api.health();
  } catch {
    setConnection("error", "Server unreachable");
    showError("The server could not be reached. Is parley serve running?");
    return;
  }
  state.keyRequired = health.api_key_required === true;
  if (state.keyRequired && !(await keyWorks(api).catch(() => false))) await askForKey(api, api.key ? "The saved key was not accepted." : null);
  const asked = Number.parseInt(new URLSearchParams(location.search).get("thread") ?? "", 10);
  if (Number.isFinite(asked) && asked > 0) state.thread = asked; // marked in the history at once
  await afterAuthorised();
  if (state.thread) await openThread(state.thread);
  else connect().catch((error) => showError(error.message));
}

// For tests and the curious: what the page is doing, read-only.
window.parleyClient = Object.freeze({
  get orbState() { return orb.state; },
  get thread() { return state.thread; },
  get connected() { return realtime.isOpen; },
  get capture() { return state.capture; },
  get turnDetection() { return state.sessionSent ? JSON.parse(state.sessionSent).audio.input.turn_detection : null; },
  get reviewing() { return state.reviewing !== null; },
  get audio() { return audio ? { context: audio.context.state, microphone: audio.mic.isOpen, sending: audio.mic.sending } : null; },
  get stats() { return { ...(audio?.player.stats ?? { chunksReceived: 0, chunksPlayed: 0, secondsPlayed: 0, interruptions: 0 }), chunksSent: state.chunksSent }; },
});

start();
