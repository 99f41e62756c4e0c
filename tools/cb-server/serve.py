"""An OpenAI-compatible server on transformers' continuous batching, with random weights.

    python3 tools/cb-server/serve.py --model-config tools/cb-server/models/llama-3.1-8b \
        --tokenizer TOKENIZER_DIR --served-model-name meta-llama/Llama-3.1-8B-Instruct --port 8888

The model is built from --model-config (a folder with a Hugging Face config.json) with weights
drawn at random; --tokenizer is a folder with the family's tokenizer.json and
tokenizer_config.json. See docs/gpu.md ("A real serving engine").
"""

import argparse
import asyncio
import logging
import os
import sys

from aiohttp import web

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from openai_server import make_app  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model-config", required=True, help="folder holding the architecture's config.json")
    p.add_argument("--tokenizer", required=True, help="folder holding tokenizer.json and tokenizer_config.json")
    p.add_argument("--served-model-name", required=True, help="the model id clients name")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8888)
    p.add_argument("--dtype", choices=("bfloat16", "float16"), default="bfloat16")
    p.add_argument("--max-model-len", type=int, default=4096, help="longest prompt + output accepted")
    p.add_argument("--attn-implementation", default="sdpa", help="paged by transformers' continuous batching")
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights")
    p.add_argument("--no-warmup", action="store_true", help="skip capturing CUDA graphs before serving")
    p.add_argument(
        "--max-running",
        type=int,
        default=0,
        help="at most this many requests in the batch at once, the rest queued (0: no bound)",
    )
    p.add_argument(
        "--log-load-interval",
        type=float,
        default=0.0,
        help="seconds between log lines of running/waiting requests and the step time they imply (0: off)",
    )
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    import torch

    from transformers_engine import HFTokenizer, TransformersEngine, build_model

    if not torch.cuda.is_available():
        print("serve.py: no CUDA device: transformers' continuous batching serves on a GPU", file=sys.stderr)
        return 1
    tokenizer = HFTokenizer(args.tokenizer)
    dtype = getattr(torch, args.dtype)
    model = build_model(args.model_config, dtype, args.seed, args.attn_implementation)
    engine = TransformersEngine(
        model,
        tokenizer.eos_token_ids,
        args.max_model_len,
        warmup=not args.no_warmup,
        load_log_interval=args.log_load_interval,
        max_running=args.max_running,
    )
    app = make_app(engine, tokenizer, args.served_model_name, args.max_model_len)

    async def on_startup(_app):
        engine.start(asyncio.get_running_loop())

    async def on_cleanup(_app):
        engine.stop()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    web.run_app(app, host=args.host, port=args.port, access_log=None, print=lambda *_: None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
