//! The files a session's tool calls touched. Each agent names its tools that touch files in a
//! table (`Agent::file_tools`: a tool's name and the kind of thing it does); what a kind reads
//! from a call's input is here, once for every agent: the path (under any of the names agents
//! give it), the lines an edit or a patch changed, the files a shell command names.
//!
//! A shell command counts as `command` on its working directory always, and on a file it names
//! only where that can be told without running a shell: the target of a redirection (`> f`,
//! `>> f`, `< f`), and the operands of a few programs whose operands are all files (`cat`,
//! `head`, `tail`, `less`, `more`, `nl`, `wc`, `stat`, `file`, `touch`, `rm`, `rmdir`, `mkdir`,
//! `mv`, `cp`, `ln`, `chmod`, `diff`, `ls`), in a command split by `;`, `&&`, `||` and `|`. A
//! word holding `$`, a backquote, a glob character or `~` is not a path (the shell would expand
//! it); a script with a here-document is read no further than its first line.
use serde_json::Value;

use crate::model::{FileAction, Session, Timestamp, ToolCall, Touch};
pub use crate::query::files::{absolute, is_absolute, normalise};

/// What a tool does to files, for reading its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads the file at its path (or each of its `paths`).
    Read,
    /// Writes the whole file at its path; the lines written are its content's.
    Write,
    /// Replaces text in the file at its path: old and new strings (or a list of such edits, or
    /// a patch).
    Edit,
    /// Deletes the file at its path.
    Delete,
    /// Runs a shell command (`command`, `cmd`, a script or an argv), in `workdir` if given.
    Shell,
    /// Applies a patch (Codex's `*** Begin Patch` format or a unified diff) from its input.
    Patch,
    /// One tool for all of these, told apart by its `command` field (`view`, `create`,
    /// `str_replace`, `insert`, `undo_edit`).
    Editor,
    /// A program that calls the agent's other tools as `tools.<name>({…JSON…})` (Codex's code
    /// mode): each such call whose argument is a JSON object is read as that tool's call.
    Script,
}

/// A table of an agent's tools that touch files: each tool's name as the agent records it.
pub type FileTools = &'static [(&'static str, ToolKind)];

/// A touch as one call records it, before it is placed in the session.
#[derive(Debug, Clone, PartialEq)]
pub struct CallTouch {
    /// As the call gives it, or joined to the call's own working directory.
    pub path: String,
    pub action: FileAction,
    pub added: Option<u64>,
    pub removed: Option<u64>,
}

impl CallTouch {
    fn new(path: &str, action: FileAction) -> CallTouch {
        CallTouch {
            path: path.to_string(),
            action,
            added: None,
            removed: None,
        }
    }

    fn lines(mut self, added: Option<u64>, removed: Option<u64>) -> CallTouch {
        self.added = added;
        self.removed = removed;
        self
    }
}

/// The touches of one call, per `tools`; none when the tool is not in the table or its input
/// does not read (a malformed input loses only its own touches).
pub fn of_call(tools: FileTools, call: &ToolCall) -> Vec<CallTouch> {
    let Some(&(_, kind)) = tools.iter().find(|(name, _)| *name == call.tool_name) else {
        return Vec::new();
    };
    // Some agents record a call's arguments as JSON text.
    let parsed;
    let input = match &call.input {
        Value::String(s) if kind != ToolKind::Patch && s.trim_start().starts_with('{') => {
            parsed = serde_json::from_str(s).unwrap_or(Value::Null);
            &parsed
        }
        v => v,
    };
    let mut out = match (kind, input) {
        (ToolKind::Script, Value::String(code)) => script_calls(tools, code),
        _ => of_input(kind, input),
    };
    out.retain(|t| !t.path.is_empty() && t.path != "/dev/null");
    out
}

