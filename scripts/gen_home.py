#!/usr/bin/env python3
"""Write a home directory holding sessions of all ten agents in their real on-disk layouts.

Deterministic from --seed. The defaults make benchmark data (10,000 sessions, about 1.1 GB); the
bundled demo home and the tests ask for a few small sessions (--scale 1). The formats follow
docs/formats.md; the OpenCode, OpenClaw 2026.9 and Hermes databases are created from
scripts/schema/*.sql (their tables and columns as the agents write them). Needs only Python 3
(3.8 or newer, with its sqlite3 module; `zstandard`, if installed, compresses large OpenClaw events).

  python3 scripts/gen_home.py --out examples/demo-home --sessions 30 --seed 7 --scale 1
  python3 scripts/gen_home.py --out bench/data/home --seed 1 --huge-mb 200
  python3 scripts/gen_home.py --out /tmp/h1g-real --agents claude,codex --sessions 7500 --seed 1 \
      --scale 36 --vocabulary real

--vocabulary real writes tool outputs as real ones read: source files, git logs, directory
listings, compiler and test output, JSON responses, installs, container listings and logs, full
of identifiers, paths, hashes, ids and numbers (a vocabulary that keeps growing with the home, as
a real one does). The default (topics) repeats each topic's output line with counters.
"""
import argparse
import hashlib
import json
import os
import random
import sqlite3
import uuid
from datetime import datetime, timedelta, timezone

AGENTS = ["claude", "codex", "gemini", "copilot", "cursor", "opencode", "pi", "omp", "openclaw", "hermes"]
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, "schema")

TOPICS = [
    ("kubernetes", "Why does my kubernetes deployment keep restarting the api pod?",
     "The liveness probe hits /healthz before the server listens; raise initialDelaySeconds or add a startupProbe.",
     ("kubectl describe pod api-7d9f -n prod", "Last State: Terminated\n  Reason: OOMKilled\nLiveness probe failed: connection refused")),
    ("flaky test", "The integration test test_checkout_flow is a flaky test on CI, find out why.",
     "It depends on wall-clock ordering of two async writes; I made the fixture await both before asserting.",
     ("npm test -- --grep checkout", "1 failing\n  checkout flow\n    AssertionError: expected 'paid' to equal 'pending'")),
    ("refactor auth", "Refactor the authentication middleware to use the new token verifier.",
     "Moved verification into verifyToken(), the middleware now only maps errors to 401 responses.",
     ("rg -n 'jwt.verify' src", "src/middleware/auth.ts:42:    const claims = jwt.verify(token, secret)")),
    ("sqlite wal", "Can two processes read the sqlite database while the agent writes in WAL mode?",
     "Yes: readers see the last committed transaction; open read-only and never checkpoint.",
     ("sqlite3 state.db 'PRAGMA journal_mode'", "wal")),
    ("rust borrow", "Fix the borrow checker error in src/cache.rs line 88.",
     "The iterator held an immutable borrow while inserting; collect the keys first, then insert.",
     ("cargo build", "error[E0502]: cannot borrow `self.map` as mutable because it is also borrowed as immutable")),
    ("docker compose", "docker compose up fails with port already allocated for postgres.",
     "Another container still binds 5432; stop it or map the service to 5433 in compose.yaml.",
     ("docker ps --format '{{.Names}} {{.Ports}}'", "old-db 0.0.0.0:5432->5432/tcp")),
    ("release notes", "Write release notes for version 2.3 from the merged pull requests.",
     "Drafted CHANGELOG.md with features, fixes and the breaking rename of --out to --output.",
     ("git log --oneline v2.2..HEAD", "a1b2c3d feat: streaming export\nd4e5f6a fix: torn last line")),
    ("css grid", "The dashboard cards overflow on mobile, make the css grid responsive.",
     "Switched to grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)) and removed fixed widths.",
     ("cat src/styles/dashboard.css", ".cards { display: grid; grid-template-columns: 320px 320px 320px; }")),
    ("大别山", "帮我总结一下大别山徒步路线的注意事项，并写成清单。",
     "大别山徒步：带足饮水、注意天气变化、提前下载离线地图、结伴而行。",
     ("cat notes/hiking.md", "大别山 主峰 白马尖 海拔 1777 米")),
    ("python packaging", "Our wheel is missing the data files, fix pyproject.toml packaging.",
     "Added [tool.setuptools.package-data] for the templates folder and a test that imports them.",
     ("python -m build", "warning: no files found matching 'templates/*.html'")),
]

# What Claude Code records as a session's `ai-title`: a short summary the model writes, not the
# first prompt cut at some length.
AI_TITLES = {
    "kubernetes": "Debug Kubernetes API pod restart loop",
    "flaky test": "Fix flaky checkout flow test on CI",
    "refactor auth": "Move auth middleware to the token verifier",
    "sqlite wal": "Concurrent SQLite reads in WAL mode",
    "rust borrow": "Fix borrow checker error in cache.rs",
    "docker compose": "Resolve Postgres port clash in Compose",
    "release notes": "Draft release notes for v2.3",
    "css grid": "Make dashboard card grid responsive",
    "大别山": "大别山徒步注意事项清单",
    "python packaging": "Ship data files in the Python wheel",
}

MODELS = {
    "claude": ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001"],
    "codex": ["gpt-5-codex", "gpt-5"],
    "gemini": ["gemini-2.5-pro", "gemini-2.5-flash"],
    "copilot": ["claude-sonnet-4.5", "gpt-5"],
    "cursor": ["claude-4-sonnet", "gpt-5"],
    "opencode": ["claude-sonnet-4-5", "gpt-5"],
    "pi": ["claude-sonnet-4-5", "gpt-5"],
    "omp": ["claude-sonnet-4-5", "kimi-for-coding"],
    "openclaw": ["claude-opus-4-1", "claude-sonnet-4-5"],
    "hermes": ["anthropic/claude-sonnet-4", "openai/gpt-5"],
}

BASE_TIME = datetime(2026, 10, 1, 9, 0, 0, tzinfo=timezone.utc)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(t):
    return int(t.timestamp() * 1000)


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


SYLLABLES = ["ba", "be", "bi", "bo", "ca", "ce", "ci", "co", "da", "de", "di", "do", "fa", "fe", "fi",
             "ga", "ge", "go", "ha", "he", "hi", "ka", "ke", "ki", "ko", "la", "le", "li", "lo", "lu",
             "ma", "me", "mi", "mo", "mu", "na", "ne", "ni", "no", "pa", "pe", "pi", "po", "ra", "re",
             "ri", "ro", "ru", "sa", "se", "si", "so", "ta", "te", "ti", "to", "tu", "va", "ve", "vi",
             "za", "zo", "st", "tr", "nd", "ck", "ph", "th", "qu", "x", "y", "er", "on", "an", "in"]
COMMON = ["the", "a", "to", "of", "and", "in", "is", "for", "on", "with", "error", "function", "return",
          "const", "let", "if", "else", "import", "from", "export", "class", "self", "value", "test",
          "file", "src", "user", "data", "config", "request", "response", "failed", "ok", "true",
          "false", "null", "await", "async", "new", "string", "number", "type", "index", "map"]


