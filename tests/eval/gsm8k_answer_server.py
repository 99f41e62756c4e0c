#!/usr/bin/env python3
"""A scripted OpenAI-compatible server for the runner's eval tests (a site `command:` target).

It has no model. A request whose prompt holds a GSM8K test question (the last "Question: " of
the last message or prompt) is answered with the data's own worked answer, which ends
"#### <number>", or with a wrong number: every question under --wrong, every N-th of the test
split (from the first) under --wrong-every N. Any other request (a throughput point's
random prompt) is answered with filler text and a usage block claiming max_tokens tokens.
Answers stream as server-sent events when the request asks for a stream.

  gsm8k_answer_server.py --port N --data data/evals/gsm8k/test.jsonl [--wrong | --wrong-every N]
                         [--delay S] [--fail-questions | --fail-questions-after N]

--delay holds each answer S seconds; the first GSM8K answer is announced on stdout;
--fail-questions answers every GSM8K question with HTTP 500 (throughput requests still succeed);
--fail-questions-after N answers the first N GSM8K requests and every later one with HTTP 500
(the second eval of a batch against this server fails).
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def load_answers(path, wrong_every):
    answers = {}
    index = -1
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                doc = json.loads(line)
                index += 1
                answer = doc["answer"]
                answers[doc["question"]] = wrong(answer) if wrong_every and index % wrong_every == 0 else answer
    return answers


def question_of(body, chat):
    if chat:
        messages = body.get("messages") or []
        prompt = messages[-1].get("content", "") if messages else ""
    else:
        prompt = body.get("prompt", "")
    if not isinstance(prompt, str):
        return None
    at = prompt.rfind("Question: ")
    if at < 0:
        return None
    end = prompt.find("\nEnd your response", at + 10)
    return prompt[at + 10:] if end < 0 else prompt[at + 10:end]


def wrong(answer):
    head, _, number = answer.rpartition("#### ")
    try:
        return head + "#### " + str(int(number.replace(",", "")) + 1)
    except ValueError:
        return head + "#### 999999"


class Server(ThreadingHTTPServer):
    # Hundreds of clients connect at once: a short listen backlog would drop their SYNs.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hangs up mid-answer (a readiness probe, a stopped load) is not an error.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Answers go out at once, not held back for the client's delayed acknowledgement.
    disable_nagle_algorithm = True
    answers = {}
    delay = 0.0
    fail_questions = False
    fail_questions_after = 0
    questions = 0
    announced = False
    counter = 0
    lock = threading.Lock()

    def log_message(self, fmt, *args):  # keep the server log quiet
        pass

    def send_body(self, status, content_type, data):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.send_body(200, "text/plain", b"ok")
        elif self.path == "/v1/models":
            self.send_body(200, "application/json", b'{"object":"list","data":[{"id":"gsm8k-oracle"}]}')
        else:
            self.send_body(404, "application/json", b'{"error":"not found"}')

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        chat = self.path.endswith("/chat/completions")
        if not chat and not self.path.endswith("/completions"):
            self.send_body(404, "application/json", b'{"error":"not found"}')
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self.send_body(400, "application/json", b'{"error":"not JSON"}')
            return
        question = question_of(body, chat)
        late = False
        if question is not None and self.fail_questions_after > 0:
            with self.lock:
                Handler.questions += 1
                late = Handler.questions > self.fail_questions_after
        if question is not None and (self.fail_questions or late):
            self.send_body(500, "application/json", b'{"error":"scripted failure"}')
            return
        if question is not None:
            answer = self.answers.get(question, "I do not know this question.")
            if self.delay > 0:
                time.sleep(self.delay)
            with self.lock:
                if not Handler.announced:
                    Handler.announced = True
                    print("answering GSM8K questions", flush=True)
            pieces = [answer]
            tokens = max(1, len(answer.split()))
        else:
            tokens = int(body.get("max_completion_tokens") or body.get("max_tokens") or 16)
            pieces = ["word " * (tokens // 8 + (1 if i < tokens % 8 else 0)) for i in range(8)]
        with self.lock:
            Handler.counter += 1
            rid = "cmpl-%d" % Handler.counter
        usage = {"prompt_tokens": 100, "completion_tokens": tokens, "total_tokens": 100 + tokens}
        if not body.get("stream"):
            text = "".join(pieces)
            choice = {"index": 0, "finish_reason": "stop"}
            choice.update({"message": {"role": "assistant", "content": text}} if chat else {"text": text})
            self.send_body(200, "application/json", json.dumps({"id": rid, "choices": [choice], "usage": usage}).encode())
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        out = []

        def event(obj):
            data = ("data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n").encode()
            out.append(b"%x\r\n%s\r\n" % (len(data), data))

        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            delta = {"delta": {"role": "assistant", "content": piece}} if chat else {"text": piece}
            event({"id": rid, "choices": [dict(index=0, finish_reason="stop" if last else None, **delta)]})
        event({"id": rid, "choices": [], "usage": usage})
        event("[DONE]")
        out.append(b"0\r\n\r\n")
        self.wfile.write(b"".join(out))
        self.wfile.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", required=True, help="GSM8K test split (JSON lines)")
    parser.add_argument("--wrong", action="store_true", help="answer every question with a wrong number")
    parser.add_argument("--wrong-every", type=int, default=0, help="answer every N-th question wrongly")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each GSM8K answer is held")
    parser.add_argument("--fail-questions", action="store_true", help="HTTP 500 for every GSM8K question")
    parser.add_argument("--fail-questions-after", type=int, default=0,
                        help="HTTP 500 for every GSM8K request after the first N")
    args = parser.parse_args()
    wrong_every = 1 if args.wrong else args.wrong_every
    Handler.answers = load_answers(args.data, wrong_every)
    Handler.delay = args.delay
    Handler.fail_questions = args.fail_questions
    Handler.fail_questions_after = args.fail_questions_after
    server = Server(("127.0.0.1", args.port), Handler)
    kind = "every %d-th answer wrong" % wrong_every if wrong_every else "right answers"
    print("gsm8k answer server on port %d (%s)" % (args.port, kind), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
