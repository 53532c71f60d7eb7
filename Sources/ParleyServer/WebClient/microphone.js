// The microphone: getUserMedia into the capture worklet, which hands back 24 kHz 16-bit PCM.
// The stream stays open for a while after a turn (so the next press starts at once) and is
// released when unused, so the browser's microphone indicator goes out.

const releaseAfterMs = 20000;

export class Microphone {
  /** `onChunk(base64PCM, level)` is called for every 40 ms chunk while `sending` is on. */
  constructor(context, onChunk, onLevel) {
    this.context = context;
    this.onChunk = onChunk;
    this.onLevel = onLevel;
    this.stream = null;
    this.node = null;
    this.sending = false;
    this.releaseTimer = null;
    this.moduleLoaded = false;
  }

  get isOpen() { return this.stream !== null; }

  /** Opens the microphone (asking for permission the first time) and starts sending. */
  async start() {
    clearTimeout(this.releaseTimer);
    if (!this.stream) await this.open();
    this.sending = true;
  }

  /** Stops sending; the microphone is released after a while unless started again. */
  pause() {
    this.sending = false;
    this.onLevel(0);
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => this.release(), releaseAfterMs);
  }

  async open() {
    if (!navigator.mediaDevices?.getUserMedia) {
      throw new Error("This browser gives no microphone to this page (it needs https, or http on localhost).");
    }
    if (!this.moduleLoaded) {
      await this.context.audioWorklet.addModule("capture-worklet.js");
      this.moduleLoaded = true;
    }
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    const source = this.context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(this.context, "parley-capture", { numberOfOutputs: 1, outputChannelCount: [1] });
    node.port.onmessage = (message) => {
      if (!this.sending) return;
      const { pcm, level } = message.data;
      this.onLevel(level);
      this.onChunk(toBase64(new Uint8Array(pcm)), level);
    };
    // Pulled through a silent gain, so that every browser runs the worklet.
    const silent = this.context.createGain();
    silent.gain.value = 0;
    source.connect(node);
    node.connect(silent);
    silent.connect(this.context.destination);
    this.stream = stream;
    this.node = node;
    this.source = source;
    this.silent = silent;
  }

  /** Closes the microphone now. */
  release() {
    clearTimeout(this.releaseTimer);
    this.sending = false;
    if (!this.stream) return;
    for (const track of this.stream.getTracks()) track.stop();
    this.source.disconnect();
    this.node.disconnect();
    this.silent.disconnect();
    this.node.port.onmessage = null;
    this.stream = null;
    this.node = null;
  }
}

/** Base64 of bytes, in slices (String.fromCharCode takes a bounded number of arguments). */
export function toBase64(bytes) {
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}