class RealOutput:
    """Tool outputs with a real vocabulary: words drawn with Zipf's law from a large lexicon,
    joined into identifiers, beside ids, hashes, paths and numbers that are new each time."""

    def __init__(self, seed):
        lex_rng = random.Random(seed * 7919 + 17)
        words = set()
        while len(words) < 50000:
            words.add("".join(lex_rng.choice(SYLLABLES) for _ in range(lex_rng.randrange(2, 5))))
        self.lexicon = COMMON + sorted(words)
        lex_rng.shuffle(self.lexicon[len(COMMON):])
        # Zipf: the k-th word is drawn with weight 1 / (k + 2).
        total, self.cum = 0.0, []
        for k in range(len(self.lexicon)):
            total += 1.0 / (k + 2)
            self.cum.append(total)
        self.kinds = [self.source, self.git_log, self.listing, self.compiler, self.json_lines,
                      self.install, self.containers, self.logs]

    def word(self, rng):
        import bisect
        return self.lexicon[min(bisect.bisect(self.cum, rng.random() * self.cum[-1]), len(self.lexicon) - 1)]

    def ident(self, rng):
        parts = [self.word(rng) for _ in range(rng.choice((1, 1, 2, 2, 3)))]
        style = rng.randrange(3)
        if style == 0:
            return parts[0] + "".join(p.capitalize() for p in parts[1:])
        return ("_" if style == 1 else "-").join(parts)

    def path(self, rng):
        dirs = "/".join(self.word(rng) for _ in range(rng.randrange(1, 4)))
        return f"src/{dirs}/{self.ident(rng)}.{rng.choice(['ts', 'rs', 'py', 'go', 'tsx', 'json', 'md'])}"

    @staticmethod
    def hexs(rng, n):
        return f"{rng.getrandbits(4 * n):0{n}x}"

    def uuid(self, rng):
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def stamp(self, rng):
        return f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(1000):03d}Z"

    def source(self, rng):
        ind = "    " * rng.randrange(0, 3)
        r = rng.randrange(5)
        if r == 0:
            return f"{ind}const {self.ident(rng)} = await {self.ident(rng)}({self.ident(rng)}, \"{self.word(rng)}-{self.hexs(rng, 6)}\");"
        if r == 1:
            return f"{ind}if ({self.ident(rng)}.{self.ident(rng)} > {rng.randrange(10 ** rng.randrange(1, 7))}) return {self.ident(rng)};"
        if r == 2:
            return f"{ind}// {' '.join(self.word(rng) for _ in range(rng.randrange(4, 10)))}"
        if r == 3:
            return f"{ind}import {{ {self.ident(rng)}, {self.ident(rng)} }} from './{self.ident(rng)}';"
        return f"{ind}fn {self.ident(rng)}(&self, {self.word(rng)}: {self.ident(rng).capitalize()}) -> Result<{self.ident(rng).capitalize()}> {{"

    def git_log(self, rng):
        return f"commit {self.hexs(rng, 40)} {self.word(rng)}: {' '.join(self.word(rng) for _ in range(rng.randrange(3, 8)))} (#{rng.randrange(1, 9999)})"

    def listing(self, rng):
        return f"-rw-r--r-- 1 dev dev {rng.randrange(10 ** rng.randrange(2, 8))} Oct {rng.randrange(1, 31)} {rng.randrange(24):02d}:{rng.randrange(60):02d} {self.path(rng)}"

    def compiler(self, rng):
        r = rng.randrange(3)
        if r == 0:
            return f"{self.path(rng)}:{rng.randrange(1, 3000)}:{rng.randrange(1, 120)}: error[E{rng.randrange(1, 800):04d}]: cannot find `{self.ident(rng)}` in `{self.ident(rng)}`"
        if r == 1:
            return f"  ✓ {' '.join(self.word(rng) for _ in range(rng.randrange(3, 7)))} ({rng.randrange(1, 900)} ms)"
        return f"    at {self.ident(rng)} ({self.path(rng)}:{rng.randrange(1, 3000)}:{rng.randrange(1, 80)})"

    def json_lines(self, rng):
        return (f'{{"id": "{self.uuid(rng)}", "request_id": "req_{self.hexs(rng, 24)}", "{self.ident(rng)}": '
                f'"{self.word(rng)}", "created_at": "{self.stamp(rng)}", "count": {rng.randrange(10 ** 6)}}}')

    def install(self, rng):
        if rng.randrange(2):
            return f"added {self.ident(rng)}@{rng.randrange(20)}.{rng.randrange(40)}.{rng.randrange(100)} ({rng.randrange(1, 999)} kB) integrity sha512-{self.hexs(rng, 24)}"
        return f"Collecting {self.ident(rng)}=={rng.randrange(10)}.{rng.randrange(30)}.{rng.randrange(30)} (from {self.ident(rng)}>={rng.randrange(5)}.{rng.randrange(10)})"

    def containers(self, rng):
        return (f"pod/{self.ident(rng)}-{self.hexs(rng, 10)}-{self.hexs(rng, 5)}   {rng.randrange(1, 4)}/3   Running   "
                f"{rng.randrange(9)}   {rng.randrange(1, 60)}d   sha256:{self.hexs(rng, 64)}")

    def logs(self, rng):
        return (f"{self.stamp(rng)} {rng.choice(['INFO', 'WARN', 'DEBUG', 'ERROR'])} [{self.word(rng)}-{rng.randrange(64)}] "
                f"{' '.join(self.word(rng) for _ in range(rng.randrange(2, 6)))} {self.hexs(rng, 12)} in {rng.randrange(1, 5000)}ms")

    def output(self, rng, n_lines):
        kind = rng.choice(self.kinds)
        return "\n".join(kind(rng) for _ in range(n_lines))


EDIT_DIRS = ["src", "src/api", "src/auth", "src/ui/components", "lib", "tests", "docs", "scripts"]
EDIT_NAMES = ["index", "auth", "cache", "config", "server", "client", "router", "store", "utils", "session",
              "parser", "render", "schema", "worker", "queue", "metrics", "logger", "token", "billing", "search"]
EDIT_EXTS = [".ts", ".rs", ".py", ".go", ".md", ".json", ".tsx", ".css"]


def file_edit(rng):
    """One edit of a file under the session's cwd: its relative path and old and new text."""
    path = f"{rng.choice(EDIT_DIRS)}/{rng.choice(EDIT_NAMES)}{rng.choice(EDIT_EXTS)}"
    words = lambda n: " ".join(rng.choice(COMMON) for _ in range(n))
    old = "\n".join(words(rng.randrange(2, 8)) for _ in range(rng.randrange(1, 6)))
    new = "\n".join(words(rng.randrange(2, 8)) for _ in range(rng.randrange(1, 12)))
    return {"id": f"call_{rng.getrandbits(48):012x}", "path": path, "old": old, "new": new}


def patch_text(edit):
    """Codex's apply_patch envelope for one edit."""
    body = "".join(f"-{l}\n" for l in edit["old"].split("\n")) + "".join(f"+{l}\n" for l in edit["new"].split("\n"))
    return f"*** Begin Patch\n*** Update File: {edit['path']}\n@@\n{body}*** End Patch\n"


