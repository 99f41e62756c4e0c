"""The engine of the continuous-batching server: transformers' continuous batching (paged attention,
a scheduler that admits and retires requests every step) over a model whose weights are drawn at
random from a real architecture's config, and the family's tokenizer.

Random weights: no weights can be fetched on the lent GPU machine, and a serving engine's timing
does not depend on the values of its weights (the same kernels run on the same shapes), only the
generated text does, which is noise. EOS can therefore come at any step: a request with ignore_eos
gets EOS disabled, so its output is exactly max_tokens long, as on vLLM.

The transformers API moved between releases; this module asks the installed one what it has
(per-request streaming and EOS in add_request, result handlers or the shared output queue) instead
of pinning one release.
"""

import asyncio
import inspect
import logging
import threading
import time
import uuid

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

log = logging.getLogger("cb-server")


class HFTokenizer:
    """The tokenizer protocol of openai_server over a tokenizer.json folder (transformers' fast
    tokenizer, which runs Hugging Face `tokenizers`)."""

    def __init__(self, path):
        self._tok = AutoTokenizer.from_pretrained(path)
        ids = set()
        for name in ("<|end_of_text|>", "<|eot_id|>", "<|eom_id|>"):
            tid = self._tok.convert_tokens_to_ids(name)
            if isinstance(tid, int) and tid != self._tok.unk_token_id:
                ids.add(tid)
        if self._tok.eos_token_id is not None:
            ids.add(self._tok.eos_token_id)
        self.eos_token_ids = sorted(ids)

    def encode(self, text):
        return self._tok(text, add_special_tokens=True)["input_ids"]

    def encode_chat(self, messages):
        out = self._tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        if isinstance(out, dict) or hasattr(out, "keys"):
            out = out["input_ids"]
        return list(out)

    def decode(self, ids):
        return self._tok.decode(ids, skip_special_tokens=False)


def build_model(config_dir, dtype, seed, attn_implementation):
    """A causal LM of config_dir's architecture with random weights, built on the GPU."""
    config = AutoConfig.from_pretrained(config_dir)
    torch.manual_seed(seed)
    start = time.perf_counter()
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn_implementation)
        except TypeError:
            model = AutoModelForCausalLM.from_config(config, torch_dtype=dtype, attn_implementation=attn_implementation)
    model.eval()
    # Draw every weight explicitly (from_config may leave memory uninitialised): matrices from
    # N(0, initializer_range) as the architecture's own init does, norm scales at 1.
    std = getattr(config, "initializer_range", 0.02)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, std)
            else:
                p.fill_(1.0)
    torch.cuda.synchronize()
    params = sum(p.numel() for p in model.parameters())
    log.warning(
        "model: %s, %.2f B parameters (%s, random weights) built in %.1f s",
        config.architectures[0] if config.architectures else config.model_type,
        params / 1e9,
        dtype,
        time.perf_counter() - start,
    )
    return model


