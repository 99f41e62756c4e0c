"""The OpenAI layer of tools/cb-server over a scripted engine and a byte-level tokenizer.

The GPU engine (transformers' continuous batching) runs only on a GPU machine; these tests pin what
clients see of any engine: the SSE framing, usage, ignore_eos, finish reasons, chat deltas,
incremental UTF-8 decoding, /metrics and the 400 answers.
"""

import asyncio
import json
import os
import sys
import unittest

from aiohttp.test_utils import AioHTTPTestCase

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "cb-server"))

from openai_server import IncrementalDecoder, make_app  # noqa: E402

BOS, EOS = 256, 257


class ByteTokenizer:
    """Ids 0-255 are bytes; a multi-byte character spans several ids, as in byte-level BPE."""

    eos_token_ids = [EOS]

    def encode(self, text):
        return [BOS] + list(text.encode("utf-8"))

    def encode_chat(self, messages):
        text = "".join(f"<{m['role']}>{m['content']}" for m in messages) + "<assistant>"
        return [BOS] + list(text.encode("utf-8"))

    def decode(self, ids):
        return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")


class ScriptedEngine:
    """Generates the bytes of `script` cyclically, one id a step; stops at max_tokens, or at EOS
    unless ignore_eos. `gate`, when set, holds every request before its first token."""

    def __init__(self, script):
        self.script = script
        self.gate = None
        self.running = 0
        self.waiting = 0

    def num_running(self):
        return self.running

    def num_waiting(self):
        return self.waiting

    async def generate(self, prompt_ids, max_tokens, ignore_eos):
        self.waiting += 1
        if self.gate is not None:
            await self.gate.wait()
        self.waiting -= 1
        self.running += 1
        try:
            for i in range(max_tokens):
                tid = self.script[i % len(self.script)]
                await asyncio.sleep(0)
                yield [tid]
                if tid == EOS and not ignore_eos:
                    return
        finally:
            self.running -= 1


def sse_events(text):
    events = [line[len("data: "):] for line in text.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]", events[-1]
    return [json.loads(e) for e in events[:-1]]