class Conversation:
    """One coding session: prompts, thinking, tool calls with outputs, answers and usage."""

    real_output = None  # a RealOutput when tool outputs have a real vocabulary
    file_edits = False  # --file-edits: each turn also edits a file, in the agent's own edit tool

    def __init__(self, rng, agent, index, scale, output_scale=None):
        self.rng = rng
        self.agent = agent
        # Shift topics per agent so each agent's sessions talk about different things.
        self.topic = TOPICS[(index + AGENTS.index(agent) * 3) % len(TOPICS)]
        self.uuid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        self.model = rng.choice(MODELS[agent])
        self.cwd = "/home/dev/src/" + rng.choice(["shop", "api", "infra", "docs", "agent-mux"])
        self.start = BASE_TIME + timedelta(minutes=rng.randrange(0, 60 * 24 * 50), seconds=rng.randrange(60))
        # One session in ten runs past midnight UTC: it starts 1 to 5 minutes before a midnight
        # and its second turn comes after it, so its usage falls on two days.
        midnight = None
        if index % 10 == 5:
            midnight = self.start.replace(hour=0, minute=0, second=0) + timedelta(days=1)
            self.start = midnight - timedelta(seconds=rng.randrange(60, 300))
        self.title = self.topic[1][:60]
        n_turns = 1 + rng.randrange(2) + (scale // 4 if scale > 1 else 0)
        if midnight:
            n_turns = max(n_turns, 2)
        self.turns = []
        t = self.start
        for k in range(n_turns):
            if k == 1 and midnight:
                t = max(t, midnight) + timedelta(seconds=rng.randrange(30, 600))
            key, prompt, answer, (cmd, out) = self.topic
            if k > 0:
                prompt = rng.choice(["Now run the tests again.", "Also check the logs for errors.",
                                     "Can you explain that change?", "Commit it with a good message."])
            n_lines = rng.randrange(1, 6) * max(1, scale if output_scale is None else output_scale)
            if Conversation.real_output:
                extra = Conversation.real_output.output(rng, n_lines)
            else:
                extra = "\n".join(f"[{i:05d}] {out.splitlines()[0]} detail {rng.randrange(10**6)}"
                                  for i in range(n_lines))
            turn = {
                "prompt": prompt,
                "prompt_at": t,
                "thinking": f"The user asks about {key}. I should look at the evidence first.",
                "tool": {"id": f"call_{rng.getrandbits(48):012x}", "cmd": cmd, "output": out + "\n" + extra},
                "answer": answer if k == 0 else f"Done: {key} step {k + 1} checked, nothing else failing.",
                "usage": {
                    "input": rng.randrange(20, 4000), "output": rng.randrange(50, 1500),
                    "cache_read": rng.randrange(0, 30000), "cache_write": rng.randrange(0, 9000),
                    "reasoning": rng.randrange(0, 400),
                },
            }
            t += timedelta(seconds=rng.randrange(5, 90))
            turn["tool_at"] = t
            t += timedelta(seconds=rng.randrange(1, 20))
            turn["answer_at"] = t
            t += timedelta(seconds=rng.randrange(30, 600))
            self.turns.append(turn)
        self.end = self.turns[-1]["answer_at"]
        if Conversation.file_edits:
            # A stream of its own, seeded by the session: without --file-edits every file is as before.
            erng = random.Random(f"edits:{self.uuid}")
            for turn in self.turns:
                turn["edit"] = file_edit(erng)

    def cost(self, turn):
        u = turn["usage"]
        return round((u["input"] * 3 + u["output"] * 15 + u["cache_read"] * 0.3 + u["cache_write"] * 3.75) / 1e6, 6)


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_lines(path, records):
    write_text(path, "".join(dumps(r) + "\n" for r in records))


def slug_dash(path):
    return "".join(c if c.isalnum() else "-" for c in path)


def set_mtime(path, t):
    os.utime(path, (t.timestamp(), t.timestamp()))


# --- JSONL agents -------------------------------------------------------------------------------

def write_claude(home, c):
    sid = c.uuid
    base = {"isSidechain": False, "userType": "external", "entrypoint": "cli", "cwd": c.cwd,
            "sessionId": sid, "version": "2.1.197", "gitBranch": "main"}
    lines, parent = [], None

    def entry(kind, t, **kw):
        nonlocal parent
        u = str(uuid.UUID(int=c.rng.getrandbits(128), version=4))
        rec = {"parentUuid": parent, **base, "type": kind, "uuid": u, "timestamp": iso(t), **kw}
        parent = u
        lines.append(rec)
        return rec

    for turn in c.turns:
        entry("user", turn["prompt_at"], message={"role": "user", "content": turn["prompt"]},
              promptId=str(uuid.UUID(int=c.rng.getrandbits(128), version=4)), permissionMode="default")
        u = turn["usage"]
        usage = {"input_tokens": u["input"], "cache_creation_input_tokens": u["cache_write"],
                 "cache_read_input_tokens": u["cache_read"], "output_tokens": u["output"],
                 "cache_creation": {"ephemeral_5m_input_tokens": u["cache_write"], "ephemeral_1h_input_tokens": 0},
                 "service_tier": "standard"}
        msg_id = f"msg_{c.rng.getrandbits(96):024x}"
        req_id = f"req_{c.rng.getrandbits(96):024x}"
        blocks = [{"type": "thinking", "thinking": turn["thinking"], "signature": "sig"},
                  {"type": "text", "text": "Let me check."},
                  {"type": "tool_use", "id": turn["tool"]["id"], "name": "Bash",
                   "input": {"command": turn["tool"]["cmd"], "description": "Inspect"}}]
        ed = turn.get("edit")
        if ed:
            blocks.append({"type": "tool_use", "id": ed["id"], "name": "Edit",
                           "input": {"file_path": f"{c.cwd}/{ed['path']}", "old_string": ed["old"],
                                     "new_string": ed["new"]}})
        for b in blocks:  # one line per content block, usage repeated (real behaviour)
            entry("assistant", turn["prompt_at"] + timedelta(seconds=2), requestId=req_id,
                  message={"model": c.model, "id": msg_id, "type": "message", "role": "assistant",
                           "content": [b], "stop_reason": "tool_use", "stop_sequence": None, "usage": usage})
        entry("user", turn["tool_at"], message={"role": "user", "content": [
            {"tool_use_id": turn["tool"]["id"], "type": "tool_result", "content": turn["tool"]["output"],
             "is_error": False}]},
              toolUseResult={"stdout": turn["tool"]["output"], "stderr": "", "interrupted": False,
                             "isImage": False})
        if ed:
            entry("user", turn["tool_at"], message={"role": "user", "content": [
                {"tool_use_id": ed["id"], "type": "tool_result",
                 "content": f"The file {c.cwd}/{ed['path']} has been updated.", "is_error": False}]})
        entry("assistant", turn["answer_at"], requestId=f"req_{c.rng.getrandbits(96):024x}",
              message={"model": c.model, "id": f"msg_{c.rng.getrandbits(96):024x}", "type": "message",
                       "role": "assistant", "content": [{"type": "text", "text": turn["answer"]}],
                       "stop_reason": "end_turn", "stop_sequence": None,
                       "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": u["cache_read"], "output_tokens": 60,
                                 "service_tier": "standard"}})
    lines.append({"type": "ai-title", "sessionId": sid, "aiTitle": AI_TITLES[c.topic[0]]})
    lines.append({"type": "last-prompt", "lastPrompt": c.turns[-1]["prompt"], "leafUuid": parent, "sessionId": sid})
    path = os.path.join(home, ".claude", "projects", slug_dash(c.cwd), f"{sid}.jsonl")
    write_lines(path, lines)
    set_mtime(path, c.end)
    return lines


