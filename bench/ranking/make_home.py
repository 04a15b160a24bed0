#!/usr/bin/env python3
"""Write a labelled search benchmark: a home of sessions in six agents' real formats, and the
graded relevance of each session for each of 44 queries (qrels.json). See bench/ranking/README.md.

  python3 bench/ranking/make_home.py --out /tmp/rank-home

Sessions are written by scripts/gen_home.py's own writers, so each agent's on-disk format is the
one the readers are tested against. Dates count back from the time of generation, so run the
evaluation soon after (recency is measured from the wall clock at search time).
"""
import argparse
import importlib.util
import json
import os
import random
import uuid
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gen_home", os.path.join(HERE, "..", "..", "scripts", "gen_home.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

AGENTS = {"claude": gen.write_claude, "codex": gen.write_codex, "gemini": gen.write_gemini,
          "copilot": gen.write_copilot, "pi": gen.write_pi, "omp": gen.write_omp}

# A subject: its search word, a second word said with it (for two-word queries), a title, a
# question and an answer about it, a command and a log line that repeats the word.
TOPICS = [
    ("kafka", "consumer", "Kafka consumer offsets",
     "How do I make the kafka consumer commit offsets only after processing a batch?",
     "Turn off enable.auto.commit on the kafka consumer and commit after each batch, so a crash replays it.",
     "docker logs broker-1", "INFO [kafka] broker-1 consumer group orders partition {i} assigned"),
    ("terraform", "state", "Terraform state lock",
     "terraform apply says the state is locked by a run that crashed, how do I recover?",
     "Check nobody else runs terraform, then terraform force-unlock the lock id; the state itself is intact.",
     "terraform plan", "terraform: refreshing state of module.vpc.aws_subnet.private[{i}]"),
    ("webpack", "bundle", "Webpack bundle size",
     "The webpack bundle grew to 4 MB, find what made the bundle so big.",
     "moment locales were pulled in; the webpack IgnorePlugin for locales cut the bundle to 900 kB.",
     "npx webpack --profile --json", "webpack chunk vendors-{i}.js emitted, bundle part {i}"),
    ("nginx", "proxy", "Nginx proxy timeouts",
     "nginx returns 504 from the proxy after 60 seconds on the report endpoint.",
     "Raise proxy_read_timeout for that location in nginx, or make the report asynchronous.",
     "tail -n 300 /var/log/nginx/error.log", "nginx upstream timed out while reading proxy response, request {i}"),
    ("postgres", "index", "Slow postgres query",
     "This postgres query on orders takes 3 seconds, which index would help?",
     "A composite index on (customer_id, created_at) lets postgres skip the sort; it now runs in 4 ms.",
     "psql -c 'EXPLAIN ANALYZE select ...'", "postgres: seq scan on orders, index not used, loop {i}"),
    ("redis", "eviction", "Redis eviction",
     "redis keeps evicting our session keys under load, why?",
     "maxmemory is 256mb with allkeys-lru; the redis eviction removes sessions, switch to volatile-lru and raise it.",
     "redis-cli info stats", "redis evicted_keys:{i} eviction policy allkeys-lru"),
    ("graphql", "resolver", "GraphQL N+1",
     "Our graphql endpoint runs one SQL query per item, the resolver for author is slow.",
     "Batch the author resolver with a DataLoader so graphql issues one query per request.",
     "npm run trace", "graphql resolver Post.author called for item {i}"),
    ("celery", "worker", "Celery worker memory",
     "The celery worker memory grows until the OOM killer stops it.",
     "Set worker_max_tasks_per_child so each celery worker process is recycled after 200 tasks.",
     "celery -A app inspect stats", "celery worker pid {i} rss growing"),
    ("oauth", "token", "OAuth refresh",
     "Users get logged out every hour, the oauth refresh does not seem to happen.",
     "The oauth refresh token was never stored; save it at login and refresh the access token on 401.",
     "grep -n refresh src/auth/*.ts", "oauth token refresh skipped for user {i}"),
    ("prometheus", "alert", "Prometheus alert noise",
     "The prometheus alert for disk usage fires every night and resolves itself.",
     "Add a for: 30m clause to the prometheus alert so the nightly backup spike stops paging.",
     "promtool check rules alerts.yml", "prometheus alert DiskUsageHigh firing instance {i}"),
    ("websocket", "reconnect", "WebSocket reconnect",
     "The dashboard websocket drops every few minutes behind the load balancer and never does a reconnect.",
     "Send websocket pings every 20 seconds and reconnect with backoff; the balancer idles out at 60 s.",
     "wscat -c wss://app/live", "websocket closed code 1006, reconnect attempt {i}"),
    ("pytest", "fixture", "Pytest fixture scope",
     "pytest runs take 10 minutes because the database fixture is rebuilt for every test.",
     "Make the pytest database fixture session-scoped and wrap each test in a transaction that rolls back.",
     "pytest -x --durations=20", "pytest setup of fixture db took 2.1s for test_{i}"),
    ("cron", "schedule", "Cron schedule",
     "The nightly export cron job ran twice yesterday, is the schedule wrong?",
     "Two hosts had the cron entry; keep the schedule on one host or take a lock in the job.",
     "crontab -l", "cron: CMD (export.sh) run {i}"),
    ("ssl", "certificate", "SSL certificate renewal",
     "The ssl certificate expired on the staging host although certbot is installed.",
     "The renewal timer was disabled; enable certbot.timer and reload nginx after each ssl certificate renewal.",
     "openssl s_client -connect staging:443", "ssl certificate check {i}: notAfter passed"),
    ("helm", "chart", "Helm chart values",
     "helm upgrade ignores my values override for the replica count in the chart.",
     "The chart reads replicaCount, not replicas; fix the key and helm upgrade picks it up.",
     "helm template ./chart -f prod.yaml", "helm rendered chart manifest {i}"),
    ("mypy", "typing", "Mypy typing errors",
     "mypy reports 40 typing errors after the upgrade, mostly about Optional.",
     "mypy now has no implicit Optional; I annotated the defaults and the typing errors are gone.",
     "mypy src", "mypy: src/module_{i}.py: error: incompatible default for argument"),
    ("s3", "bucket", "S3 bucket permissions",
     "Uploads to the s3 bucket fail with AccessDenied from the new role.",
     "The bucket policy denied unencrypted puts; add the s3 encryption header or allow the role.",
     "aws s3 cp report.csv s3://reports/", "s3 upload part {i} AccessDenied bucket reports"),
    ("elasticsearch", "mapping", "Elasticsearch mapping",
     "elasticsearch rejects documents after we added the price field, mapping conflict?",
     "The field was mapped as text by dynamic mapping; reindex elasticsearch with price as scaled_float.",
     "curl localhost:9200/products/_mapping", "elasticsearch mapping parse error doc {i}"),
    ("grpc", "deadline", "gRPC deadlines",
     "grpc calls to the pricing service fail with DEADLINE_EXCEEDED under load.",
     "The client deadline was 100 ms; the grpc pricing call needs 300 ms at p99, raise the deadline and add retries.",
     "grpcurl -d '{}' pricing:443 Price/Get", "grpc call {i} status DEADLINE_EXCEEDED"),
    ("vite", "hmr", "Vite HMR",
     "vite hot reload stopped working in docker, every change needs a full restart.",
     "File events do not cross the docker mount; set vite server.watch.usePolling so hmr works again.",
     "npm run dev", "vite hmr update /src/component_{i}.tsx"),
    ("rabbitmq", "queue", "RabbitMQ queue backlog",
     "The rabbitmq queue for emails has 200k messages and keeps growing.",
     "Consumers had prefetch 1 and slow SMTP; raise prefetch and add consumers to drain the rabbitmq queue.",
     "rabbitmqctl list_queues", "rabbitmq queue emails depth {i}000"),
    ("jwt", "signature", "JWT signature",
     "Tokens from the new auth service fail jwt verification with invalid signature.",
     "The service signs jwt with RS256 but we verified with the HS256 secret; use the public key.",
     "node scripts/verify.js", "jwt verify failed: invalid signature for token {i}"),
    ("flaky", "retry", "Flaky checkout test",
     "test_checkout_flow is flaky on CI, it fails one run in five, find out why.",
     "It raced two async writes; the fixture awaits both, so the flaky test no longer needs a retry.",
     "npm test -- --grep checkout", "flaky test checkout_flow attempt {i} retry"),
    ("memory", "leak", "Memory leak in the API",
     "The api process memory grows by 50 MB an hour, is there a leak?",
     "An event listener was added per request and never removed; that memory leak is fixed.",
     "node --inspect api.js", "heap snapshot {i}: memory retained by listeners"),
]

