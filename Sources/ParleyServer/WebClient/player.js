// Plays the reply as it streams: each `response.output_audio.delta` (base64 16-bit PCM at
// 24 kHz) becomes an AudioBufferSourceNode scheduled right after the one before it. Knows how
// much of each reply item was actually heard, for `conversation.item.truncate` on barge-in,
// and counts what it played (the page exposes the counters for tests).

const rate = 24000;
const leadSeconds = 0.06; // scheduling slack for the first chunk after a gap

export class Player {
  constructor(context, onIdle) {
    this.context = context;
    this.onIdle = onIdle;
    this.output = context.createGain();
    this.analyser = context.createAnalyser();
    this.analyser.fftSize = 512;
    this.output.connect(this.analyser);
    this.analyser.connect(context.destination);
    this.levelData = new Float32Array(this.analyser.fftSize);
    this.item = null;
    this.segments = []; // {start, duration, source} of the current item
    this.endTime = 0;
    // While paused: the audio not yet heard ({buffer, offset}), in order, and what of the item
    // was heard before the pause (ms).
    this.held = null;
    this.heardBefore = 0;
    this.stats = { chunksReceived: 0, chunksPlayed: 0, secondsPlayed: 0, interruptions: 0, pauses: 0, resumes: 0 };
  }

  /** Whether reply audio is scheduled or sounding now, or held by a pause. */
  get playing() { return this.paused || (this.segments.length > 0 && this.context.currentTime < this.endTime); }

  /** Whether playback is paused (speech over the reply, until the server says it resumes). */
  get paused() { return this.held !== null; }

  /** Queues a chunk of item `itemID` for playback. */
  enqueue(itemID, base64) {
    const samples = decodePCM16(base64);
    if (samples.length === 0) return;
    this.stats.chunksReceived += 1;
    if (itemID !== this.item) {
      this.item = itemID;
      this.segments = [];
      this.heardBefore = 0;
    }
    const buffer = this.context.createBuffer(1, samples.length, rate);
    buffer.copyToChannel(samples, 0);
    if (this.held) {
      this.held.push({ buffer, offset: 0 });
      return;
    }
    this.schedule(buffer, 0);
  }

  schedule(buffer, offset) {
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.output);
    const start = Math.max(this.endTime, this.context.currentTime + leadSeconds);
    const segment = { start, duration: buffer.duration - offset, source, stopped: false, buffer, offset };
    source.onended = () => this.ended(segment);
    source.start(start, offset);
    this.segments.push(segment);
    this.endTime = start + buffer.duration;
  }

  ended(segment) {
    const heard = Math.max(0, Math.min(segment.duration, this.context.currentTime - segment.start));
    if (!segment.stopped) this.stats.chunksPlayed += 1;
    this.stats.secondsPlayed += segment.stopped ? heard : segment.duration;
    // The last chunk so far has played out: nothing sounds until more arrives.
    if (!segment.stopped && segment === this.segments[this.segments.length - 1]) this.onIdle();
  }

  /** Milliseconds of item `itemID` heard so far. */
  playedMilliseconds(itemID) {
    if (itemID !== this.item) return 0;
    const now = this.context.currentTime;
    let heard = 0;
    for (const segment of this.segments) heard += Math.max(0, Math.min(segment.duration, now - segment.start));
    return this.heardBefore + Math.round(heard * 1000);
  }

  /** Pauses playback where it is (the user speaks over the reply): what is not yet heard is
   * held, with what arrives meanwhile, until `resume()`; `stop()` drops it. */
  pause() {
    if (this.held || !this.playing) return false;
    const now = this.context.currentTime;
    this.heardBefore = this.playedMilliseconds(this.item);
    this.held = [];
    for (const segment of this.segments) {
      const heard = Math.max(0, now - segment.start);
      if (heard < segment.duration) this.held.push({ buffer: segment.buffer, offset: segment.offset + heard });
      segment.stopped = true;
      try {
        segment.source.stop();
      } catch {
        // already ended
      }
    }
    this.segments = [];
    this.endTime = 0;
    this.stats.pauses += 1;
    return true;
  }

  /** Plays on from where `pause()` stopped (the speech was no interruption). */
  resume() {
    if (!this.held) return false;
    const held = this.held;
    this.held = null;
    for (const part of held) this.schedule(part.buffer, part.offset);
    this.stats.resumes += 1;
    if (held.length === 0) this.onIdle();
    return true;
  }

  /** Stops playback at once; returns the item that was playing and how much of it was heard. */
  stop() {
    const item = this.item;
    const played = this.playedMilliseconds(item);
    const wasPlaying = this.playing;
    this.held = null;
    this.heardBefore = 0;
    for (const segment of this.segments) {
      segment.stopped = true;
      try {
        segment.source.stop();
      } catch {
        // already ended
      }
    }
    this.segments = [];
    this.endTime = 0;
    if (wasPlaying) this.stats.interruptions += 1;
    return { item, played, wasPlaying };
  }

  /** The output level now (RMS, 0…1), for the orb while the reply plays. */
  level() {
    this.analyser.getFloatTimeDomainData(this.levelData);
    let energy = 0;
    for (const value of this.levelData) energy += value * value;
    return Math.min(1, Math.sqrt(energy / this.levelData.length) * 4);
  }
}

function decodePCM16(base64) {
  const binary = atob(base64);
  const count = binary.length >> 1;
  const samples = new Float32Array(count);
  for (let index = 0; index < count; index++) {
    const low = binary.charCodeAt(2 * index);
    const high = binary.charCodeAt(2 * index + 1);
    let value = (high << 8) | low;
    if (value >= 0x8000) value -= 0x10000;
    samples[index] = value / 0x8000;
  }
  return samples;
}