/// The calls a script makes as `tools.<name>({…})`, read as calls of those tools.
fn script_calls(tools: FileTools, code: &str) -> Vec<CallTouch> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("tools.") {
        rest = &rest[at + "tools.".len()..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_len);
        let Some(args) = after.trim_start().strip_prefix('(') else {
            continue;
        };
        let mut values = serde_json::Deserializer::from_str(args.trim_start()).into_iter::<Value>();
        let Some(Ok(input @ Value::Object(_))) = values.next() else {
            continue;
        };
        let kind = tools.iter().find(|(n, _)| *n == name).map(|(_, k)| *k);
        if let Some(kind) = kind.filter(|k| *k != ToolKind::Script) {
            out.extend(of_input(kind, &input));
        }
    }
    out
}

fn of_input(kind: ToolKind, input: &Value) -> Vec<CallTouch> {
    match kind {
        ToolKind::Script => Vec::new(),
        ToolKind::Read => {
            let mut out: Vec<CallTouch> = path_of(input)
                .map(|p| CallTouch::new(p, FileAction::Read))
                .into_iter()
                .collect();
            if let Some(paths) = input.get("paths").and_then(Value::as_array) {
                out.extend(
                    (paths.iter().filter_map(Value::as_str))
                        .map(|p| CallTouch::new(p, FileAction::Read)),
                );
            }
            out
        }
        ToolKind::Write => path_of(input)
            .map(|p| {
                let added = text_of(input, &["content", "file_text", "contents", "text"]);
                CallTouch::new(p, FileAction::Write).lines(added.map(count_lines), None)
            })
            .into_iter()
            .collect(),
        ToolKind::Edit => edit(input),
        ToolKind::Delete => path_of(input)
            .map(|p| CallTouch::new(p, FileAction::Delete))
            .into_iter()
            .collect(),
        ToolKind::Shell => shell(input),
        ToolKind::Patch => match input {
            Value::String(s) => patch(s),
            v => text_of(v, &["input", "patch", "patchText", "patch_text", "diff"])
                .map(patch)
                .unwrap_or_default(),
        },
        ToolKind::Editor => {
            let kind = match input.get("command").and_then(Value::as_str) {
                Some("view") => ToolKind::Read,
                Some("create") => ToolKind::Write,
                Some("str_replace" | "insert" | "undo_edit") => ToolKind::Edit,
                _ => return Vec::new(),
            };
            of_input(kind, input)
        }
    }
}

/// The names agents give a file's path in a tool's input.
const PATH_KEYS: &[&str] = &[
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "absolute_path",
    "target_file",
    "targetFile",
    "file",
    "filename",
];

fn path_of(input: &Value) -> Option<&str> {
    PATH_KEYS
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|p| !p.trim().is_empty())
}

fn text_of<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// Lines of a text as an editor counts them: a last line without its newline counts.
fn count_lines(s: &str) -> u64 {
    if s.is_empty() {
        return 0;
    }
    let n = s.bytes().filter(|&b| b == b'\n').count() as u64;
    n + u64::from(!s.ends_with('\n'))
}

/// The old and new texts of one replacement, under the names agents give them.
fn replacement(v: &Value) -> Option<(&str, &str)> {
    const PAIRS: &[(&str, &str)] = &[
        ("old_string", "new_string"),
        ("oldString", "newString"),
        ("old_str", "new_str"),
        ("oldText", "newText"),
        ("old_text", "new_text"),
    ];
    PAIRS.iter().find_map(|(o, n)| {
        let new = v.get(*n).and_then(Value::as_str);
        let old = v.get(*o).and_then(Value::as_str);
        match (old, new) {
            (None, None) => None,
            (old, new) => Some((old.unwrap_or(""), new.unwrap_or(""))),
        }
    })
}

