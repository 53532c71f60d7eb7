#!/usr/bin/env python3
"""The voice frameworks' own OpenAI clients against a running `parley serve`, driven directly:
LiveKit Agents' OpenAI plugin (livekit-plugins-openai) and Pipecat's OpenAI services
(pipecat-ai[openai]), with no LiveKit server, no transport and no media server.

Usage: check_voice_frameworks.py BASE_URL API_KEY QUESTION_WAV

LiveKit: its STT on the recording (whole, and streamed through a realtime transcription
session), its LLM's chat stream, its TTS with default settings (mp3 over server-sent events)
and with tts-1 (mp3 bytes) heard back, and its RealtimeModel answering the spoken question
(server turn detection), speaking first and answering a text item through generate_reply.
Pipecat: its OpenAILLMService, OpenAISTTService, OpenAITTSService, OpenAIRealtimeSTTService and
OpenAIRealtimeLLMService, each in a minimal pipeline fed frames by hand (skipped when pipecat-ai
is not installed). Prints one line per check and exits 1 if any failed. Run by the Swift test suite (ParleyServerTests) against a
`parley serve` child.
"""
import asyncio
import io
import logging
import re
import sys
import wave

import numpy as np
import openai

base_url, api_key, question = sys.argv[1:4]
QUESTION = "What is the capital of France?"
SENTENCE = "The capital of France is Paris."
STEP = 240.0  # seconds any one flow may take on a slow machine
failures = []

logging.basicConfig(level=logging.CRITICAL, stream=sys.stderr)
try:  # Pipecat logs every frame at DEBUG through loguru
    from loguru import logger as _loguru
    _loguru.remove()
    _loguru.add(sys.stderr, level="ERROR")
except ImportError:
    pass

client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=120)


def check(name, passed, detail=""):
    print(f"{'ok' if passed else 'FAILED'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not passed:
        failures.append(name)


def words(text):
    return re.findall(r"[a-z]+", (text or "").lower())


def heard_question(text):
    return "capital" in words(text) and "france" in words(text)


def read_wav(path):
    with wave.open(path) as handle:
        assert handle.getsampwidth() == 2, "16-bit PCM expected"
        return handle.readframes(handle.getnframes()), handle.getframerate(), handle.getnchannels()


def wav_bytes(pcm, rate, channels=1):
    out = io.BytesIO()
    with wave.open(out, "wb") as handle:
        handle.setnchannels(channels)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(pcm)
    return out.getvalue()


def rms(pcm):
    samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
    return float(np.sqrt(np.mean(samples ** 2))) if samples.size else 0.0


async def hear(pcm, rate):
    """The server's own transcript of 16-bit mono PCM (to check what a framework played)."""
    result = await client.audio.transcriptions.create(model="whisper-1", file=("speech.wav", wav_bytes(pcm, rate), "audio/wav"))
    return result.text


async def guarded(name, flow):
    """Runs one flow; an exception or a timeout is that flow's failure, not the script's end."""
    try:
        await asyncio.wait_for(flow(), STEP)
    except Exception as error:  # noqa: BLE001 - every failure is reported by name
        check(name, False, f"{type(error).__name__}: {error}"[:600])


PCM, RATE, CHANNELS = read_wav(question)
WS_URL = re.sub(r"^http", "ws", base_url.rstrip("/")) + "/realtime"


async def transcription_session(query, session_update, commit):
    """A realtime transcription session opened with a framework's own session.update, fed the
    recording at 24 kHz: the session type the server settled on, the transcript, and any
    response.* events (a transcription session must not answer)."""
    import base64
    import json

    import aiohttp
    samples = np.frombuffer(PCM, dtype=np.int16).astype(np.float64)
    pcm24 = np.interp(np.arange(0, len(samples), RATE / 24000), np.arange(len(samples)), samples).astype(np.int16).tobytes()
    pcm24 = bytes(24000) + pcm24 + bytes(72000)
    kind, transcript, answered = None, None, []
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(WS_URL + query, headers={"Authorization": f"Bearer {api_key}"}) as ws:
            await ws.send_str(json.dumps(session_update))
            for start in range(0, len(pcm24), 4800):
                await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm24[start:start + 4800]).decode()}))
            if commit:
                await ws.send_str(json.dumps({"type": "input_audio_buffer.commit"}))
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while loop.time() < deadline:
                try:
                    message = await asyncio.wait_for(ws.receive(), max(0.1, deadline - loop.time()))
                except asyncio.TimeoutError:
                    break
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                event = json.loads(message.data)
                if event["type"] == "session.updated":
                    kind = event["session"].get("type")
                elif event["type"] == "conversation.item.input_audio_transcription.completed":
                    transcript = event["transcript"]
                    deadline = min(deadline, loop.time() + 5)  # long enough for an answer to start
                elif event["type"].startswith("response."):
                    answered.append(event["type"])
    return kind, transcript, sorted(set(answered))