def claude_usage(rng, scale=1):
    return {"input_tokens": rng.randrange(5, 400), "cache_creation_input_tokens": rng.randrange(0, 3000),
            "cache_read_input_tokens": rng.randrange(0, 20000), "output_tokens": rng.randrange(20, 800) * scale,
            "service_tier": "standard"}


def write_claude_subagent(home, c, rng):
    """A Task subagent's transcript beside the session (`<id>/subagents/agent-<id>.jsonl`), as
    Claude Code 2.x writes it: sidechain lines under the parent's sessionId, on another model."""
    agent_id = f"a{rng.getrandbits(64):016x}"
    turn = c.turns[0]
    t = turn["prompt_at"] + timedelta(seconds=3)
    base = {"isSidechain": True, "userType": "external", "cwd": c.cwd, "sessionId": c.uuid,
            "version": "2.1.197", "gitBranch": "main", "agentId": agent_id}
    lines, parent = [], None
    for k in range(2):
        u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines.append({"parentUuid": parent, **base, "type": "user", "uuid": u, "timestamp": iso(t),
                      "message": {"role": "user", "content": "Search the repository for the failing call."}})
        parent = u
        t += timedelta(seconds=rng.randrange(2, 40))
        u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines.append({"parentUuid": parent, **base, "type": "assistant", "uuid": u, "timestamp": iso(t),
                      "requestId": f"req_{rng.getrandbits(96):024x}",
                      "message": {"model": "claude-haiku-4-5-20251001", "id": f"msg_{rng.getrandbits(96):024x}",
                                  "type": "message", "role": "assistant",
                                  "content": [{"type": "text", "text": f"Found it in step {k + 1}."}],
                                  "stop_reason": "end_turn", "usage": claude_usage(rng)}})
        parent = u
    d = os.path.join(home, ".claude", "projects", slug_dash(c.cwd), c.uuid, "subagents")
    write_lines(os.path.join(d, f"agent-{agent_id}.jsonl"), lines)
    with open(os.path.join(d, f"agent-{agent_id}.meta.json"), "w") as f:
        f.write(dumps({"agentType": "general-purpose"}))


def write_claude_resumed(home, c, parent_lines, rng):
    """`claude --resume` as older versions wrote it: a new file that replays the parent's lines
    (under the parent's sessionId, same message and request ids) before its own turn, hours later."""
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    t = c.end + timedelta(minutes=rng.randrange(30, 60 * 20))
    base = {"isSidechain": False, "userType": "external", "entrypoint": "cli", "cwd": c.cwd,
            "sessionId": sid, "version": "2.1.197", "gitBranch": "main"}
    replay = [l for l in parent_lines if l.get("type") in ("user", "assistant")]
    parent = replay[-1]["uuid"]
    lines = list(replay)
    u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    lines.append({"parentUuid": parent, **base, "type": "user", "uuid": u, "timestamp": iso(t),
                  "message": {"role": "user", "content": "Pick this up again: is the fix still holding?"}})
    t += timedelta(seconds=rng.randrange(2, 30))
    lines.append({"parentUuid": u, **base, "type": "assistant", "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                  "timestamp": iso(t), "requestId": f"req_{rng.getrandbits(96):024x}",
                  "message": {"model": c.model, "id": f"msg_{rng.getrandbits(96):024x}", "type": "message",
                              "role": "assistant", "content": [{"type": "text", "text": "Yes, the tests pass."}],
                              "stop_reason": "end_turn", "usage": claude_usage(rng)}})
    path = os.path.join(home, ".claude", "projects", slug_dash(c.cwd), f"{sid}.jsonl")
    write_lines(path, lines)
    set_mtime(path, t)


def write_codex(home, c):
    sid = c.uuid
    stamp = c.start.strftime("%Y-%m-%dT%H-%M-%S")
    lines = []
    ordinal = 0

    def line(t, kind, payload):
        nonlocal ordinal
        lines.append({"timestamp": iso(t), "ordinal": ordinal, "type": kind, "payload": payload})
        ordinal += 1

    line(c.start, "session_meta", {"session_id": sid, "id": sid, "timestamp": iso(c.start), "cwd": c.cwd,
                                    "originator": "codex_cli_rs", "cli_version": "0.169.0", "source": "cli",
                                    "thread_source": "user", "model_provider": "openai",
                                    "base_instructions": {"text": "You are Codex, a coding agent."}})
    line(c.start, "response_item", {"type": "message", "role": "developer",
                                     "content": [{"type": "input_text", "text": "<permissions instructions>"}]})
    line(c.start, "response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": f"<environment_context>\n  <cwd>{c.cwd}</cwd>\n</environment_context>"}]})
    total = {"input_tokens": 0, "cached_input_tokens": 0, "cache_write_input_tokens": 0, "output_tokens": 0,
             "reasoning_output_tokens": 0, "total_tokens": 0}
    for turn in c.turns:
        line(turn["prompt_at"], "turn_context", {"turn_id": str(uuid.UUID(int=c.rng.getrandbits(128), version=4)),
                                                 "cwd": c.cwd, "model": c.model, "effort": "medium",
                                                 "summary": "auto", "approval_policy": "on-request"})
        line(turn["prompt_at"], "response_item", {"type": "message", "role": "user",
                                                  "content": [{"type": "input_text", "text": turn["prompt"]}]})
        line(turn["prompt_at"], "event_msg", {"type": "user_message", "message": turn["prompt"], "images": []})
        line(turn["prompt_at"], "response_item", {"type": "reasoning", "summary": [
            {"type": "summary_text", "text": turn["thinking"]}], "content": None, "encrypted_content": "gAAAA"})
        line(turn["tool_at"], "response_item", {"type": "function_call", "name": "exec_command",
                                                "arguments": dumps({"cmd": turn["tool"]["cmd"]}),
                                                "call_id": turn["tool"]["id"]})
        line(turn["tool_at"], "response_item", {"type": "function_call_output", "call_id": turn["tool"]["id"],
                                                "output": "Process exited with code 0\nOutput:\n" + turn["tool"]["output"]})
        ed = turn.get("edit")
        if ed:
            line(turn["tool_at"], "response_item", {"type": "custom_tool_call", "status": "completed",
                                                    "call_id": ed["id"], "name": "apply_patch",
                                                    "input": patch_text(ed)})
            line(turn["tool_at"], "response_item", {"type": "custom_tool_call_output", "call_id": ed["id"],
                                                    "output": f"Success. Updated the following files:\nM {ed['path']}\n"})
        line(turn["answer_at"], "response_item", {"type": "message", "role": "assistant",
                                                  "content": [{"type": "output_text", "text": turn["answer"]}]})
        u = turn["usage"]
        last = {"input_tokens": u["input"] + u["cache_read"], "cached_input_tokens": u["cache_read"],
                "cache_write_input_tokens": 0, "output_tokens": u["output"] + u["reasoning"],
                "reasoning_output_tokens": u["reasoning"], "total_tokens": 0}
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for k in total:
            total[k] += last[k]
        info = {"total_token_usage": dict(total), "last_token_usage": last, "model_context_window": 258400}
        line(turn["answer_at"], "event_msg", {"type": "token_count", "info": info, "rate_limits": None})
        # Codex re-emits an unchanged total on rate-limit refreshes: readers must not count it twice.
        line(turn["answer_at"], "event_msg", {"type": "token_count", "info": info, "rate_limits": {"primary": None}})
        line(turn["answer_at"], "event_msg", {"type": "task_complete", "last_agent_message": turn["answer"]})
    d = c.start
    path = os.path.join(home, ".codex", "sessions", f"{d:%Y}", f"{d:%m}", f"{d:%d}", f"rollout-{stamp}-{sid}.jsonl")
    write_lines(path, lines)
    set_mtime(path, c.end)