fn edit(input: &Value) -> Vec<CallTouch> {
    let Some(path) = path_of(input) else {
        // An edit tool given a patch instead (Hermes' `patch` in patch mode, OpenCode's).
        return text_of(
            input,
            &["patch", "patchText", "patch_text", "diff", "input"],
        )
        .map(patch)
        .unwrap_or_default();
    };
    let mut lines: Option<(u64, u64)> =
        replacement(input).map(|(o, n)| (count_lines(n), count_lines(o)));
    if let Some(edits) = input.get("edits").and_then(Value::as_array) {
        for (o, n) in edits.iter().filter_map(replacement) {
            let (a, r) = lines.unwrap_or((0, 0));
            lines = Some((a + count_lines(n), r + count_lines(o)));
        }
    }
    // An insertion: new text only.
    if lines.is_none() {
        lines = text_of(input, &["new_source", "insert_text"]).map(|n| (count_lines(n), 0));
    }
    let t = CallTouch::new(path, FileAction::Edit);
    vec![match lines {
        Some((a, r)) => t.lines(Some(a), Some(r)),
        None => t,
    }]
}

/// A patch's files: Codex's `*** Begin Patch` envelope, else a unified diff's `+++` headers.
pub fn patch(text: &str) -> Vec<CallTouch> {
    if text.contains("*** Begin Patch") {
        envelope_patch(text)
    } else {
        unified_diff(text)
    }
}

fn envelope_patch(text: &str) -> Vec<CallTouch> {
    let mut out: Vec<CallTouch> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(p) = line.strip_prefix("*** Add File: ") {
            out.push(CallTouch::new(p.trim(), FileAction::Write).lines(Some(0), None));
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            out.push(CallTouch::new(p.trim(), FileAction::Edit).lines(Some(0), Some(0)));
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            out.push(CallTouch::new(p.trim(), FileAction::Delete));
        } else if let Some(p) = line.strip_prefix("*** Move to: ") {
            // The file is edited under its new name; the old one is gone.
            if let Some(last) = out.last_mut() {
                let old = std::mem::replace(&mut last.path, p.trim().to_string());
                let at = out.len() - 1;
                out.insert(at, CallTouch::new(&old, FileAction::Delete));
            }
        } else if line.starts_with("***") || line.starts_with("@@") {
            continue;
        } else if let Some(last) = out.last_mut() {
            count_diff_line(last, line);
        }
    }
    out
}

fn count_diff_line(t: &mut CallTouch, line: &str) {
    let bump = |n: &mut Option<u64>| *n = Some(n.unwrap_or(0) + 1);
    match line.as_bytes().first() {
        Some(b'+') if t.action != FileAction::Delete => bump(&mut t.added),
        Some(b'-') if t.action == FileAction::Edit => bump(&mut t.removed),
        _ => {}
    }
}

fn unified_diff(text: &str) -> Vec<CallTouch> {
    let mut out: Vec<CallTouch> = Vec::new();
    let mut old: Option<&str> = None;
    let mut in_header = false;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(p) = line.strip_prefix("--- ") {
            old = Some(diff_path(p));
            in_header = true;
        } else if let Some(p) = line.strip_prefix("+++ ") {
            let new = diff_path(p);
            let t = match (old.take(), new) {
                (Some(o), "/dev/null") => CallTouch::new(o, FileAction::Delete),
                (Some("/dev/null"), n) => CallTouch::new(n, FileAction::Write).lines(Some(0), None),
                (_, n) => CallTouch::new(n, FileAction::Edit).lines(Some(0), Some(0)),
            };
            out.push(t);
            in_header = false;
        } else if !in_header {
            if let Some(last) = out.last_mut() {
                count_diff_line(last, line);
            }
        }
    }
    out
}

/// A diff header's path: without its time stamp and its `a/`/`b/` prefix.
fn diff_path(p: &str) -> &str {
    let p = p.split('\t').next().unwrap_or(p).trim();
    p.strip_prefix("a/")
        .or_else(|| p.strip_prefix("b/"))
        .unwrap_or(p)
}