# ---------------------------------------------------------------------------------------------
# LiveKit Agents' OpenAI plugin
# ---------------------------------------------------------------------------------------------
async def livekit_checks():
    from livekit import rtc
    from livekit.agents import llm as lk_llm, stt as lk_stt
    from livekit.agents.utils import http_context
    from livekit.plugins import openai as lk_openai

    def frames(pcm, rate, chunk_ms=20):
        """The recording as a microphone track delivers it: 20 ms AudioFrames."""
        step = rate * chunk_ms // 1000 * 2
        for start in range(0, len(pcm), step):
            piece = pcm[start:start + step]
            yield rtc.AudioFrame(piece, rate, 1, len(piece) // 2)

    def silence(seconds, rate):
        return list(frames(bytes(int(rate * seconds) * 2), rate))

    def frames_pcm(audio_frames):
        joined = rtc.combine_audio_frames(audio_frames)
        return bytes(joined.data), joined.sample_rate

    # Outside a job the plugins take their aiohttp session from this context, as LiveKit's
    # docs tell scripts and tests to do.
    async with http_context.open():
        stt = lk_openai.STT(base_url=base_url, api_key=api_key)

        async def stt_recognize():
            event = await stt.recognize(list(frames(PCM, RATE)))
            text = event.alternatives[0].text if event.alternatives else ""
            check("livekit: STT recognizes the recording", event.type == lk_stt.SpeechEventType.FINAL_TRANSCRIPT and heard_question(text),
                  repr(text))
        await guarded("livekit: STT recognizes the recording", stt_recognize)

        async def stt_stream():
            streaming = lk_openai.STT(base_url=base_url, api_key=api_key, use_realtime=True)
            stream = streaming.stream()
            finals, interim = [], []

            async def push():
                for frame in silence(0.5, RATE) + list(frames(PCM, RATE)) + silence(2.0, RATE):
                    stream.push_frame(frame)
                    await asyncio.sleep(0.005)

            pusher = asyncio.create_task(push())
            try:
                async for event in stream:
                    if event.type == lk_stt.SpeechEventType.INTERIM_TRANSCRIPT:
                        interim.append(event.alternatives[0].text)
                    elif event.type == lk_stt.SpeechEventType.FINAL_TRANSCRIPT:
                        finals.append(event.alternatives[0].text)
                        break
            finally:
                pusher.cancel()
                await stream.aclose()
                await streaming.aclose()
            text = " ".join(finals)
            check("livekit: streamed STT (realtime transcription session) gives a final transcript", heard_question(text),
                  f"final {text!r}, {len(interim)} interim")
        await guarded("livekit: streamed STT (realtime transcription session) gives a final transcript", stt_stream)

        async def transcription_only():
            from livekit.plugins.openai.stt import _session_update  # the event the streamed STT sends first
            update = _session_update(lk_openai.STT(base_url=base_url, api_key=api_key, use_realtime=True)._opts)
            kind, transcript, answered = await transcription_session("?intent=transcription&model=gpt-4o-mini-transcribe",
                                                                     update.model_dump(by_alias=True, exclude_unset=True), commit=False)
            check("livekit: its realtime transcription session only transcribes (no response)",
                  kind == "transcription" and heard_question(transcript) and not answered,
                  f"session.updated type {kind!r}, transcript {transcript!r}, response events {answered}")
        await guarded("livekit: its realtime transcription session only transcribes (no response)", transcription_only)

        async def llm_chat():
            model = lk_openai.LLM(base_url=base_url, api_key=api_key, temperature=0)
            ctx = lk_llm.ChatContext()
            ctx.add_message(role="system", content="Answer in one short sentence.")
            ctx.add_message(role="user", content=QUESTION)
            pieces, usage = [], None
            async with model.chat(chat_ctx=ctx) as stream:
                async for chunk in stream:
                    if chunk.delta and chunk.delta.content:
                        pieces.append(chunk.delta.content)
                    if chunk.usage:
                        usage = chunk.usage
            await model.aclose()
            text = "".join(pieces)
            check("livekit: LLM chat stream answers", "paris" in words(text) and len(pieces) > 1,
                  f"{text!r} in {len(pieces)} chunks, usage {usage.completion_tokens if usage else None} tokens")
        await guarded("livekit: LLM chat stream answers", llm_chat)

        for label, options in [("default settings (gpt-4o-mini-tts, mp3 over sse)", {}), ("tts-1 (mp3 bytes)", {"model": "tts-1"})]:
            async def tts_speak(options=options, label=label):
                tts = lk_openai.TTS(base_url=base_url, api_key=api_key, **options)
                audio = [event.frame async for event in tts.synthesize(SENTENCE)]
                await tts.aclose()
                pcm, rate = frames_pcm(audio) if audio else (b"", 0)
                heard = await hear(pcm, rate) if pcm else ""
                check(f"livekit: TTS with {label} is decoded and heard back", rms(pcm) > 100 and "paris" in words(heard),
                      f"{len(audio)} frames, {len(pcm) / 2 / max(rate, 1):.2f} s at {rate} Hz, rms {rms(pcm):.0f}, heard {heard!r}")
            await guarded(f"livekit: TTS with {label} is decoded and heard back", tts_speak)

        async def realtime():
            model = lk_openai.realtime.RealtimeModel(base_url=base_url, api_key=api_key)
            session = model.session()
            generations, transcripts, errors, created_events = asyncio.Queue(), [], [], []

            def server_event(event):
                if event.get("type") == "response.created":
                    created_events.append(event["response"])
                elif event.get("type") == "error":  # the server's own words, which the plugin's error event wraps
                    errors.append(event.get("error"))
            session.on("openai_server_event_received", server_event)
            session.on("generation_created", generations.put_nowait)
            session.on("input_audio_transcription_completed", lambda event: transcripts.append(event.transcript))

            async def read(generation):
                text, audio = [], []

                async def message(msg):
                    async def texts():
                        async for piece in msg.text_stream:
                            text.append(piece)

                    async def sounds():
                        async for frame in msg.audio_stream:
                            audio.append(frame)
                    await asyncio.gather(texts(), sounds())
                async for msg in generation.message_stream:
                    await message(msg)
                async for _ in generation.function_stream:
                    pass
                pcm, rate = frames_pcm(audio) if audio else (b"", 0)
                return "".join(text), pcm, rate

            def said(text, pcm, rate):
                return f"said {text!r}, {len(pcm) / 2 / max(rate, 1):.1f} s of audio"

            async def reply(name, expected, **options):
                """generate_reply, as an agent calls it; the plugin waits 10 s for the
                response.created that echoes its metadata.client_event_id."""
                try:
                    created = await session.generate_reply(**options)
                except Exception as error:
                    detail = f"{type(error).__name__}: {error}; response.created was {created_events[-1] if created_events else None}"
                    try:  # what the response said, though the plugin could not tell it was its own
                        text, pcm, rate = await asyncio.wait_for(read(await asyncio.wait_for(generations.get(), 30)), 120)
                        detail += f"; the response itself {said(text, pcm, rate)}"
                    except Exception:  # noqa: BLE001 - the detail is only a hint
                        pass
                    check(name, False, detail + f"; errors {errors}")
                    errors.clear()
                    return
                text, pcm, rate = await asyncio.wait_for(read(created), 120)
                while not generations.empty():
                    generations.get_nowait()  # the same generation, announced to listeners too
                check(name, created.user_initiated and expected(text) and rms(pcm) > 100 and not errors,
                      f"{said(text, pcm, rate)}, errors {errors}")
                errors.clear()

            try:
                await session.update_instructions("You are a helpful voice assistant. Answer in one short sentence.")
                # The agent speaks first, with nothing said yet (AgentSession.generate_reply in on_enter).
                await reply("livekit: realtime model speaks first through generate_reply", lambda text: len(words(text)) > 1,
                            instructions="Greet the user.")

                # The spoken question, as a room's microphone track feeds it, answered on the
                # server's turn detection (the model's defaults: semantic_vad, create_response).
                for frame in silence(0.3, RATE) + list(frames(PCM, RATE)) + silence(2.0, RATE):
                    session.push_audio(frame)
                generation = await asyncio.wait_for(generations.get(), 60)
                text, pcm, rate = await asyncio.wait_for(read(generation), 120)
                await asyncio.sleep(0.5)
                check("livekit: realtime model answers the spoken question (server turn detection)",
                      "paris" in words(text) and rms(pcm) > 100 and not errors,
                      f"{said(text, pcm, rate)}, user transcript {transcripts!r}, errors {errors}")
                errors.clear()

                # A text item (update_chat_ctx) and generate_reply, as a bot told what was typed does.
                ctx = session.chat_ctx.copy()
                ctx.add_message(role="user", content=QUESTION)
                await session.update_chat_ctx(ctx)
                await reply("livekit: realtime model answers a text item through generate_reply", lambda text: "paris" in words(text))
            finally:
                await session.aclose()
                await model.aclose()
        await guarded("livekit: realtime model", realtime)

        await stt.aclose()


# ---------------------------------------------------------------------------------------------
# Pipecat's OpenAI services
# ---------------------------------------------------------------------------------------------
async def pipecat_checks():
    try:
        import pipecat  # noqa: F401
    except ImportError:  # scripts/setup leaves it out: pipecat-ai needs onnxruntime>=1.24.3, the venv pins 1.23.2
        print("skipped: Pipecat's OpenAI services (pipecat-ai[openai] is not installed)", flush=True)
        return
    from pipecat.frames.frames import (EndFrame, ErrorFrame, Frame, InputAudioRawFrame, LLMContextFrame, LLMFullResponseEndFrame,
                                       LLMTextFrame, StartFrame, TranscriptionFrame, TTSAudioRawFrame, TTSSpeakFrame,
                                       TTSStoppedFrame, TTSTextFrame, VADUserStartedSpeakingFrame, VADUserStoppedSpeakingFrame)
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.processors.aggregators.llm_context import LLMContext
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.services.openai.llm import OpenAILLMService
    from pipecat.services.openai.realtime.llm import OpenAIRealtimeLLMService
    from pipecat.services.openai.stt import OpenAIRealtimeSTTService, OpenAISTTService
    from pipecat.services.openai.tts import OpenAITTSService
    from pipecat.workers.runner import WorkerRunner

    class Collector(FrameProcessor):
        """Keeps what passes one way and says when a frame of the awaited kind came by."""

        def __init__(self, direction, until=()):
            super().__init__()
            self.direction, self.until, self.frames, self.done = direction, until, [], asyncio.Event()

        async def process_frame(self, frame: Frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if direction == self.direction and not isinstance(frame, StartFrame):
                self.frames.append(frame)
                if isinstance(frame, self.until):
                    self.done.set()
            await self.push_frame(frame, direction)

    async def run(service, frames, until, params=None, wait=120):
        """`service` between two collectors in a pipeline; `frames` go in, and the pipeline ends
        once a frame of a type in `until` came out (or an error came back)."""
        upstream, downstream = Collector(FrameDirection.UPSTREAM, (ErrorFrame,)), Collector(FrameDirection.DOWNSTREAM, until)
        worker = PipelineWorker(Pipeline([upstream, service, downstream]), params=params or PipelineParams(),
                                cancel_on_idle_timeout=False)
        started = asyncio.Event()

        @worker.event_handler("on_pipeline_started")
        async def _started(worker, frame):
            started.set()

        async def drive():
            await asyncio.wait_for(started.wait(), 30)
            for frame in frames:
                if isinstance(frame, float):
                    await asyncio.sleep(frame)
                else:
                    await worker.queue_frame(frame)
            waits = [asyncio.create_task(downstream.done.wait()), asyncio.create_task(upstream.done.wait())]
            await asyncio.wait(waits, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            for task in waits:
                task.cancel()
            await worker.queue_frame(EndFrame())

        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(worker)
        await asyncio.gather(runner.run(), drive())
        errors = [frame.error for frame in upstream.frames + downstream.frames if isinstance(frame, ErrorFrame)]
        return downstream.frames, errors

    def audio_frames(pcm, rate, chunk_ms=20):
        step = rate * chunk_ms // 1000 * 2
        return [InputAudioRawFrame(audio=pcm[i:i + step], sample_rate=rate, num_channels=1) for i in range(0, len(pcm), step)]

    def quiet(seconds, rate):
        return audio_frames(bytes(int(rate * seconds) * 2), rate)

    def text_of(frames, kind):
        return "".join(frame.text for frame in frames if type(frame) is kind)

    def played(frames):
        audio = [frame for frame in frames if isinstance(frame, TTSAudioRawFrame)]
        return b"".join(frame.audio for frame in audio), (audio[0].sample_rate if audio else 0)

    params = PipelineParams(audio_in_sample_rate=RATE)

    async def llm():
        service = OpenAILLMService(api_key=api_key, base_url=base_url, settings=OpenAILLMService.Settings(temperature=0))
        context = LLMContext(messages=[{"role": "system", "content": "Answer in one short sentence."}, {"role": "user", "content": QUESTION}])
        frames, errors = await run(service, [LLMContextFrame(context=context)], (LLMFullResponseEndFrame,))
        text = text_of(frames, LLMTextFrame)
        check("pipecat: OpenAILLMService answers", "paris" in words(text) and not errors, f"{text!r}, errors {errors}")
    await guarded("pipecat: OpenAILLMService answers", llm)

    async def stt():
        service = OpenAISTTService(api_key=api_key, base_url=base_url)
        frames = [VADUserStartedSpeakingFrame()] + audio_frames(PCM, RATE) + [VADUserStoppedSpeakingFrame()]
        frames, errors = await run(service, frames, (TranscriptionFrame,), params=params)
        text = " ".join(frame.text for frame in frames if isinstance(frame, TranscriptionFrame))
        check("pipecat: OpenAISTTService transcribes a spoken turn", heard_question(text) and not errors, f"{text!r}, errors {errors}")
    await guarded("pipecat: OpenAISTTService transcribes a spoken turn", stt)

    async def tts():
        service = OpenAITTSService(api_key=api_key, base_url=base_url)
        frames, errors = await run(service, [TTSSpeakFrame(SENTENCE)], (TTSStoppedFrame,))
        pcm, rate = played(frames)
        heard = await hear(pcm, rate) if pcm else ""
        check("pipecat: OpenAITTSService speaks 24 kHz PCM that is heard back", rate == 24000 and rms(pcm) > 100 and "paris" in words(heard)
              and not errors, f"{len(pcm) / 2 / max(rate, 1):.2f} s at {rate} Hz, rms {rms(pcm):.0f}, heard {heard!r}, errors {errors}")
    await guarded("pipecat: OpenAITTSService speaks 24 kHz PCM that is heard back", tts)

    ws_url = WS_URL

    async def realtime_stt():
        service = OpenAIRealtimeSTTService(api_key=api_key, base_url=ws_url)
        # Its default turn taking is a local VAD's: the pipeline's VAD frames make it commit.
        frames = [1.0, VADUserStartedSpeakingFrame()] + audio_frames(PCM, RATE) + [VADUserStoppedSpeakingFrame()]
        frames, errors = await run(service, frames, (TranscriptionFrame,), params=params)
        text = " ".join(frame.text for frame in frames if isinstance(frame, TranscriptionFrame))
        check("pipecat: OpenAIRealtimeSTTService transcribes over a realtime transcription session", heard_question(text) and not errors,
              f"{text!r}, errors {errors}")
    await guarded("pipecat: OpenAIRealtimeSTTService transcribes over a realtime transcription session", realtime_stt)

    async def realtime_stt_only():
        service, sent = OpenAIRealtimeSTTService(api_key=api_key, base_url=ws_url), []

        async def capture(message):
            sent.append(message)
        service._ws_send = capture  # the session.update it sends on session.created, caught rather than sent
        await service._send_session_update()
        kind, transcript, answered = await transcription_session("?intent=transcription", sent[0], commit=True)
        check("pipecat: its realtime transcription session (turn_detection null, committed) only transcribes (no response)",
              kind == "transcription" and heard_question(transcript) and not answered,
              f"session.updated type {kind!r}, transcript {transcript!r}, response events {answered}")
    await guarded("pipecat: its realtime transcription session only transcribes (no response)", realtime_stt_only)

    async def realtime_llm():
        service = OpenAIRealtimeLLMService(api_key=api_key, base_url=ws_url)
        context = LLMContext(messages=[{"role": "system", "content": "Answer in one short sentence."}, {"role": "user", "content": QUESTION}])
        frames, errors = await run(service, [LLMContextFrame(context=context)], (LLMFullResponseEndFrame,))
        pcm, rate = played(frames)
        said = text_of(frames, TTSTextFrame) or text_of(frames, LLMTextFrame)
        check("pipecat: OpenAIRealtimeLLMService answers a context in speech", "paris" in words(said) and rms(pcm) > 100 and not errors,
              f"said {said!r}, {len(pcm) / 2 / max(rate, 1):.1f} s at {rate} Hz, errors {errors}")
    await guarded("pipecat: OpenAIRealtimeLLMService answers a context in speech", realtime_llm)


async def main():
    await livekit_checks()
    await pipecat_checks()


asyncio.run(main())
print(f"{len(failures)} failed" if failures else "all voice framework checks passed")
sys.exit(1 if failures else 0)
