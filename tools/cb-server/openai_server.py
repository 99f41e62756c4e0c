"""The OpenAI-compatible HTTP layer of the continuous-batching server (aiohttp).

Serves /v1/completions and /v1/chat/completions (streaming as server-sent events, or one JSON
answer), /health, /v1/models and /metrics (vLLM's Prometheus names for running and waiting
requests, so clients that watch a vLLM server's queue read this one alike). It knows nothing of
the model: an engine turns prompt token ids into generated token ids, a tokenizer turns text into
ids and back. Both are passed to make_app, so the layer runs the same over transformers' engine on
a GPU and over a scripted engine in the tests.

Engine protocol:
    engine.generate(prompt_ids, max_tokens, ignore_eos) -> async iterator of lists of new token ids
        (the iterator ends when the request finished; the ids of all lists together are the output)
    engine.num_running() / engine.num_waiting() -> int
Tokenizer protocol:
    encode(text) -> ids (with the family's BOS, as a vLLM server encodes a completion prompt)
    encode_chat(messages) -> ids (the family's chat template with the assistant header appended)
    decode(ids) -> text
    eos_token_ids -> list of ids that end a request unless ignore_eos
"""

import asyncio
import json
import time
import uuid

from aiohttp import web


class BadRequest(Exception):
    """A request the server refuses with 400 and an OpenAI-style error body."""


class IncrementalDecoder:
    """Text of a growing token sequence, emitted in pieces as tokens arrive.

    Decodes only a short window (from the last emitted boundary), so each token costs the same
    whatever the output length; holds text back while it ends in an incomplete UTF-8 character
    (U+FFFD), as byte-level BPE tokens can split one."""

    def __init__(self, tokenizer):
        self._tokenizer = tokenizer
        self._ids = []
        self._prefix = 0
        self._read = 0

    def push(self, new_ids):
        """Adds new_ids; returns the text that became final."""
        self._ids.extend(new_ids)
        prefix_text = self._tokenizer.decode(self._ids[self._prefix : self._read])
        text = self._tokenizer.decode(self._ids[self._prefix :])
        if text.endswith("\ufffd") or len(text) < len(prefix_text):
            return ""
        self._prefix = self._read
        self._read = len(self._ids)
        return text[len(prefix_text) :]

    def flush(self):
        """The text still held back at the end of the output."""
        prefix_text = self._tokenizer.decode(self._ids[self._prefix : self._read])
        text = self._tokenizer.decode(self._ids[self._prefix :])
        self._prefix = self._read = len(self._ids)
        return text[len(prefix_text) :]


def _int_field(body, names, default, minimum):
    for name in names:
        if name in body and body[name] is not None:
            value = body[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadRequest(f"'{name}' must be an integer")
            if value < minimum:
                raise BadRequest(f"'{name}' must be at least {minimum}")
            return value
    return default


def _prompt_ids(body, tokenizer, chat):
    if chat:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("'messages' must be a non-empty list")
        for m in messages:
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                raise BadRequest("each message needs a 'role' string")
            if isinstance(m.get("content"), list):
                m["content"] = "".join(p.get("text", "") for p in m["content"] if isinstance(p, dict))
            if not isinstance(m.get("content"), str):
                raise BadRequest("each message needs a 'content' string")
        return tokenizer.encode_chat(messages)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]
    if isinstance(prompt, str):
        return tokenizer.encode(prompt)
    if isinstance(prompt, list) and prompt and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
        return list(prompt)
    raise BadRequest("'prompt' must be a string, a list of token ids or a list of one of those")