# Chores a session may be about instead: words no query uses.
CHORES = [
    ("Tidy the dashboard", "Please tidy the dashboard cards layout on small screens.",
     "Switched the cards to a responsive grid and removed the fixed widths."),
    ("Release notes", "Write the release notes for version 2.3 from the merged pull requests.",
     "Drafted the changelog with features, fixes and the renamed option."),
    ("Rename a module", "Rename the utils module to helpers and fix the imports.",
     "Renamed it and updated twelve imports; the build passes."),
    ("Run the test suite", "Run the whole test suite and tell me what fails.",
     "Everything passed except one snapshot that I updated."),
    ("Update dependencies", "Update the dependencies to their latest minor versions.",
     "Updated nine packages; the lockfile is regenerated and the build is green."),
]

OR_GROUPS = [("kafka", "rabbitmq", "redis"), ("postgres", "elasticsearch", "redis"),
             ("nginx", "ssl", "websocket"), ("terraform", "helm", "s3"), ("pytest", "mypy", "flaky"),
             ("oauth", "jwt", "ssl"), ("webpack", "vite", "graphql"), ("celery", "cron", "rabbitmq")]


class Conv:
    """What gen_home's writers read from a conversation."""

    def __init__(self, rng, agent, title, turns, end):
        self.rng, self.agent, self.title = rng, agent, title
        self.uuid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        self.model = gen.MODELS[agent][0]
        self.cwd = "/home/dev/src/shop"
        t = end - timedelta(minutes=10 * len(turns))
        self.start = t
        self.turns = []
        for prompt, thinking, cmd, output, answer in turns:
            turn = {"prompt": prompt, "prompt_at": t, "thinking": thinking,
                    "tool": {"id": f"call_{rng.getrandbits(48):012x}", "cmd": cmd, "output": output},
                    "answer": answer,
                    "usage": {"input": 100, "output": 50, "cache_read": 0, "cache_write": 0, "reasoning": 0}}
            turn["tool_at"] = t + timedelta(seconds=30)
            turn["answer_at"] = t + timedelta(seconds=60)
            t += timedelta(minutes=10)
            self.turns.append(turn)
        self.end = self.turns[-1]["answer_at"]

    def cost(self, turn):
        return 0.001


