#!/usr/bin/env python3
"""Writes the chat messages lm-evaluation-harness sends for the first N GSM8K test questions.

An independent statement of lm-eval's rules (its default few-shot sampler: one random.Random
seeded with 1234 per task, `sample(train_docs, k)` for each test document in order; with
--apply_chat_template, few-shot examples as alternating user/assistant turns), written with
Python's own random module so that infermark's re-implementation of Python's generator is
checked against the real one. Standard library and PyYAML (python3-yaml) only.

Usage: make_prompt_fixture.py DATA_EVALS_DIR OUT.json [N] [SHOTS]
"""
import json
import random
import sys

import yaml


def render(template, doc):
    # The task file's templates are plain {{field}} substitutions.
    out = template
    for key, value in doc.items():
        out = out.replace("{{" + key + "}}", str(value))
    assert "{{" not in out, out
    return out


def main():
    data, out_path = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    shots = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    with open(f"{data}/gsm8k.yaml") as f:
        task = yaml.safe_load(f)
    def read(split):
        with open(f"{data}/gsm8k/{split}.jsonl") as f:
            return [json.loads(line) for line in f if line.strip()]
    train, test = read(task["fewshot_split"]), read(task["test_split"])
    rnd = random.Random(1234)
    prompts = []
    for doc in test[:count]:
        messages = []
        for example in rnd.sample(train, shots):
            messages.append({"role": "user", "content": render(task["doc_to_text"], example)})
            messages.append({"role": "assistant", "content": render(task["doc_to_target"], example)})
        messages.append({"role": "user", "content": render(task["doc_to_text"], doc)})
        prompts.append(messages)
    with open(out_path, "w") as f:
        json.dump(prompts, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