class ServerTest(AioHTTPTestCase):
    async def get_application(self):
        # "héllo" has a two-byte character; EOS comes after it.
        self.engine = ScriptedEngine(list("héllo".encode("utf-8")) + [EOS])
        return make_app(self.engine, ByteTokenizer(), "test/model", max_model_len=64)

    async def post(self, path, body):
        resp = await self.client.post(path, json=body)
        return resp, await resp.text()

    async def test_health_and_models(self):
        resp = await self.client.get("/health")
        self.assertEqual(resp.status, 200)
        resp = await self.client.get("/v1/models")
        data = (await resp.json())["data"]
        self.assertEqual([(d["id"], d["max_model_len"]) for d in data], [("test/model", 64)])

    async def test_streaming_completion_with_ignore_eos_is_exactly_max_tokens(self):
        body = {"model": "test/model", "prompt": "hi", "max_tokens": 14, "stream": True, "ignore_eos": True,
                "stream_options": {"include_usage": True}}
        resp, text = await self.post("/v1/completions", body)
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.headers["Content-Type"], "text/event-stream")
        events = sse_events(text)
        usage = events[-1]
        self.assertEqual(usage["choices"], [])
        self.assertEqual(usage["usage"], {"prompt_tokens": 3, "completion_tokens": 14, "total_tokens": 17})
        choices = [e["choices"][0] for e in events[:-1]]
        self.assertEqual("".join(c["text"] for c in choices), "héllohéllo")  # two EOS ids decode to nothing
        self.assertNotIn("\ufffd", "".join(c["text"] for c in choices))
        self.assertEqual([c["finish_reason"] for c in choices][-1], "length")
        self.assertTrue(all(c["finish_reason"] is None for c in choices[:-1]))

    async def test_eos_ends_a_request_without_ignore_eos(self):
        body = {"prompt": "hi", "max_tokens": 14, "stream": True, "stream_options": {"include_usage": True}}
        _, text = await self.post("/v1/completions", body)
        events = sse_events(text)
        self.assertEqual(events[-1]["usage"]["completion_tokens"], 7)
        self.assertEqual(events[-2]["choices"][0]["finish_reason"], "stop")

    async def test_continuous_usage_counts_every_chunk(self):
        body = {"prompt": [1, 2, 3], "max_tokens": 4, "stream": True, "ignore_eos": True,
                "stream_options": {"include_usage": True, "continuous_usage_stats": True}}
        _, text = await self.post("/v1/completions", body)
        counts = [e["usage"]["completion_tokens"] for e in sse_events(text)]
        self.assertEqual(counts, [1, 2, 3, 4, 4, 4])
        self.assertEqual(sse_events(text)[0]["usage"]["prompt_tokens"], 3)

    async def test_chat_stream_and_plain_answers(self):
        body = {"messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 3, "stream": True,
                "ignore_eos": True}
        _, text = await self.post("/v1/chat/completions", body)
        events = sse_events(text)
        self.assertEqual(events[0]["object"], "chat.completion.chunk")
        self.assertEqual(events[0]["choices"][0]["delta"]["role"], "assistant")
        self.assertEqual("".join(e["choices"][0]["delta"]["content"] for e in events), "hé")
        resp, text = await self.post("/v1/chat/completions", {"messages": [{"role": "user", "content": "x"}]})
        answer = json.loads(text)
        self.assertEqual(answer["choices"][0]["message"]["content"], "héllo")
        self.assertEqual(answer["choices"][0]["finish_reason"], "stop")
        self.assertEqual(answer["usage"]["completion_tokens"], 7)
        resp, text = await self.post("/v1/completions", {"prompt": "x", "max_tokens": 2})
        # Half of "é" ends the output: it decodes to U+FFFD, as the whole output would.
        self.assertEqual(json.loads(text)["choices"][0]["text"], "h\ufffd")

    async def test_bad_requests_are_400_with_a_message(self):
        cases = [
            ({"model": "other", "prompt": "x"}, "not served here"),
            ({"prompt": "x", "max_tokens": 64}, "exceeds the maximum model length"),
            ({"prompt": "x", "max_tokens": 0}, "'max_tokens' must be at least 1"),
            ({"prompt": 5}, "'prompt' must be"),
            ({"prompt": "x", "n": 2}, "'n' must be 1"),
        ]
        for body, message in cases:
            resp, text = await self.post("/v1/completions", body)
            self.assertEqual(resp.status, 400, body)
            self.assertIn(message, json.loads(text)["error"]["message"])
        resp = await self.client.post("/v1/completions", data=b"{not json")
        self.assertEqual(resp.status, 400)
        resp, _ = await self.post("/v1/chat/completions", {"messages": []})
        self.assertEqual(resp.status, 400)

    async def test_metrics_count_waiting_and_running_requests(self):
        self.engine.gate = asyncio.Event()
        body = {"prompt": "x", "max_tokens": 2, "stream": True, "ignore_eos": True}
        tasks = [asyncio.ensure_future(self.post("/v1/completions", body)) for _ in range(3)]
        for _ in range(100):
            await asyncio.sleep(0.01)
            if self.engine.waiting == 3:
                break
        text = await (await self.client.get("/metrics")).text()
        self.assertIn('vllm:num_requests_waiting{model_name="test/model"} 3', text)
        self.assertIn('vllm:num_requests_running{model_name="test/model"} 0', text)
        self.engine.gate.set()
        await asyncio.gather(*tasks)
        text = await (await self.client.get("/metrics")).text()
        self.assertIn('vllm:num_requests_waiting{model_name="test/model"} 0', text)
        self.assertIn('vllm:generation_tokens_total{model_name="test/model"} 6', text)
        self.assertIn('vllm:request_success_total{model_name="test/model"} 3', text)


class IncrementalDecoderTest(unittest.TestCase):
    def test_split_characters_come_out_whole(self):
        decoder = IncrementalDecoder(ByteTokenizer())
        ids = list("a€b".encode("utf-8"))  # '€' is three bytes
        pieces = [decoder.push([i]) for i in ids]
        self.assertEqual(pieces, ["a", "", "", "€", "b"])
        self.assertEqual(decoder.flush(), "")


if __name__ == "__main__":
    unittest.main()