def log(line, n):
    return "\n".join(line.format(i=i) for i in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=22)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    home = os.path.abspath(args.out)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    agents = list(AGENTS)
    sessions = []  # (agent, conv, {topic: grade}, {topic: aboutness}) as written

    def write(title, turns, days_ago, about):
        agent = rng.choice(agents)
        c = Conv(rng, agent, title, turns, now - timedelta(days=days_ago, minutes=rng.randrange(600)))
        AGENTS[agent](home, c)
        sessions.append({"agent": agent, "id": c.uuid, "title": title, "days_ago": days_ago, "about": about})

    def chore(k):
        return CHORES[k % len(CHORES)]

    for k, (word, second, title, prompt, answer, cmd, line) in enumerate(TOPICS):
        think = f"The user asks about {word}. Look at the evidence first."
        quiet = "ok"
        # About it, recent: asked and answered (grade 3).
        write(title, [(prompt, think, cmd, log(line, 3), answer)], rng.randrange(2, 40), {word: "recent"})
        # About it, 14 to 24 months old, saying the word once more than the recent one (grade 2).
        write(title, [(prompt + f" It is the {word} again.", think, cmd, log(line, 3), answer)],
              rng.randrange(420, 730), {word: "old"})
        # About it as a second subject, after a chore (grade 2).
        ct, cp, ca = chore(k)
        write(ct, [(cp, "Plan the chore.", "git status", "nothing to commit", ca),
                   (prompt, think, cmd, log(line, 2), answer)], rng.randrange(5, 120), {word: "second"})
        # A chore whose test log repeats the word (grade 1).
        ct, cp, ca = chore(k + 1)
        write(ct, [(cp, "Plan the chore.", cmd, log(line, rng.randrange(80, 300)), ca)],
              rng.randrange(1, 30), {word: "log"})
        # A chore that mentions the word in passing (grade 1).
        ct, cp, ca = chore(k + 2)
        write(ct, [(cp, "Plan the chore.", "git diff --stat", quiet,
                    ca + f" Unrelated: the {word} {second} dashboard link in the readme is stale.")],
              rng.randrange(1, 30), {word: "passing"})
    # One session comparing the three subjects of each OR group (grade 3 for that group).
    for a, b, c in OR_GROUPS:
        prompt = f"Compare {a}, {b} and {c} for the new service: which do we need?"
        answer = f"We need {a} for now; {b} later; {c} only if the load grows."
        write(f"Choosing between {a}, {b}, {c}", [(prompt, "Weigh the options.", "ls", quiet, answer)],
              rng.randrange(5, 200), {"|".join((a, b, c)): "compare"})

    queries = []
    grade = {"recent": 3, "old": 2, "second": 2, "log": 1, "passing": 1}
    for word, second, *_ in TOPICS:
        grades = {s["id"]: grade[s["about"][word]] for s in sessions if word in s["about"]}
        # a comparison that names the word among others: a mention
        grades.update({s["id"]: 1 for s in sessions
                       if any(word in k.split("|") for k in s["about"] if "|" in k)})
        queries.append({"query": word, "grades": grades})
    for word, second, *_ in TOPICS[:12]:
        # Two words: the passing mention holds both too; a log line holds both for some subjects.
        queries.append({"query": f"{word} {second}", "grades": {s["id"]: grade[s["about"][word]]
                                                                for s in sessions if word in s["about"]}})
    for group in OR_GROUPS:
        key = "|".join(group)
        grades = {}
        for s in sessions:
            if s["about"].get(key) == "compare":
                grades[s["id"]] = 3
            for w in group:
                if w in s["about"]:
                    # about one of the subjects: one grade below the same session for that word
                    grades[s["id"]] = max(grades.get(s["id"], 0), grade[s["about"][w]] - 1)
        queries.append({"query": " OR ".join(group), "grades": grades})
    with open(os.path.join(home, "qrels.json"), "w") as f:
        json.dump({"generated_at": now.isoformat(), "sessions": sessions, "queries": queries}, f, indent=1)
    print(f"{len(sessions)} sessions, {len(queries)} queries -> {home}")


if __name__ == "__main__":
    main()