def write_gemini(home, c):
    sid = c.uuid
    slug = os.path.basename(c.cwd)
    project_hash = hashlib.sha256(c.cwd.encode()).hexdigest()
    lines = [{"sessionId": sid, "projectHash": project_hash, "startTime": iso(c.start),
              "lastUpdated": iso(c.start), "kind": "main"}]
    for k, turn in enumerate(c.turns):
        lines.append({"id": f"u{k}", "timestamp": iso(turn["prompt_at"]), "type": "user",
                      "content": [{"text": turn["prompt"]}]})
        u = turn["usage"]
        tokens = {"input": u["input"] + u["cache_read"], "output": u["output"], "cached": u["cache_read"],
                  "thoughts": u["reasoning"], "tool": 0}
        tokens["total"] = tokens["input"] + tokens["output"] + tokens["thoughts"]
        first = {"id": f"g{k}", "timestamp": iso(turn["tool_at"]), "type": "gemini", "content": "",
                 "thoughts": [{"subject": "Plan", "description": turn["thinking"], "timestamp": iso(turn["prompt_at"])}],
                 "tokens": tokens, "model": c.model}
        lines.append(first)
        # Upsert: the same id again once the tool call ran, then the answer (last write wins).
        call = {"id": turn["tool"]["id"], "name": "run_shell_command", "args": {"command": turn["tool"]["cmd"]},
                "result": [{"functionResponse": {"id": turn["tool"]["id"], "name": "run_shell_command",
                                                 "response": {"output": turn["tool"]["output"]}}}],
                "status": "success", "timestamp": iso(turn["tool_at"]), "displayName": "Shell"}
        calls = [call]
        ed = turn.get("edit")
        if ed:
            calls.append({"id": ed["id"], "name": "replace",
                          "args": {"file_path": f"{c.cwd}/{ed['path']}", "old_string": ed["old"], "new_string": ed["new"]},
                          "result": [{"functionResponse": {"id": ed["id"], "name": "replace",
                                                           "response": {"output": f"Successfully modified file: {c.cwd}/{ed['path']}"}}}],
                          "status": "success", "timestamp": iso(turn["tool_at"]), "displayName": "Edit"})
        lines.append({**first, "toolCalls": calls})
        lines.append({**first, "content": turn["answer"], "timestamp": iso(turn["answer_at"]), "toolCalls": calls})
        lines.append({"$set": {"lastUpdated": iso(turn["answer_at"])}})
    lines.append({"$set": {"summary": c.title}})
    chats = os.path.join(home, ".gemini", "tmp", slug, "chats")
    path = os.path.join(chats, f"session-{c.start:%Y-%m-%dT%H-%M}-{sid[:8]}.jsonl")
    write_lines(path, lines)
    set_mtime(path, c.end)
    write_text(os.path.join(home, ".gemini", "tmp", slug, ".project_root"), c.cwd)


def write_copilot(home, c):
    sid = c.uuid
    events, parent = [], None

    def ev(kind, t, data, **kw):
        nonlocal parent
        eid = str(uuid.UUID(int=c.rng.getrandbits(128), version=4))
        events.append({"type": kind, "data": data, "id": eid, "timestamp": iso(t), "parentId": parent, **kw})
        parent = eid

    ev("session.start", c.start, {"sessionId": sid, "version": 1, "producer": "copilot-agent",
                                  "copilotVersion": "1.0.68", "startTime": iso(c.start),
                                  "context": {"cwd": c.cwd, "branch": "main"}})
    ev("session.model_change", c.start, {"newModel": c.model})
    metrics = {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 0, "cacheWriteTokens": 0}
    for k, turn in enumerate(c.turns):
        ev("user.message", turn["prompt_at"], {"content": turn["prompt"], "transformedContent": turn["prompt"],
                                               "attachments": [], "interactionId": f"int-{k}"})
        ev("assistant.turn_start", turn["prompt_at"], {"turnId": str(k)})
        tc = turn["tool"]
        ev("assistant.message", turn["prompt_at"], {"messageId": f"msg-{k}-a", "content": "", "toolRequests": [
            {"toolCallId": tc["id"], "name": "bash", "arguments": {"command": tc["cmd"]}, "type": "function"}],
            "reasoningText": turn["thinking"], "outputTokens": 40, "model": c.model})
        ev("tool.execution_start", turn["prompt_at"], {"toolCallId": tc["id"], "toolName": "bash",
                                                       "arguments": {"command": tc["cmd"]}})
        ev("tool.execution_complete", turn["tool_at"], {"toolCallId": tc["id"], "success": True,
                                                        "result": {"content": tc["output"]}})
        ev("assistant.message", turn["answer_at"], {"messageId": f"msg-{k}-b", "content": turn["answer"],
                                                    "toolRequests": [], "outputTokens": turn["usage"]["output"],
                                                    "model": c.model})
        ev("assistant.turn_end", turn["answer_at"], {"turnId": str(k)})
        u = turn["usage"]
        # Copilot counts the whole prompt in inputTokens, cache reads and writes included.
        metrics["inputTokens"] += u["input"] + u["cache_read"] + u["cache_write"]
        metrics["outputTokens"] += u["output"] + 40
        metrics["cacheReadTokens"] += u["cache_read"]
        metrics["cacheWriteTokens"] += u["cache_write"]
    ev("session.shutdown", c.end, {"shutdownType": "routine", "totalPremiumRequests": len(c.turns),
                                   "modelMetrics": {c.model: {"requests": {"count": len(c.turns) * 2, "cost": 1},
                                                              "usage": metrics}}, "currentModel": c.model})
    d = os.path.join(home, ".copilot", "session-state", sid)
    write_lines(os.path.join(d, "events.jsonl"), events)
    write_text(os.path.join(d, "workspace.yaml"),
               f"id: {sid}\ncwd: {c.cwd}\nbranch: main\nname: {json.dumps(c.title, ensure_ascii=False)}\n"
               f"user_named: false\ncreated_at: {iso(c.start)}\nupdated_at: {iso(c.end)}\n")
    set_mtime(os.path.join(d, "events.jsonl"), c.end)


