// The microphone's AudioWorklet: takes the context's audio (any rate, first channel or the
// mean of two), low-passes and resamples it to 24 kHz by linear interpolation, and posts
// 16-bit PCM in chunks of 40 ms, each with the chunk's level (RMS, 0…1).

const targetRate = 24000;
const chunkSamples = 960; // 40 ms at 24 kHz

class CaptureProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / targetRate; // input samples per output sample
    // A one-pole low-pass a little under the new Nyquist rate, against aliasing when the
    // input is faster than 24 kHz.
    const cutoff = Math.min(10000, sampleRate / 2.2);
    this.alpha = this.step > 1 ? 1 - Math.exp((-2 * Math.PI * cutoff) / sampleRate) : 1;
    this.smoothed = 0;
    this.previous = 0;
    this.next = 0; // where the next output falls, in input samples after `previous`
    this.chunk = new Int16Array(chunkSamples);
    this.filled = 0;
    this.energy = 0;
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0 || !input[0]) return true;
    const left = input[0];
    const right = input.length > 1 ? input[1] : null;
    for (let index = 0; index < left.length; index++) {
      const raw = right ? (left[index] + right[index]) / 2 : left[index];
      this.smoothed += this.alpha * (raw - this.smoothed);
      const current = this.smoothed;
      while (this.next <= 1) {
        this.emit(this.previous + (current - this.previous) * this.next);
        this.next += this.step;
      }
      this.next -= 1;
      this.previous = current;
    }
    return true;
  }

  emit(value) {
    const clamped = Math.max(-1, Math.min(1, value));
    this.energy += clamped * clamped;
    this.chunk[this.filled++] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff;
    if (this.filled === chunkSamples) {
      const level = Math.min(1, Math.sqrt(this.energy / chunkSamples) * 4);
      this.port.postMessage({ pcm: this.chunk.buffer, level }, [this.chunk.buffer]);
      this.chunk = new Int16Array(chunkSamples);
      this.filled = 0;
      this.energy = 0;
    }
  }
}

registerProcessor("parley-capture", CaptureProcessor);
