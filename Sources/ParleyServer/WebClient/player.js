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
    this.stats = { chunksReceived: 0, chunksPlayed: 0, secondsPlayed: 0, interruptions: 0 };
  }

  /** Whether reply audio is scheduled or sounding now. */
  get playing() { return this.segments.length > 0 && this.context.currentTime < this.endTime; }

  /** Queues a chunk of item `itemID` for playback. */
  enqueue(itemID, base64) {
    const samples = decodePCM16(base64);
    if (samples.length === 0) return;
    this.stats.chunksReceived += 1;
    if (itemID !== this.item) {
      this.item = itemID;
      this.segments = [];
    }
    const buffer = this.context.createBuffer(1, samples.length, rate);
    buffer.copyToChannel(samples, 0);
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.output);
    const start = Math.max(this.endTime, this.context.currentTime + leadSeconds);
    const segment = { start, duration: buffer.duration, source, stopped: false };
    source.onended = () => this.ended(segment);
    source.start(start);
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
    return Math.round(heard * 1000);
  }

  /** Stops playback at once; returns the item that was playing and how much of it was heard. */
  stop() {
    const item = this.item;
    const played = this.playedMilliseconds(item);
    const wasPlaying = this.playing;
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