def pi_entries(c, id_len, model_change):
    """Pi-family tree entries (pi, omp, openclaw): id/parentId chain with message entries."""
    entries, parent = [], None

    def entry(kind, t, **kw):
        nonlocal parent
        eid = f"{c.rng.getrandbits(32):08x}" if id_len == 8 else str(uuid.UUID(int=c.rng.getrandbits(128), version=4))
        entries.append({"type": kind, "id": eid, "parentId": parent, "timestamp": iso(t), **kw})
        parent = eid

    entry("model_change", c.start, **model_change)
    provider = "anthropic" if "claude" in c.model else "openai"
    for turn in c.turns:
        entry("message", turn["prompt_at"], message={"role": "user", "content": [{"type": "text", "text": turn["prompt"]}],
                                                     "timestamp": ms(turn["prompt_at"])})
        u = turn["usage"]
        cost = c.cost(turn)
        usage = {"input": u["input"], "output": u["output"], "cacheRead": u["cache_read"],
                 "cacheWrite": u["cache_write"], "totalTokens": u["input"] + u["output"] + u["cache_read"] + u["cache_write"],
                 "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}}
        tc = turn["tool"]
        ed = turn.get("edit")
        edits = [{"type": "toolCall", "id": ed["id"], "name": "edit",
                  "arguments": {"path": ed["path"], "oldText": ed["old"], "newText": ed["new"]}}] if ed else []
        entry("message", turn["prompt_at"], message={
            "role": "assistant", "content": [{"type": "thinking", "thinking": turn["thinking"]},
                                             {"type": "toolCall", "id": tc["id"], "name": "bash",
                                              "arguments": {"command": tc["cmd"]}}] + edits,
            "api": "anthropic-messages", "provider": provider, "model": c.model, "usage": usage,
            "stopReason": "toolUse", "timestamp": ms(turn["prompt_at"])})
        entry("message", turn["tool_at"], message={"role": "toolResult", "toolCallId": tc["id"], "toolName": "bash",
                                                   "content": [{"type": "text", "text": tc["output"]}],
                                                   "isError": False, "timestamp": ms(turn["tool_at"])})
        if ed:
            entry("message", turn["tool_at"], message={"role": "toolResult", "toolCallId": ed["id"], "toolName": "edit",
                                                       "content": [{"type": "text", "text": f"Edited {ed['path']}"}],
                                                       "isError": False, "timestamp": ms(turn["tool_at"])})
        zero = {"input": 10, "output": 40, "cacheRead": u["cache_read"], "cacheWrite": 0, "totalTokens": 50 + u["cache_read"],
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.0006}}
        entry("message", turn["answer_at"], message={"role": "assistant", "content": [{"type": "text", "text": turn["answer"]}],
                                                     "api": "anthropic-messages", "provider": provider, "model": c.model,
                                                     "usage": zero, "stopReason": "stop", "timestamp": ms(turn["answer_at"])})
    return entries


def write_pi(home, c):
    header = {"type": "session", "version": 3, "id": c.uuid, "timestamp": iso(c.start), "cwd": c.cwd}
    provider = "anthropic" if "claude" in c.model else "openai"
    entries = pi_entries(c, 8, {"provider": provider, "modelId": c.model})
    entries.append({"type": "session_info", "id": f"{c.rng.getrandbits(32):08x}", "parentId": entries[-1]["id"],
                    "timestamp": iso(c.end), "name": c.title})
    folder = "--" + c.cwd.lstrip("/").replace("/", "-") + "--"
    name = iso(c.start).replace(":", "-").replace(".", "-") + "_" + c.uuid + ".jsonl"
    path = os.path.join(home, ".pi", "agent", "sessions", folder, name)
    write_lines(path, [header] + entries)
    set_mtime(path, c.end)


def write_omp(home, c):
    title = {"type": "title", "v": 1, "title": c.title, "source": "auto", "updatedAt": iso(c.start), "pad": ""}
    raw = dumps(title)
    pad = 255 - len(raw.encode("utf-8"))  # the slot is 256 bytes including the newline
    title["pad"] = " " * max(0, pad)
    header = {"type": "session", "version": 3, "id": c.uuid, "timestamp": iso(c.start), "cwd": c.cwd,
              "title": c.title, "titleSource": "auto"}
    provider = "anthropic" if "claude" in c.model else "kimi-code"
    entries = pi_entries(c, 8, {"model": f"{provider}/{c.model}", "role": "default", "resolvedModelIsFallback": False})
    folder = "-" + os.path.relpath(c.cwd, "/home/dev").replace("/", "-")
    name = iso(c.start).replace(":", "-").replace(".", "-") + "_" + c.uuid + ".jsonl"
    path = os.path.join(home, ".omp", "agent", "sessions", folder, name)
    write_lines(path, [title, header] + entries)
    set_mtime(path, c.end)


# --- SQLite agents ------------------------------------------------------------------------------

def apply_schema(conn, agent):
    """Create `agent`'s tables from scripts/schema/<agent>.sql."""
    with open(os.path.join(SCHEMA_DIR, agent + ".sql"), encoding="utf-8") as f:
        conn.executescript(f.read())


def new_db(path, agent):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")  # as the agents run them: the file header says WAL
    apply_schema(conn, agent)
    return conn


def write_cursor(home, c):
    """cursor-agent's chat store: blobs (JSON messages, content-addressed) + hex-encoded meta."""
    ws = hashlib.md5(c.cwd.encode()).hexdigest()
    path = os.path.join(home, ".cursor", "chats", ws, c.uuid, "store.db")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    root = None
    for turn in c.turns:
        tc = turn["tool"]
        msgs = [
            {"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{turn['prompt']}\n</user_query>"}],
             "createdAt": ms(turn["prompt_at"])},
            {"role": "assistant", "content": [{"type": "reasoning", "text": turn["thinking"]},
                                              {"type": "tool-call", "toolCallId": tc["id"], "toolName": "Shell",
                                               "args": {"command": tc["cmd"]}}],
             "createdAt": ms(turn["prompt_at"]), "providerOptions": {"cursor": {"modelName": c.model}}},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": tc["id"], "toolName": "Shell",
                                          "result": tc["output"], "isError": False}], "createdAt": ms(turn["tool_at"])},
            {"role": "assistant", "content": [{"type": "text", "text": turn["answer"]}],
             "createdAt": ms(turn["answer_at"]), "providerOptions": {"cursor": {"modelName": c.model}}},
        ]
        for m in msgs:
            data = dumps(m).encode("utf-8")
            bid = hashlib.sha256(data).hexdigest()
            conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (bid, data))
            root = bid
        # Real stores interleave protobuf turn-graph nodes; readers must skip them.
        pb = bytes([0x0A, 0x20]) + bytes(c.rng.getrandbits(8) for _ in range(32))
        conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (hashlib.sha256(pb).hexdigest(), pb))
    meta = {"agentId": c.uuid, "name": c.title, "mode": "default", "createdAt": ms(c.start),
            "lastUsedModel": c.model, "latestRootBlobId": root, "workspacePath": c.cwd}
    conn.execute("INSERT INTO meta VALUES ('0', ?)", (dumps(meta).encode().hex(),))
    conn.commit()
    conn.close()
    set_mtime(path, c.end)