def make_app(engine, tokenizer, model_name, max_model_len, default_max_tokens=16):
    """The aiohttp application serving engine under model_name."""
    counters = {"prompt_tokens": 0, "generation_tokens": 0, "requests": 0}
    created = int(time.time())

    async def health(_request):
        return web.Response(text="")

    async def models(_request):
        return web.json_response(
            {
                "object": "list",
                "data": [
                    {
                        "id": model_name,
                        "object": "model",
                        "created": created,
                        "owned_by": "infermark",
                        "root": model_name,
                        "max_model_len": max_model_len,
                    }
                ],
            }
        )

    async def metrics(_request):
        label = '{model_name="%s"}' % model_name
        lines = [
            "# HELP vllm:num_requests_running Number of requests in model execution batches.",
            "# TYPE vllm:num_requests_running gauge",
            f"vllm:num_requests_running{label} {engine.num_running()}",
            "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
            "# TYPE vllm:num_requests_waiting gauge",
            f"vllm:num_requests_waiting{label} {engine.num_waiting()}",
            "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.",
            "# TYPE vllm:prompt_tokens_total counter",
            f"vllm:prompt_tokens_total{label} {counters['prompt_tokens']}",
            "# HELP vllm:generation_tokens_total Number of generation tokens processed.",
            "# TYPE vllm:generation_tokens_total counter",
            f"vllm:generation_tokens_total{label} {counters['generation_tokens']}",
            "# HELP vllm:request_success_total Count of successfully processed requests.",
            "# TYPE vllm:request_success_total counter",
            f"vllm:request_success_total{label} {counters['requests']}",
        ]
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")

    def error(status, message):
        kind = "BadRequestError" if status == 400 else "InternalServerError"
        return web.json_response({"error": {"message": message, "type": kind, "code": status}}, status=status)

    async def serve(request, chat):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error(400, "the request body is not JSON")
        if not isinstance(body, dict):
            return error(400, "the request body must be a JSON object")
        try:
            if body.get("model") not in (None, model_name):
                raise BadRequest(f"model '{body.get('model')}' is not served here (this server serves '{model_name}')")
            names = ("max_completion_tokens", "max_tokens") if chat else ("max_tokens",)
            max_tokens = _int_field(body, names, default_max_tokens, 1)
            n = _int_field(body, ("n",), 1, 1)
            if n != 1:
                raise BadRequest("'n' must be 1")
            prompt_ids = _prompt_ids(body, tokenizer, chat)
            if len(prompt_ids) + max_tokens > max_model_len:
                raise BadRequest(
                    f"prompt ({len(prompt_ids)} tokens) plus max_tokens ({max_tokens}) exceeds the maximum model "
                    f"length ({max_model_len})"
                )
        except BadRequest as e:
            return error(400, str(e))
        ignore_eos = bool(body.get("ignore_eos", False))
        stream = bool(body.get("stream", False))
        options = body.get("stream_options") or {}
        include_usage = bool(options.get("include_usage", False))
        continuous_usage = bool(options.get("continuous_usage_stats", False))
        rid = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
        obj = "chat.completion" if chat else "text_completion"
        now = int(time.time())
        eos = set(tokenizer.eos_token_ids)

        def usage(completion):
            return {
                "prompt_tokens": len(prompt_ids),
                "completion_tokens": completion,
                "total_tokens": len(prompt_ids) + completion,
            }

        def chunk(text, finish, completion, first=False):
            if chat:
                delta = {"role": "assistant", "content": text} if first else {"content": text}
                choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                out = {"id": rid, "object": obj + ".chunk", "created": now, "model": model_name, "choices": [choice]}
            else:
                choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
                out = {"id": rid, "object": obj, "created": now, "model": model_name, "choices": [choice]}
            if continuous_usage:
                out["usage"] = usage(completion)
            return out

        decoder = IncrementalDecoder(tokenizer)
        generated = 0
        last_id = None
        response = None
        pieces = []
        counters["prompt_tokens"] += len(prompt_ids)
        try:
            if stream:
                response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
                await response.prepare(request)
            first = True
            async for new_ids in engine.generate(prompt_ids, max_tokens, ignore_eos):
                if not new_ids:
                    continue
                generated += len(new_ids)
                counters["generation_tokens"] += len(new_ids)
                last_id = new_ids[-1]
                text = decoder.push(new_ids)
                if stream:
                    data = json.dumps(chunk(text, None, generated, first))
                    await response.write(f"data: {data}\n\n".encode())
                    first = False
                else:
                    pieces.append(text)
            tail = decoder.flush()
            finish = "stop" if (not ignore_eos and last_id in eos) or generated < max_tokens else "length"
            counters["requests"] += 1
            if not stream:
                text = "".join(pieces) + tail
                if chat:
                    choice = {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "logprobs": None,
                        "finish_reason": finish,
                    }
                else:
                    choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
                return web.json_response(
                    {
                        "id": rid,
                        "object": obj,
                        "created": now,
                        "model": model_name,
                        "choices": [choice],
                        "usage": usage(generated),
                    }
                )
            await response.write(f"data: {json.dumps(chunk(tail, finish, generated, first))}\n\n".encode())
            if include_usage:
                final = {"id": rid, "object": obj + (".chunk" if chat else ""), "created": now, "model": model_name}
                final["choices"] = []
                final["usage"] = usage(generated)
                await response.write(f"data: {json.dumps(final)}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
            return response
        except (ConnectionResetError, asyncio.CancelledError):
            raise
        except Exception as e:  # the engine failed this request: say so in the stream or as a 500
            if response is None:
                return error(500, f"generation failed: {e}")
            payload = json.dumps({"error": {"message": f"generation failed: {e}", "type": "InternalServerError"}})
            await response.write(f"data: {payload}\n\ndata: [DONE]\n\n".encode())
            await response.write_eof()
            return response

    async def completions(request):
        return await serve(request, chat=False)

    async def chat_completions(request):
        return await serve(request, chat=True)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/metrics", metrics)
    app.router.add_post("/v1/completions", completions)
    app.router.add_post("/v1/chat/completions", chat_completions)
    return app