/// A shell call: its working directory, and what its script names (see the module's notes).
fn shell(input: &Value) -> Vec<CallTouch> {
    let workdir = text_of(
        input,
        &[
            "workdir",
            "cwd",
            "directory",
            "working_directory",
            "dir_path",
        ],
    );
    // Codex's `local_shell_call` keeps its arguments under `action`.
    let command = ["command", "cmd", "script", "commandLine", "input"]
        .iter()
        .find_map(|k| input.get(*k))
        .or_else(|| input.get("action").and_then(|a| a.get("command")));
    let script = match command {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(argv)) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            match argv.as_slice() {
                // Codex once ran its patches as a program of their own.
                ["apply_patch", p, ..] => return within(workdir, patch(p)),
                [sh, flag, script, ..]
                    if matches!(
                        *sh,
                        "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh" | "powershell" | "pwsh"
                    ) && flag.starts_with('-') =>
                {
                    Some(script.to_string())
                }
                _ => shlex::try_join(argv.iter().copied()).ok(),
            }
        }
        _ => None,
    };
    let workdir_touch = input
        .get("action")
        .and_then(|a| text_of(a, &["working_directory", "workdir"]))
        .or(workdir)
        .unwrap_or(".");
    let mut out = vec![CallTouch::new(workdir_touch, FileAction::Command)];
    if let Some(script) = script {
        if let Some(at) = script.find("*** Begin Patch") {
            // `apply_patch <<'EOF'` in a shell: the patch is the script's.
            return within(Some(workdir_touch), patch(&script[at..]));
        }
        out.extend(within(
            Some(workdir_touch),
            named_paths(&script)
                .into_iter()
                .map(|p| CallTouch::new(&p, FileAction::Command))
                .collect(),
        ));
    }
    out
}

/// Relative paths of a call made in `workdir`, joined to it.
fn within(workdir: Option<&str>, mut touches: Vec<CallTouch>) -> Vec<CallTouch> {
    if let Some(dir) = workdir.filter(|d| *d != ".") {
        for t in &mut touches {
            if !is_absolute(&t.path) {
                t.path = format!("{}/{}", dir.trim_end_matches(['/', '\\']), t.path);
            }
        }
    }
    touches
}

/// Programs whose every operand is a file, with the options among theirs that take a value.
const FILE_PROGRAMS: &[(&str, &[&str])] = &[
    ("cat", &[]),
    ("head", &["-n", "-c"]),
    ("tail", &["-n", "-c"]),
    ("less", &[]),
    ("more", &[]),
    ("nl", &[]),
    ("wc", &[]),
    ("stat", &["-c", "-f"]),
    ("file", &[]),
    ("touch", &["-d", "-t", "-r"]),
    ("rm", &[]),
    ("rmdir", &[]),
    ("mkdir", &["-m"]),
    ("mv", &["-t", "-S"]),
    ("cp", &["-t", "-S"]),
    ("ln", &["-t", "-S"]),
    ("chmod", &[]),
    ("diff", &[]),
    ("ls", &[]),
];

/// The files a shell script names, by the rule in the module's notes.
pub fn named_paths(script: &str) -> Vec<String> {
    // A here-document's body is not shell words.
    let script = match script.find("<<") {
        Some(at) => script[..at].lines().next().unwrap_or(""),
        None => script,
    };
    let mut out = Vec::new();
    for line in script.lines() {
        let Some(words) = shlex::split(line) else {
            continue;
        };
        let mut command: Vec<String> = Vec::new();
        let mut words = words.into_iter().peekable();
        // A word and whether a `;` ended the command with it.
        let ended = |w: String| match w.strip_suffix(';') {
            Some(rest) if !rest.is_empty() => (rest.to_string(), true),
            _ => (w, false),
        };
        while let Some(w) = words.next() {
            let (w, mut ends) = ended(w);
            match w.as_str() {
                "&&" | "||" | "|" | ";" | "&" => {
                    operands(&command, &mut out);
                    command.clear();
                    continue;
                }
                ">" | ">>" | "<" | "1>" | "2>" | "&>" => {
                    if let Some(target) = words.next() {
                        let (target, end) = ended(target);
                        push_path(&target, &mut out);
                        ends |= end;
                    }
                }
                _ => match redirect_target(&w) {
                    Some(target) => push_path(target, &mut out),
                    None => command.push(w),
                },
            }
            if ends {
                operands(&command, &mut out);
                command.clear();
            }
        }
        operands(&command, &mut out);
    }
    out
}