def write_opencode(conn, c, ids):
    sid = ids.session()
    u_total = {"input": 0, "output": 0, "reasoning": 0, "read": 0, "write": 0, "cost": 0.0}
    conn.execute("INSERT OR IGNORE INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) "
                 "VALUES ('global', '/', NULL, NULL, ?, ?, '[]')", (ms(BASE_TIME), ms(BASE_TIME)))
    for turn in c.turns:
        uid, aid, a2 = ids.message(), ids.message(), ids.message()
        conn.execute("INSERT INTO message VALUES (?,?,?,?,?)", (uid, sid, ms(turn["prompt_at"]), ms(turn["prompt_at"]), dumps({
            "role": "user", "time": {"created": ms(turn["prompt_at"])}, "agent": "build",
            "model": {"providerID": "anthropic", "modelID": c.model}})))
        conn.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (ids.part(), uid, sid, ms(turn["prompt_at"]), ms(turn["prompt_at"]),
                                                               dumps({"type": "text", "text": turn["prompt"]})))
        u = turn["usage"]
        cost = c.cost(turn)
        tokens = {"total": u["input"] + u["output"] + u["reasoning"] + u["cache_read"] + u["cache_write"],
                  "input": u["input"], "output": u["output"], "reasoning": u["reasoning"],
                  "cache": {"read": u["cache_read"], "write": u["cache_write"]}}
        conn.execute("INSERT INTO message VALUES (?,?,?,?,?)", (aid, sid, ms(turn["prompt_at"]) + 1, ms(turn["tool_at"]), dumps({
            "role": "assistant", "parentID": uid, "mode": "build", "agent": "build", "path": {"cwd": c.cwd, "root": c.cwd},
            "cost": cost, "tokens": tokens, "modelID": c.model, "providerID": "anthropic",
            "time": {"created": ms(turn["prompt_at"]) + 1, "completed": ms(turn["tool_at"])}, "finish": "tool-calls"})))
        tc = turn["tool"]
        for data in ({"type": "step-start", "snapshot": "f12e27e9"},
                     {"type": "reasoning", "text": turn["thinking"], "time": {"start": ms(turn["prompt_at"]), "end": ms(turn["prompt_at"])}},
                     {"type": "tool", "tool": "bash", "callID": tc["id"], "state": {
                         "status": "completed", "input": {"command": tc["cmd"]}, "output": tc["output"],
                         "title": tc["cmd"], "metadata": {"exit": 0}, "time": {"start": ms(turn["prompt_at"]), "end": ms(turn["tool_at"])}}},
                     {"type": "step-finish", "reason": "tool-calls", "snapshot": "f12e27e9", "tokens": tokens, "cost": cost}):
            conn.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (ids.part(), aid, sid, ms(turn["tool_at"]), ms(turn["tool_at"]), dumps(data)))
        small = {"total": 50, "input": 10, "output": 40, "reasoning": 0, "cache": {"read": 0, "write": 0}}
        conn.execute("INSERT INTO message VALUES (?,?,?,?,?)", (a2, sid, ms(turn["answer_at"]), ms(turn["answer_at"]), dumps({
            "role": "assistant", "parentID": uid, "mode": "build", "agent": "build", "path": {"cwd": c.cwd, "root": c.cwd},
            "cost": 0.0006, "tokens": small, "modelID": c.model, "providerID": "anthropic",
            "time": {"created": ms(turn["answer_at"]), "completed": ms(turn["answer_at"])}, "finish": "stop"})))
        conn.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (ids.part(), a2, sid, ms(turn["answer_at"]), ms(turn["answer_at"]),
                                                               dumps({"type": "text", "text": turn["answer"]})))
        for k, v in (("input", u["input"] + 10), ("output", u["output"] + 40), ("reasoning", u["reasoning"]),
                     ("read", u["cache_read"]), ("write", u["cache_write"]), ("cost", cost + 0.0006)):
            u_total[k] += v
    conn.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, cost, tokens_input, tokens_output, "
        "tokens_reasoning, tokens_cache_read, tokens_cache_write, model, time_created, time_updated) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (sid, "global", f"slug-{sid[-6:]}", c.cwd, c.title, "1.18.33", u_total["cost"], u_total["input"],
         u_total["output"], u_total["reasoning"], u_total["read"], u_total["write"],
         dumps({"id": c.model, "providerID": "anthropic"}), ms(c.start), ms(c.end)))


