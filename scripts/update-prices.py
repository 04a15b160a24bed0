#!/usr/bin/env python3
"""Refresh crates/sessions/src/cost/prices.json from LiteLLM's price table.

The `litellm` package on PyPI ships `model_prices_and_context_window_backup.json`. This script
downloads the package with pip (registry access only, nothing else is fetched), reads that file
out of the wheel or sdist, keeps chat models of the providers whose models coding agents use, and
writes the few prices the cost engine needs, in USD per million tokens:

  input, output, cacheRead, cacheWrite (5-minute TTL), cacheWrite1h, reasoning (where the model
  bills reasoning apart from output), and tiers: [{above: N, ...}] for prices that apply to every
  token of a request whose prompt is larger than N tokens ("..._above_200k_tokens").

Model names are kept as LiteLLM spells them minus any "provider/" prefix; the Rust side normalises
both these keys and the names agents record (cost/prices.rs), so matching rules live in one place.

Usage: python3 scripts/update-prices.py [litellm-version]
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "sessions", "src", "cost", "prices.json")
MEMBER = "model_prices_and_context_window_backup.json"

# First-party providers first: when two providers list the same model name, the earlier wins.
PROVIDERS = [
    "anthropic",
    "openai",
    "gemini",
    "vertex_ai-language-models",
    "xai",
    "deepseek",
    "mistral",
    "moonshot",
    "zai",
    "dashscope",
    # Older Claude models now appear only under cloud resellers' ids; same list prices.
    "bedrock_converse",
    "bedrock",
    "vertex_ai-anthropic_models",
    "openrouter",
]
# Keep in step with `normalise` in cost/prices.rs (a Rust test checks every key is already normal).
REGIONS = ("us-gov", "us", "eu", "apac", "global", "jp", "au", "ca")
VENDORS = ("anthropic", "amazon", "meta", "mistral", "cohere", "ai21", "openai", "deepseek",
           "qwen", "google", "xai", "moonshot", "moonshotai", "minimax", "zai")
MODES = {"chat", "responses"}
PER_MTOK = 1_000_000

BUCKETS = {
    "input": "input_cost_per_token",
    "output": "output_cost_per_token",
    "cacheRead": "cache_read_input_token_cost",
    "cacheWrite": "cache_creation_input_token_cost",
    "cacheWrite1h": "cache_creation_input_token_cost_above_1hr",
    "reasoning": "output_cost_per_reasoning_token",
}
TIER_RE = re.compile(r"^(.*)_above_(\d+)k_tokens$")


def download(version):
    tmp = tempfile.mkdtemp(prefix="litellm-")
    spec = f"litellm=={version}" if version else "litellm"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, spec],
        check=True,
    )
    (name,) = os.listdir(tmp)
    path = os.path.join(tmp, name)
    ver = re.match(r"litellm-([^-]+?)(?:-|\.tar)", name).group(1)
    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as z:
            member = next(n for n in z.namelist() if n.endswith("litellm/" + MEMBER))
            return ver, json.loads(z.read(member))
    with tarfile.open(path) as t:
        member = next(m for m in t.getmembers() if m.name.endswith("litellm/" + MEMBER))
        return ver, json.load(t.extractfile(member))


def mtok(x):
    # Per-token floats such as 3e-06 become 3.0 per million; round away binary noise.
    return round(float(x) * PER_MTOK, 9)


def table_key(key):
    """The model name without provider path, cloud region/vendor prefixes or version suffixes.
    Returns (name, had_region): regional ids can carry a surcharge, so plain ids win."""
    name = key.rsplit("/", 1)[-1].lower().split("[", 1)[0].strip()
    had_region = False
    head, _, rest = name.partition(".")
    if rest and head in REGIONS:
        name, had_region = rest, True
    head, _, rest = name.partition(".")
    if rest and head in VENDORS:
        name = rest
    name = re.sub(r"-v\d+:\d+$", "", name)
    return name.replace("@", "-"), had_region


def reduce_entry(v):
    if not isinstance(v.get("input_cost_per_token"), (int, float)):
        return None
    if not isinstance(v.get("output_cost_per_token"), (int, float)):
        return None
    out = {}
    for name, field in BUCKETS.items():
        if isinstance(v.get(field), (int, float)):
            out[name] = mtok(v[field])
    tiers = {}
    for field, value in v.items():
        m = TIER_RE.match(field)
        if not m or not isinstance(value, (int, float)):
            continue
        base, above = m.group(1), int(m.group(2)) * 1000
        # "cache_creation_input_token_cost_above_1hr_above_200k_tokens" is the 1h write price tier.
        name = next((n for n, f in BUCKETS.items() if f == base), None)
        if name:
            tiers.setdefault(above, {"above": above})[name] = mtok(value)
    if tiers:
        out["tiers"] = [tiers[k] for k in sorted(tiers)]
    return out


def main():
    version, data = download(sys.argv[1] if len(sys.argv) > 1 else None)
    chosen = {}  # key -> (provider rank, entry)
    for key, v in data.items():
        if not isinstance(v, dict) or v.get("mode") not in MODES:
            continue
        provider = v.get("litellm_provider")
        if provider not in PROVIDERS:
            continue
        entry = reduce_entry(v)
        if entry is None:
            continue
        name, had_region = table_key(key)
        rank = (PROVIDERS.index(provider), had_region)
        if name not in chosen or rank < chosen[name][0]:
            chosen[name] = (rank, entry)
    out = {
        "source": f"litellm {version} (PyPI), litellm/{MEMBER}",
        "litellmVersion": version,
        "generated": datetime.date.today().isoformat(),
        "unit": "USD per million tokens",
        "models": {k: chosen[k][1] for k in sorted(chosen)},
    }
    # One model per line: small, and a refresh shows as a readable diff.
    models = out.pop("models")
    with open(OUT, "w") as f:
        f.write("{\n")
        for k, v in out.items():
            f.write(f"  {json.dumps(k)}: {json.dumps(v)},\n")
        f.write('  "models": {\n')
        lines = [f"    {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in models.items()]
        f.write(",\n".join(lines))
        f.write("\n  }\n}\n")
    print(f"wrote {len(models)} models from litellm {version} to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