/// `>file`, `>>file`, `2>file` written as one word.
fn redirect_target(w: &str) -> Option<&str> {
    let rest = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
    let rest = rest
        .strip_prefix(">>")
        .or_else(|| rest.strip_prefix('>'))
        .or_else(|| rest.strip_prefix('<'))?;
    (!rest.is_empty() && !rest.starts_with('&')).then_some(rest)
}

fn operands(command: &[String], out: &mut Vec<String>) {
    // Past `sudo` and variable assignments.
    let mut words = command
        .iter()
        .skip_while(|w| *w == "sudo" || (w.contains('=') && !w.starts_with('-')));
    let Some(program) = words.next() else {
        return;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let Some((_, valued)) = FILE_PROGRAMS.iter().find(|(p, _)| *p == name) else {
        return;
    };
    let mut first = true;
    let mut options_done = false;
    while let Some(w) = words.next() {
        if !options_done && w == "--" {
            options_done = true;
        } else if !options_done && w.starts_with('-') && w.len() > 1 {
            if valued.contains(&w.as_str()) {
                words.next();
            }
        } else {
            // chmod's first operand is the mode.
            if !(name == "chmod" && first) {
                push_path(w, out);
            }
            first = false;
        }
    }
}

fn push_path(w: &str, out: &mut Vec<String>) {
    let expands = w.contains(['$', '`', '*', '?', '[', '{', '~']) || w.starts_with('&');
    if !expands && !w.is_empty() && w != "/dev/null" {
        out.push(w.to_string());
    }
}

/// Every touch of `session`, whose agent's tools are `tools`, in the order of its messages:
/// paths made absolute against the session's cwd, each with its message's index and time and
/// the index of the user's request before it.
pub fn of_session(tools: FileTools, session: &Session) -> Vec<Touch> {
    if tools.is_empty() {
        return Vec::new();
    }
    let cwd = session.summary.cwd.as_deref();
    let mut out = Vec::new();
    let mut request: Option<u64> = None;
    let mut last_time: Option<Timestamp> = None;
    for (i, m) in session.messages.iter().enumerate() {
        if m.role == crate::model::Role::User
            && m.tool_result.is_none()
            && !m.content.trim().is_empty()
        {
            request = Some(i as u64);
        }
        last_time = m.timestamp.or(last_time);
        for call in &m.tool_calls {
            for t in of_call(tools, call) {
                let path = absolute(&t.path, cwd);
                // "Here", in a session that records no directory, places nothing.
                if path == "." {
                    continue;
                }
                out.push(Touch {
                    path,
                    action: t.action,
                    at: last_time,
                    message_index: i as u64,
                    added: t.added,
                    removed: t.removed,
                    request_index: request,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall {
            tool_call_id: "c".into(),
            tool_name: name.into(),
            input,
            output: None,
            duration_ms: None,
            output_at_result: false,
        }
    }

    const TOOLS: FileTools = &[
        ("Edit", ToolKind::Edit),
        ("Write", ToolKind::Write),
        ("Bash", ToolKind::Shell),
        ("apply_patch", ToolKind::Patch),
        ("str_replace_editor", ToolKind::Editor),
    ];

    #[test]
    fn an_edit_counts_the_lines_of_its_old_and_new_strings() {
        let t = of_call(
            TOOLS,
            &call(
                "Edit",
                json!({"file_path": "src/a.rs", "old_string": "a\nb", "new_string": "a\nb\nc\n"}),
            ),
        );
        assert_eq!(
            t,
            vec![CallTouch::new("src/a.rs", FileAction::Edit).lines(Some(3), Some(2))]
        );
        let t = of_call(
            TOOLS,
            &call("Write", json!({"file_path": "x", "content": "1\n2\n3"})),
        );
        assert_eq!(t[0].added, Some(3));
        // A malformed input loses only its touch; an unknown tool has none.
        assert!(of_call(TOOLS, &call("Edit", json!({"old_string": 3}))).is_empty());
        assert!(of_call(TOOLS, &call("Glob", json!({"path": "x"}))).is_empty());
    }

    #[test]
    fn a_codex_patch_gives_each_file_its_action_and_lines() {
        let p = "*** Begin Patch\n*** Add File: new.txt\n+one\n+two\n*** Update File: src/lib.rs\n@@ fn a\n-old\n+new\n+more\n context\n*** Delete File: gone.md\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End Patch\n";
        let t = of_call(TOOLS, &call("apply_patch", json!(p)));
        let got: Vec<(&str, FileAction, Option<u64>, Option<u64>)> = t
            .iter()
            .map(|t| (t.path.as_str(), t.action, t.added, t.removed))
            .collect();
        assert_eq!(
            got,
            vec![
                ("new.txt", FileAction::Write, Some(2), None),
                ("src/lib.rs", FileAction::Edit, Some(2), Some(1)),
                ("gone.md", FileAction::Delete, None, None),
                ("a.py", FileAction::Delete, None, None),
                ("b.py", FileAction::Edit, Some(1), Some(1)),
            ]
        );
    }

    #[test]
    fn a_unified_diff_names_its_files() {
        let d = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n";
        let t = patch(d);
        assert_eq!(
            t[0],
            CallTouch::new("src/x.rs", FileAction::Edit).lines(Some(1), Some(1))
        );
        assert_eq!(
            t[1],
            CallTouch::new("n.txt", FileAction::Write).lines(Some(1), None)
        );
    }

    #[test]
    fn a_shell_command_counts_on_its_directory_and_the_files_it_surely_names() {
        let t = of_call(
            TOOLS,
            &call(
                "Bash",
                json!({"command": "cat src/a.rs | wc -l && head -n 5 b.txt > out.log; rg foo src $HOME/x"}),
            ),
        );
        let paths: Vec<&str> = t.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(paths, [".", "src/a.rs", "out.log", "b.txt"]);
        assert!(t.iter().all(|t| t.action == FileAction::Command));
        // Codex's argv, in its working directory.
        let t = of_call(
            TOOLS,
            &call(
                "Bash",
                json!({"command": ["bash", "-lc", "rm -f old.txt"], "workdir": "/w"}),
            ),
        );
        let paths: Vec<&str> = t.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(paths, ["/w", "/w/old.txt"]);
        // Words the shell would expand, a here-document's body, unbalanced quotes: nothing named.
        assert!(named_paths("cat *.rs ~/x").is_empty());
        assert_eq!(
            named_paths("cat > f.txt <<'EOF'\nrm -rf important\nEOF"),
            ["f.txt"]
        );
        assert!(named_paths("cat 'unclosed").is_empty());
        assert_eq!(named_paths("chmod +x run.sh"), ["run.sh"]);
    }

    #[test]
    fn an_editor_tool_is_read_by_its_command() {
        let t = of_call(
            TOOLS,
            &call(
                "str_replace_editor",
                json!({"command": "view", "path": "/a"}),
            ),
        );
        assert_eq!(t[0].action, FileAction::Read);
        let t = of_call(
            TOOLS,
            &call(
                "str_replace_editor",
                json!({"command": "create", "path": "/a", "file_text": "x\n"}),
            ),
        );
        assert_eq!((t[0].action, t[0].added), (FileAction::Write, Some(1)));
    }

    #[test]
    fn paths_are_made_absolute_and_normalised() {
        assert_eq!(
            absolute("src/../lib/./a.rs", Some("/home/dev/app/")),
            "/home/dev/app/lib/a.rs"
        );
        assert_eq!(absolute("/x//y/", Some("/cwd")), "/x/y");
        assert_eq!(absolute(".", Some("/cwd")), "/cwd");
        assert_eq!(
            absolute("sample.py", Some("C:\\Users\\me\\proj")),
            "C:/Users/me/proj/sample.py"
        );
        assert_eq!(absolute("c:\\a\\..\\b", None), "C:/b");
        assert_eq!(absolute("a/b", None), "a/b");
        assert_eq!(absolute("/../a", None), "/a");
    }
}