class OpenCodeIds:
    """`ses_` ids sort descending (bit-inverted time), `msg_`/`prt_` ascending, as OpenCode makes them."""

    def __init__(self, rng):
        self.rng, self.n = rng, 0

    def _id(self, prefix, invert):
        self.n += 1
        ts = (0xFFFFFFFFFFFF - self.n) if invert else self.n
        tail = "".join(self.rng.choice("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(14))
        return f"{prefix}_{ts:012x}{tail}"

    def session(self):
        return self._id("ses", True)

    def message(self):
        return self._id("msg", False)

    def part(self):
        return self._id("prt", False)


def write_openclaw(conn, c, compress):
    sid = c.uuid
    key = f"agent:main:explicit:{sid}"
    header = {"type": "session", "version": 4, "id": sid, "timestamp": iso(c.start), "cwd": "/home/dev/.openclaw/workspace"}
    entries = pi_entries(c, 36, {"provider": "anthropic", "modelId": c.model})
    usage_in = sum(t["usage"]["input"] + 10 for t in c.turns)
    entry = {"sessionId": sid, "updatedAt": ms(c.end), "sessionStartedAt": ms(c.start), "modelProvider": "anthropic",
             "model": c.model, "agentHarnessId": "openclaw", "inputTokens": usage_in, "outputTokens": 0,
             "estimatedCostUsd": 0}
    conn.execute("INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at, "
                 "last_activity_at, display_name) VALUES (?,?,?,?,?,?,?)",
                 (key, sid, dumps(entry), ms(c.end), ms(c.start), ms(c.end), c.title))
    conn.execute("INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at, "
                 "transcript_updated_at, model_provider, model, agent_harness_id, display_name) "
                 "VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (sid, key, "initial", ms(c.start), ms(c.end), ms(c.end), "anthropic", c.model, "openclaw", c.title))
    for seq, ev in enumerate([header] + entries):
        text = dumps(ev)
        raw = text.encode("utf-8")
        if compress and len(raw) > 2048:
            nav = {"version": 1, "report": {"kind": "canonical"}, "navigation": {}, "reset": {}, "model": {},
                   "modelBytes": len(raw), "modelWithoutCheckpointBytes": len(raw), "withoutCustomDataBytes": len(raw)}
            conn.execute("INSERT INTO transcript_events VALUES (?,?,?,?,?,?,?)",
                         (sid, seq, None, ms(c.start), compress(raw), len(raw), dumps(nav)))
        else:
            conn.execute("INSERT INTO transcript_events VALUES (?,?,?,?,?,?,?)",
                         (sid, seq, text, ms(c.start), None, len(raw), None))
        conn.execute("INSERT INTO transcript_event_identities VALUES (?,?,?,?,?,?,?)",
                     (sid, ev["id"], seq, ev["type"], ev.get("parentId"), None, ms(c.start)))


def write_hermes(conn, c, index, used_titles):
    local = c.start.strftime("%Y%m%d_%H%M%S")
    sid = f"{local}_{c.uuid[:6]}"
    u = {k: sum(t["usage"][k] for t in c.turns) for k in ("input", "output", "cache_read", "cache_write", "reasoning")}
    cost = round(sum(c.cost(t) for t in c.turns), 6)
    n_msgs = 0
    rows = []
    for turn in c.turns:
        tc = turn["tool"]
        calls = [{"id": tc["id"], "call_id": tc["id"], "response_item_id": None, "type": "function",
                  "function": {"name": "terminal", "arguments": dumps({"command": tc["cmd"]})}}]
        rows += [
            ("user", turn["prompt"], None, None, None, turn["prompt_at"], None, None),
            ("assistant", "", None, dumps(calls), None, turn["prompt_at"], "tool_calls", turn["thinking"]),
            ("tool", tc["output"], tc["id"], None, "terminal", turn["tool_at"], None, None),
            ("assistant", turn["answer"], None, None, None, turn["answer_at"], "stop", None),
        ]
    for role, content, tcid, tcalls, tname, t, finish, reasoning in rows:
        conn.execute("INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, "
                     "finish_reason, reasoning) VALUES (?,?,?,?,?,?,?,?,?)",
                     (sid, role, content, tcid, tcalls, tname, t.timestamp(), finish, reasoning))
        n_msgs += 1
    conn.execute(
        "INSERT INTO sessions (id, source, model, parent_session_id, started_at, ended_at, end_reason, message_count, "
        "tool_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cwd, "
        "estimated_cost_usd, cost_status, cost_source, title, api_call_count) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (sid, "cli", c.model, None, c.start.timestamp(), c.end.timestamp(), "cli_close", n_msgs, len(c.turns),
         u["input"], u["output"], u["cache_read"], u["cache_write"], u["reasoning"], c.cwd, cost, "estimated",
         "official_docs_snapshot", hermes_title(c.title, used_titles) if index % 3 else None, len(c.turns) * 2))


def hermes_title(title, used):
    """Hermes keeps titles unique (a unique index on sessions.title); it numbers repeats "t #2"."""
    t, n = title, 1
    while t in used:
        n += 1
        t = f"{title} #{n}"
    used.add(t)
    return t


def zstd_compressor():
    try:
        import zstandard  # optional: OpenClaw stores large events zstd-compressed
        cctx = zstandard.ZstdCompressor(level=3)
        return cctx.compress
    except ImportError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="home directory to write (created; existing agent stores replaced)")
    ap.add_argument("--sessions", type=int, default=10000, help="total sessions across the ten agents")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--scale", type=int, default=30, help="multiplies turns and tool output sizes (1 = small)")
    ap.add_argument("--output-scale", type=int, default=None,
                    help="multiplies tool output sizes only (default: --scale); small values give many short messages")
    ap.add_argument("--agents", default=",".join(AGENTS))
    ap.add_argument("--huge-mb", type=int, default=0, help="also write one Claude session of about this many MB")
    ap.add_argument("--claude-branches", type=int, default=0, metavar="N",
                    help="one Claude session in N also gets a subagent transcript, and another one in N is "
                         "resumed in a new file that replays it (default: none; the rest of the home is unchanged)")
    ap.add_argument("--vocabulary", choices=["topics", "real"], default="topics",
                    help="tool outputs: each topic's line repeated (topics), or a real vocabulary (real)")
    ap.add_argument("--file-edits", action="store_true",
                    help="each turn also edits a file under the session's cwd with the agent's own edit tool "
                         "(Claude Edit, Codex apply_patch, Gemini replace, Pi/omp/OpenClaw edit; the others only "
                         "run their command); drawn from a stream of its own, so the rest is unchanged")
    args = ap.parse_args()
    Conversation.file_edits = args.file_edits
    if args.vocabulary == "real":
        Conversation.real_output = RealOutput(args.seed)

    rng = random.Random(args.seed)
    home = os.path.abspath(args.out)
    agents = [a for a in args.agents.split(",") if a]
    per_agent = {a: args.sessions // len(agents) + (1 if i < args.sessions % len(agents) else 0)
                 for i, a in enumerate(agents)}
    file_writers = {"claude": write_claude, "codex": write_codex, "gemini": write_gemini, "copilot": write_copilot,
                    "cursor": write_cursor, "pi": write_pi, "omp": write_omp}
    for agent in agents:
        convs = [Conversation(rng, agent, i, args.scale, args.output_scale) for i in range(per_agent[agent])]
        if agent in file_writers:
            # Branches draw from a stream of their own: without them every file is as before.
            branch_rng = random.Random(args.seed * 7919 + 1)
            for i, c in enumerate(convs):
                written = file_writers[agent](home, c)
                if agent == "claude" and args.claude_branches:
                    if i % args.claude_branches == 1:
                        write_claude_subagent(home, c, branch_rng)
                    if i % args.claude_branches == 2:
                        write_claude_resumed(home, c, written, branch_rng)
        elif agent == "opencode":
            conn = new_db(os.path.join(home, ".local", "share", "opencode", "opencode.db"), "opencode")
            ids = OpenCodeIds(rng)
            for c in convs:
                write_opencode(conn, c, ids)
            conn.commit()
            conn.close()
        elif agent == "openclaw":
            conn = new_db(os.path.join(home, ".openclaw", "agents", "main", "agent", "openclaw-agent.sqlite"),
                          "openclaw")
            compress = zstd_compressor()
            for c in convs:
                write_openclaw(conn, c, compress)
            conn.commit()
            conn.close()
        elif agent == "hermes":
            conn = new_db(os.path.join(home, ".hermes", "state.db"), "hermes")
            conn.execute("INSERT INTO schema_version VALUES (22)")
            used_titles = set()
            for i, c in enumerate(convs):
                write_hermes(conn, c, i, used_titles)
            conn.commit()
            conn.close()
        print(f"{agent}: {per_agent[agent]} sessions")
    if args.huge_mb:
        # turns grow with scale/4 and each tool output with ~3*scale lines of ~70 bytes
        scale = max(4, int((args.huge_mb * 1e6 / 70 / 0.75) ** 0.5 / 1.15))
        huge = Conversation(rng, "claude", 0, scale)
        huge.uuid = "00000000-0000-4000-8000-000000000200"
        write_claude(home, huge)
        print(f"claude: 1 huge session ({huge.uuid}, scale {scale})")


if __name__ == "__main__":
    main()