class TransformersEngine:
    """The engine protocol of openai_server on a ContinuousBatchingManager."""

    def __init__(self, model, eos_token_ids, max_new_tokens, warmup=True, load_log_interval=0.0, max_running=0):
        self._eos = list(eos_token_ids)
        # At most this many requests in the manager at once (0: no bound); the rest wait their turn.
        self._max_running = max_running
        self._admission = None
        self._load_log_interval = load_log_interval
        self._emitted = 0
        self._stopping = threading.Event()
        add_params = None
        gen = GenerationConfig(
            max_new_tokens=max_new_tokens,
            do_sample=False,
            eos_token_id=self._eos,
            pad_token_id=self._eos[0] if self._eos else 0,
        )
        init_params = inspect.signature(model.init_continuous_batching).parameters
        kwargs = {}
        if "streaming" in init_params:  # releases that stream per manager, not per request
            kwargs["streaming"] = True
        self._manager = model.init_continuous_batching(generation_config=gen, **kwargs)
        add_params = inspect.signature(self._manager.add_request).parameters
        self._per_request_streaming = "streaming" in add_params
        self._per_request_eos = "eos_token_id" in add_params
        if not self._per_request_eos:
            # EOS can only be set for the whole manager: disable it, so that every output is
            # max_tokens long (what benchmarks ask for with ignore_eos).
            log.warning("this transformers release sets EOS per manager only: EOS is disabled for every request")
            gen.eos_token_id = -1
        self._use_handlers = hasattr(self._manager, "register_result_handler")
        if warmup and self._warmup_takes_no_arguments():
            start = time.perf_counter()
            self._manager.warmup()
            log.warning("continuous batching warm-up (CUDA graphs) took %.1f s", time.perf_counter() - start)
        self._streams = {}
        self._lock = threading.Lock()
        self._waiting = set()
        self._running = set()
        self._loop = None
        self._dispatcher = None
        log.warning(
            "transformers continuous batching: per-request streaming %s, per-request EOS %s, result %s",
            self._per_request_streaming,
            self._per_request_eos,
            "handlers" if self._use_handlers else "queue dispatcher",
        )

    def _warmup_takes_no_arguments(self):
        """Newer releases capture CUDA graphs in manager.warmup(); older ones warm up inside start."""
        method = getattr(self._manager, "warmup", None)
        if method is None:
            return False
        params = inspect.signature(method).parameters.values()
        return all(p.default is not inspect.Parameter.empty for p in params)

    def start(self, loop):
        """Starts the manager's generation thread (and the result dispatcher where needed)."""
        self._loop = loop
        self._manager.start()
        if not self._use_handlers:
            self._dispatcher = threading.Thread(target=self._dispatch, name="cb-dispatch", daemon=True)
            self._dispatcher.start()
        if self._load_log_interval > 0:
            threading.Thread(target=self._log_load, name="cb-load-log", daemon=True).start()

    def stop(self):
        self._stopping.set()
        self._manager.stop(block=True, timeout=10)

    def _log_load(self):
        """Logs, every interval, the running and waiting requests and the tokens streamed since the
        last line. While every running request decodes, running x seconds / tokens is the time of
        one engine step: the step time as the server lived it, beside what the clients measured."""
        last_time, last_emitted = time.perf_counter(), self._emitted
        while not self._stopping.wait(self._load_log_interval):
            now, emitted = time.perf_counter(), self._emitted
            tokens, running = emitted - last_emitted, len(self._running)
            step_ms = 1000.0 * (now - last_time) * running / tokens if tokens and running else 0.0
            log.warning(
                "load: running %d waiting %d tokens %d in %.2f s, step %.1f ms",
                running,
                len(self._waiting),
                tokens,
                now - last_time,
                step_ms,
            )
            last_time, last_emitted = now, emitted

    def _dispatch(self):
        """Routes results of the shared output queue to their request's asyncio queue."""
        while True:
            result = self._manager.get_result(timeout=0.05)
            if result is None:
                if not self._manager.is_running():
                    time.sleep(0.05)
                continue
            with self._lock:
                queue = self._streams.get(result.request_id)
            if queue is not None:
                self._loop.call_soon_threadsafe(queue.put_nowait, result)

    def num_running(self):
        return len(self._running)

    def num_waiting(self):
        return len(self._waiting)

    @staticmethod
    def _finished(result):
        if hasattr(result, "is_finished"):
            return result.is_finished()
        return getattr(result.status, "name", str(result.status)) in ("FINISHED", "FAILED")

    async def generate(self, prompt_ids, max_tokens, ignore_eos):
        if self._max_running > 0:
            if self._admission is None:
                self._admission = asyncio.Semaphore(self._max_running)
            async with self._admission:
                async for tokens in self._generate(prompt_ids, max_tokens, ignore_eos):
                    yield tokens
            return
        async for tokens in self._generate(prompt_ids, max_tokens, ignore_eos):
            yield tokens

    async def _generate(self, prompt_ids, max_tokens, ignore_eos):
        rid = uuid.uuid4().hex
        queue = asyncio.Queue()
        if self._use_handlers:
            self._manager.register_result_handler(rid, queue.put_nowait)
        else:
            with self._lock:
                self._streams[rid] = queue
        kwargs = {}
        if self._per_request_streaming:
            kwargs["streaming"] = True
        if self._per_request_eos:
            kwargs["eos_token_id"] = -1 if ignore_eos else self._eos
        self._waiting.add(rid)
        sent = 0
        done = False
        try:
            self._manager.add_request(list(prompt_ids), request_id=rid, max_new_tokens=max_tokens, **kwargs)
            while True:
                try:
                    result = await asyncio.wait_for(queue.get(), timeout=5.0)
                except asyncio.TimeoutError:
                    if not self._manager.is_running():
                        raise RuntimeError("the continuous batching thread is not running")
                    continue
                if getattr(result, "error", None):
                    raise RuntimeError(str(result.error))
                tokens = list(result.generated_tokens)
                if len(tokens) > sent:
                    if rid in self._waiting:
                        self._waiting.discard(rid)
                        self._running.add(rid)
                    new = tokens[sent:]
                    sent = len(tokens)
                    self._emitted += len(new)
                    yield new
                if self._finished(result):
                    done = True
                    return
        finally:
            self._waiting.discard(rid)
            self._running.discard(rid)
            with self._lock:
                self._streams.pop(rid, None)
            if not done:
                self._manager.cancel_request(rid)
