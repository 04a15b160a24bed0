#!/usr/bin/env python3
"""Write the hostile fixture of the UI's browser tests: one Claude session, laid out as
scripts/gen_home.py lays out the demo home, whose every text holds markup a page must show as
text: <script>, <img onerror>, javascript: and data: links (Markdown, autolink and raw HTML), an
iframe, an SVG onload. Each payload, if it ran, would set window.__amuxXss. Beside it, a plain
session forked from it (its lines name the parent in `forkedFrom`, as Claude Code's forks do), for
the transcript's lineage links.

  python3 scripts/gen_ui_fixture.py --out __test__/fixtures/ui-hostile

With --long-turns N it writes instead one plain Claude session of N turns (four messages each),
whose transcript the page must load window after window.
"""
import argparse
import json
import os
import random
import shutil

import gen_home

TITLE = "<img src=x onerror=\"window.__amuxXss='title'\"> hostile markup"
PROMPT = ("Show this literally: <script>window.__amuxXss = 'prompt'</script> "
          "and <img src=x onerror=\"window.__amuxXss = 'img'\">")
THINKING = "Thinking about <script>window.__amuxXss = 'thinking'</script> before answering."
ANSWER = "\n".join([
    "**Done.** Read [the docs](https://example.com/docs?a=1&b=2), but never "
    "[click me](javascript:window.__amuxXss='link') nor [this](JaVaScRiPt:window.__amuxXss='case') "
    "nor [data](data:text/html,<script>window.__amuxXss='data'</script>) nor <javascript:window.__amuxXss='auto'>.",
    "",
    "<a href=\"javascript:window.__amuxXss='raw'\">raw link</a> <iframe src=\"https://example.com/\"></iframe>",
    "",
    "```html",
    "<script>window.__amuxXss = 'code'</script>",
    "```",
    "",
    "![pixel](https://example.com/pixel.png)",
])
COMMAND = "echo \"<img src=x onerror=window.__amuxXss='input'>\""
# Long enough that the page cuts it and offers "show all"; the markup comes again at the very end.
OUTPUT = "<script>window.__amuxXss = 'output'</script>\n<svg onload=\"window.__amuxXss='svg'\"></svg>\n" + "".join(
    f"line {i:03d} of a long tool output\n" for i in range(120)) + "<img src=x onerror=\"window.__amuxXss='tail'\">"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="home directory to write (replaced)")
    ap.add_argument("--long-turns", type=int, default=0, help="write a long plain session of this many turns instead")
    args = ap.parse_args()
    home = os.path.abspath(args.out)
    shutil.rmtree(home, ignore_errors=True)
    if args.long_turns:
        # Conversation makes 1-2 + scale/4 turns; index 1 talks about a flaky test.
        c = gen_home.Conversation(random.Random(43), "claude", 1, 4 * (args.long_turns - 1), output_scale=1)
        gen_home.write_claude(home, c)
        print(f"claude: 1 long session ({c.uuid}, {len(c.turns)} turns)")
        return
    c = gen_home.Conversation(random.Random(42), "claude", 0, 1)
    c.cwd = "/home/dev/src/hostile"
    c.topic = ("hostile",) + c.topic[1:]
    gen_home.AI_TITLES["hostile"] = TITLE
    first = c.turns[0]
    first.update(prompt=PROMPT, thinking=THINKING, answer=ANSWER)
    first["tool"].update(cmd=COMMAND, output=OUTPUT)
    gen_home.write_claude(home, c)
    fork = gen_home.Conversation(random.Random(44), "claude", 2, 1)
    fork.cwd = c.cwd
    gen_home.write_claude(home, fork)
    name_parent(os.path.join(home, ".claude", "projects", gen_home.slug_dash(fork.cwd), f"{fork.uuid}.jsonl"), c.uuid)
    print(f"claude: 1 hostile session ({c.uuid}) and 1 forked from it ({fork.uuid})")


def name_parent(path, parent):
    """Mark every conversation line of the session at `path` as forked from session `parent`."""
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    for r in records:
        if r.get("type") in ("user", "assistant"):
            r["forkedFrom"] = {"sessionId": parent}
    gen_home.write_lines(path, records)


if __name__ == "__main__":
    main()
