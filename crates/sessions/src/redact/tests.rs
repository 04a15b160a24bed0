//! What the rules find and what they leave alone. Secrets are assembled from pieces, so the
//! repository holds no string a secret scanner flags.
use super::*;

/// A deterministic run of characters from `alphabet` (a linear congruential walk).
fn chars(alphabet: &str, n: usize, seed: u64) -> String {
    let a: Vec<char> = alphabet.chars().collect();
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            a[((x >> 33) as usize) % a.len()]
        })
        .collect()
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// The rule ids that redact something in `text`.
fn found(text: &str) -> Vec<String> {
    let r = rules();
    r.find(text)
        .iter()
        .map(|s| r.rules[s.rule].id.clone())
        .collect()
}

/// `text` redacted holds no `secret` and at least one tag.
fn assert_redacted(text: &str, secret: &str) {
    let out = super::text(text);
    assert!(!out.contains(secret), "{secret} left in {out}");
    assert!(out.contains("[REDACTED:"), "no tag in {out}");
}

fn assert_clean(text: &str) {
    let f = found(text);
    assert!(f.is_empty(), "{f:?} redacted in {text}");
}

#[test]
fn every_rule_compiles_or_is_named() {
    let r = rules();
    assert!(r.rules.len() > 200, "{} rules", r.rules.len());
    // gitleaks' rules that need a file path (a session's text has none) are the only ones left
    // out: every regex compiles with the `regex` crate.
    for s in &r.skipped {
        assert!(
            s.why.contains("path"),
            "{} skipped: {} (adapt it in additions.toml)",
            s.id,
            s.why
        );
    }
    assert!(r.skipped.len() <= 6, "{:?}", r.skipped);
    for s in &r.skipped {
        eprintln!("skipped {}: {}", s.id, s.why);
    }
}

#[test]
fn anthropic_keys() {
    let key = format!("sk-ant-api03-{}AA", chars(ALNUM, 93, 1));
    assert_redacted(&format!("ANTHROPIC_API_KEY={key}\n"), &key);
    assert_redacted(&format!("use {key} please"), &key);
    // Cut short, as a title keeps it.
    let cut = &key[..40];
    assert_redacted(&format!("Rotate {cut}"), cut);
}

#[test]
fn openai_keys() {
    let marker = ["T3Blbk", "FJ"].concat();
    let legacy = format!("sk-{}{marker}{}", chars(ALNUM, 20, 2), chars(ALNUM, 20, 3));
    assert_redacted(&format!("OPENAI_API_KEY={legacy}"), &legacy);
    let project = format!(
        "sk-proj-{}{marker}{}",
        chars(ALNUM, 74, 4),
        chars(ALNUM, 74, 5)
    );
    assert_redacted(&format!("key: \"{project}\""), &project);
    // A project key without the marker, as newer ones come.
    let plain = format!("sk-proj-{}", chars(ALNUM, 120, 6));
    assert_redacted(&format!("export OPENAI_API_KEY={plain}"), &plain);
}

#[test]
fn google_github_aws_slack_stripe() {
    let google = format!("AIzaSy{}", chars(ALNUM, 33, 7));
    assert_redacted(&format!("GEMINI_API_KEY={google}"), &google);
    let ghp = format!("ghp_{}", chars(ALNUM, 36, 8));
    assert_redacted(&format!("https://{ghp}@github.com/acme/shop.git"), &ghp);
    let fine = format!(
        "github_pat_{}_{}",
        chars(ALNUM, 22, 9),
        chars(ALNUM, 59, 10)
    );
    assert_redacted(&format!("GH_TOKEN={fine}"), &fine);
    let akia = format!("AKIA{}", chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 11));
    assert_redacted(&format!("aws_access_key_id = {akia}"), &akia);
    let aws_secret = chars(&format!("{ALNUM}+/"), 40, 12);
    assert_redacted(
        &format!("aws_secret_access_key = {aws_secret}\n"),
        &aws_secret,
    );
    let slack = format!(
        "xoxb-{}-{}-{}",
        chars("0123456789", 11, 13),
        chars("0123456789", 13, 14),
        chars(ALNUM, 24, 15)
    );
    assert_redacted(&format!("SLACK_BOT_TOKEN={slack}"), &slack);
    let stripe = format!("sk_live_{}", chars(ALNUM, 24, 16));
    assert_redacted(&format!("stripe.api_key = '{stripe}'"), &stripe);
}

#[test]
fn jwt_and_private_keys() {
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6{}.eyJzdWIiOiIx{}.{}",
        chars(ALNUM, 6, 17),
        chars(ALNUM, 30, 18),
        chars(ALNUM, 43, 19)
    );
    assert_redacted(&format!("Authorization: Bearer {jwt}\n"), &jwt);
    let body: Vec<String> = (0..6)
        .map(|i| format!("MII{}", chars(ALNUM, 61, 20 + i)))
        .collect();
    let label = ["PRIVATE", "KEY"].join(" ");
    let block = format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        body.join("\n")
    );
    let input = format!("cat id.pem\n{block}\ndone");
    let out = super::text(&input);
    for line in &body {
        assert!(!out.contains(line.as_str()), "{out}");
    }
    assert!(out.ends_with("\ndone"), "{out}");
    // Its end cut off (a `head` of the file, a cut snippet).
    let head = format!("-----BEGIN {label}-----\n{}\n{}", body[0], &body[1][..20]);
    assert_redacted(&head, &body[0]);
}

#[test]
fn passwords_and_secrets_of_high_entropy() {
    let pw = format!("{}!#{}", chars(ALNUM, 10, 30), chars(ALNUM, 10, 31));
    assert_redacted(&format!("DB_PASSWORD={pw}"), &pw);
    let secret = chars(ALNUM, 32, 32);
    assert_redacted(&format!("client_secret: {secret}"), &secret);
    // Low entropy, variables, calls and placeholders are no secrets.
    assert_clean("password=password");
    assert_clean("password: ${DB_PASSWORD}");
    assert_clean("let password = getenv(\"DB_PASSWORD\");");
    assert_clean("secret: <your-secret-here>");
    assert_clean("password_hash: str");
}

#[test]
fn what_is_not_a_secret() {
    // Git SHAs, UUIDs, hashes, paths, base64 images and ordinary code.
    assert_clean("commit 5c18092f3a9be1c6d2c4e0f1a2b3c4d5e6f70819 (HEAD -> main)");
    assert_clean("a1b2c3d feat: streaming export\nd4e5f6a fix: torn last line");
    assert_clean("session 90c192cf-d3ac-44af-8f21-ddb66cad4a26 resumed");
    assert_clean(
        "sha256:c529802a4f8a8cc6c7ac95ac3b721b9f4fe210e3c2ad90fdd3d3f8479d2da4d9  app.tar.gz",
    );
    assert_clean(
        "integrity sha512-3fUKwq2hVLTmLyJW4Zu8Ay6yuXPwf3qCnf+E0mK1Hv+9ZjU4J4ZAC2Yr3Vu5Lz==",
    );
    assert_clean("/home/dev/src/agent-mux/crates/sessions/src/redact/mod.rs:42:7");
    let png = format!(
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{}",
        chars(ALNUM, 400, 40)
    );
    assert_clean(&png);
    assert_clean("const apiKey = process.env.OPENAI_API_KEY;\nconst token = await getToken(user);");
    assert_clean("fn secret_key(&self) -> &[u8] { &self.key }");
    assert_clean("let tokenizer = Tokenizer::new(vocab_size: 32000);");
    assert_clean("The auth middleware checks the session token before each request.");
    assert_clean("const req = await fetch_if(bapibide, \"bimacefi-14c2b9\");");
}

#[test]
fn one_secret_one_tag() {
    let ghp = format!("ghp_{}", chars(ALNUM, 36, 50));
    let input = format!("first {ghp} then again {ghp}.");
    let out = super::text(&input);
    let tags: Vec<&str> = out.matches("[REDACTED:").collect();
    assert_eq!(tags.len(), 2, "{out}");
    let tag = &out[out.find("[REDACTED:").unwrap()..];
    let tag = &tag[..=tag.find(']').unwrap()];
    assert!(
        tag.starts_with("[REDACTED:")
            && tag.len() == "[REDACTED::0000]".len() + tag[10..].find(':').unwrap(),
        "{tag}"
    );
    assert_eq!(out.matches(tag).count(), 2, "{out}");
    let other = format!("ghp_{}", chars(ALNUM, 36, 51));
    assert_ne!(super::text(&other), super::text(&ghp));
}

#[test]
fn redacting_twice_changes_nothing() {
    let text = format!(
        "DB_PASSWORD={}!#{}\nclient_secret: {}\naws_secret_access_key = {}\nGH_TOKEN=ghp_{}\nkey: sk_live_{}",
        chars(ALNUM, 10, 80),
        chars(ALNUM, 10, 81),
        chars(ALNUM, 32, 82),
        chars(ALNUM, 40, 83),
        chars(ALNUM, 36, 84),
        chars(ALNUM, 24, 85)
    );
    let once = super::text(&text).into_owned();
    assert_eq!(once.matches("[REDACTED:").count(), 5, "{once}");
    assert_eq!(super::text(&once), once);
}

#[test]
fn hits_follow_the_redaction() {
    let ghp = format!("ghp_{}", chars(ALNUM, 36, 60));
    let text = format!("token {ghp} for the deploy");
    let at = text.find(&ghp).unwrap();
    let deploy = text.find("deploy").unwrap();
    let (out, hits, from) = with_ranges(&text, &[(at, at + ghp.len()), (deploy, deploy + 6)], at);
    assert_eq!(from, hits[0].0);
    assert!(!out.contains(&ghp));
    assert!(
        out[hits[0].0..hits[0].1].starts_with("[REDACTED:github"),
        "{out} {hits:?}"
    );
    assert_eq!(&out[hits[1].0..hits[1].1], "deploy");
}

#[test]
fn raw_lines_are_redacted_and_others_kept_byte_for_byte() {
    let ghp = format!("ghp_{}", chars(ALNUM, 36, 70));
    let secret_line = format!("{{\"b\":1,\"a\":\"push with {ghp}\\nok\"}}");
    let plain_line = "{\"z\":1,  \"a\":\"nothing here\"}";
    let mut r = Raw::Lines(vec![
        Raw::line(secret_line.as_bytes()),
        Raw::line(plain_line.as_bytes()),
    ]);
    raw(&mut r);
    let Raw::Lines(lines) = &r else {
        unreachable!()
    };
    assert!(!lines[0].get().contains(&ghp), "{}", lines[0].get());
    assert!(lines[0]
        .get()
        .starts_with("{\"b\":1,\"a\":\"push with [REDACTED:"));
    assert_eq!(lines[1].get(), plain_line);
}

use crate::model::Raw;

#[test]
fn raw_lines_are_read_unescaped_keys_included() {
    let ghp = format!("ghp_{}", chars(ALNUM, 36, 71));
    // The token spelled with a `\u` escape, a password between escaped quotes, one in a key.
    let escaped = format!("{{\"a\":\"\\u0067hp_{}\"}}", &ghp[4..]);
    let password = format!("password={}", chars(ALNUM, 24, 72));
    let quoted = format!(
        "{{\"a\":[1,{{\"b\":\"{}\"}}]}}",
        "password = \\\"".to_string() + &password[9..] + "\\\""
    );
    let in_key = format!("{{\"{ghp}\":null}}");
    let mut r = Raw::Lines(vec![
        Raw::line(escaped.as_bytes()),
        Raw::line(quoted.as_bytes()),
        Raw::line(in_key.as_bytes()),
    ]);
    raw(&mut r);
    let Raw::Lines(lines) = &r else {
        unreachable!()
    };
    assert!(!lines[0].get().contains(&ghp[4..]), "{}", lines[0].get());
    assert!(
        !lines[1].get().contains(&password[9..]),
        "{}",
        lines[1].get()
    );
    assert!(!lines[2].get().contains(&ghp), "{}", lines[2].get());
    for l in lines {
        assert!(l.get().contains("[REDACTED:"), "{}", l.get());
    }
}

#[test]
fn a_long_string_found_clean_is_not_scanned_again_and_others_are() {
    let clean = apply::Clean::default();
    let mut plain = "an api token used nowhere ".repeat(20);
    assert!(!clean.in_place(&mut plain));
    assert!(!clean.holds_secret(&plain));
    let ghp = format!("ghp_{}", chars(ALNUM, 36, 73));
    let other = format!("{plain}{ghp}");
    assert!(clean.holds_secret(&other));
    let mut held = other.clone();
    assert!(clean.in_place(&mut held));
    assert!(clean.holds_secret(&other));
}

#[test]
fn re2_braces_that_repeat_nothing_are_literal() {
    use super::rules::from_re2;
    assert_eq!(from_re2(r"^\$(?:\d+|{\d+})$"), r"^\$(?:\d+|\{\d+})$");
    assert_eq!(from_re2(r"[\w{}]{2,5}x{3}"), r"[\w{}]{2,5}x{3}");
    assert_eq!(from_re2(r"^{{ a }}$"), r"^\{\{ a }}$");
    assert_eq!(from_re2(r"\{\d{0,2}}"), r"\{\d{0,2}}");
}

#[test]
fn a_rules_keywords_bound_where_it_matches() {
    use super::window::reach;
    let parse = |p: &str| {
        regex_automata::util::syntax::parse_with(
            p,
            &regex_automata::util::syntax::Config::new()
                .unicode(false)
                .utf8(false),
        )
        .unwrap()
    };
    let kw = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    // The generic rule's shape: up to 50 bytes, then a keyword spelt in any case.
    assert_eq!(
        reach(
            &parse(r"(?i)[\w.-]{0,50}?(?:key|(?-i:[Aa]pi|API)|token)[ \t]{0,3}=(\w{10,})"),
            &kw(&["key", "api", "token"])
        ),
        Some(50)
    );
    // A keyword spelt across an optional part.
    assert_eq!(
        reach(
            &parse(r"x{0,3}(?i:passw(?:or)?d)=\w+"),
            &kw(&["passwd", "password"])
        ),
        Some(3)
    );
    assert_eq!(
        reach(&parse(r"\b(ey[a-z]{17,})\.ey"), &kw(&["ey"])),
        Some(0)
    );
    assert_eq!(reach(&parse(r"SK[0-9a-f]{32}"), &kw(&["sk"])), Some(0));
    assert_eq!(
        reach(&parse(r"(?:hvs\.\w{90}|s\.\w{24})"), &kw(&["hvs.", "s."])),
        Some(0)
    );
    // A branch without a keyword, an unbounded run before it, a keyword only in part of an
    // optional piece, no keyword at all: the whole text is searched.
    assert_eq!(reach(&parse(r"(?:abc|xyz)\d+"), &kw(&["abc"])), None);
    assert_eq!(reach(&parse(r"[a-z]+key=\d+"), &kw(&["key"])), None);
    assert_eq!(reach(&parse(r"(?:pass)?word"), &kw(&["pass"])), None);
    assert_eq!(reach(&parse(r"key=\d+"), &[]), None);
}

#[test]
fn the_rules_woken_most_run_in_windows() {
    let r = rules();
    for id in [
        "generic-api-key",
        "jwt",
        "twilio-api-key",
        "vault-service-token",
        "secret-assignment",
        "github-token",
        "anthropic-key",
    ] {
        let rule = r.rules.iter().find(|x| x.id == id).expect(id);
        assert!(rule.window.is_some(), "{id} runs over the whole text");
    }
    let windowed = r.rules.iter().filter(|x| x.window.is_some()).count();
    assert!(
        windowed * 10 >= r.rules.len() * 9,
        "{windowed} of {}",
        r.rules.len()
    );
}

/// Every keyword of every rule, as the vendored files spell them.
fn all_keywords() -> Vec<String> {
    let mut out = Vec::new();
    for file in [
        include_str!("gitleaks.toml"),
        include_str!("additions.toml"),
    ] {
        let v: toml::Value = toml::from_str(file).unwrap();
        for rule in v["rules"].as_array().unwrap() {
            for k in rule
                .get("keywords")
                .and_then(|k| k.as_array())
                .into_iter()
                .flatten()
            {
                out.push(k.as_str().unwrap().to_string());
            }
        }
    }
    out
}

/// Texts made of keywords (in any case), secrets of many kinds, long runs of key characters,
/// JSON and code punctuation, escapes and words, in random order and length.
fn generated_texts(n: usize) -> Vec<String> {
    let keywords = all_keywords();
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = move |m: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) as usize) % m
    };
    let b64 = format!("{ALNUM}+/");
    let marks = [
        " ", "=", ":", "\"", "'", "\n", "\\n", ",", ";", "`", "=>", ":=", "||", "?=", "(", ")",
        "-", "_", ".", "\t", "  ", "{\"", "\":\"", "é", "—", "= '", "\": ",
    ];
    let words = [
        "the",
        "input_tokens",
        "api_key",
        "password",
        "secret",
        "client_secret",
        "Bearer",
        "Authorization:",
        "export",
        "const",
        "let",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "token",
        "-----BEGIN RSA PRIVATE KEY-----",
        "eyJ",
        "MII",
        "sk-",
        "ghp_",
        "xoxb-",
    ];
    (0..n)
        .map(|i| {
            let mut t = String::new();
            for _ in 0..1 + next(120) {
                let seed = next(1 << 30) as u64;
                match next(9) {
                    0 | 1 => {
                        let k = &keywords[next(keywords.len())];
                        if next(2) == 0 {
                            t.push_str(&k.to_uppercase());
                        } else {
                            t.push_str(k);
                        }
                    }
                    2 | 3 => t.push_str(marks[next(marks.len())]),
                    4 => t.push_str(words[next(words.len())]),
                    5 => t.push_str(&chars(ALNUM, 1 + next(60), seed)),
                    // Long runs: the unbounded tails of some rules run to their end.
                    6 => t.push_str(&chars(&b64, 1 + next(400), seed)),
                    7 => t.push_str(&chars("0123456789abcdef", 8 + next(40), seed)),
                    _ => t.push_str(&match next(8) {
                        0 => format!("ghp_{}", chars(ALNUM, 36, seed)),
                        1 => format!("sk-ant-api03-{}AA", chars(ALNUM, 93, seed)),
                        2 => format!(
                            "AKIA{}",
                            chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, seed)
                        ),
                        3 => format!(
                            "eyJhbGciOiJIUzI1NiIsInR5cCI6{}.eyJzdWIiOiIx{}.{}",
                            chars(ALNUM, 6, seed),
                            chars(ALNUM, 30, seed + 1),
                            chars(ALNUM, 43, seed + 2)
                        ),
                        4 => format!("SK{}", chars("0123456789abcdef", 32, seed)),
                        5 => format!("s.{}", chars(ALNUM, 24, seed)),
                        6 => format!(
                            "xoxb-{}-{}-{}",
                            chars("0123456789", 11, seed),
                            chars("0123456789", 13, seed + 1),
                            chars(ALNUM, 24, seed + 2)
                        ),
                        _ => format!("sk_live_{}", chars(ALNUM, 24, seed)),
                    }),
                }
            }
            if i % 7 == 0 {
                // The same text twice over: matches near the join.
                t = format!("{t}{t}");
            }
            t
        })
        .collect()
}

/// `find` (rules run near their keywords) equals every rule run over the whole text; how many
/// secrets were found, so a caller can tell the texts held some.
fn assert_windows_change_nothing(texts: &[String], from: &str) -> usize {
    let r = rules();
    let mut n = 0;
    for t in texts {
        let windowed = r.find(t);
        assert_eq!(windowed, r.find_whole(t), "{from}: {t:?}");
        n += windowed.len();
    }
    n
}

#[test]
fn windows_find_what_the_whole_text_run_finds_in_generated_text() {
    let texts = generated_texts(3000);
    let found = assert_windows_change_nothing(&texts, "generated");
    assert!(found > 3000, "only {found} secrets in the generated texts");
}

/// Every file under `dir` as text, and every string (and key) of its JSON lines and documents.
fn texts_under(dir: &std::path::Path, out: &mut Vec<String>) {
    fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    out.push(k.clone());
                    strings(x, out);
                }
            }
            _ => {}
        }
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            texts_under(&path, out);
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            strings(&v, out);
        }
        for line in text.lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                strings(&v, out);
            }
        }
        out.push(text);
    }
}

#[test]
fn windows_find_what_the_whole_text_run_finds_in_the_demo_home() {
    let mut texts = Vec::new();
    texts_under(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo-home"),
        &mut texts,
    );
    assert!(texts.len() > 1000, "{} texts", texts.len());
    assert_windows_change_nothing(&texts, "demo home");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn windows_find_what_the_whole_text_run_finds_in_the_real_captures() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/real");
    let mut texts = Vec::new();
    texts_under(&dir, &mut texts);
    assert!(texts.len() > 1000, "{} texts", texts.len());
    assert_windows_change_nothing(&texts, "real captures");
}

#[test]
fn a_summarys_directory_and_its_project_are_redacted_alike() {
    let key = format!("AKIA{}", chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 9));
    let dir = format!("/home/dev/{key}/api");
    let mut s =
        crate::model::SessionSummary::new("claude", "s1", Default::default(), Default::default());
    s.cwd = Some(dir.clone());
    s.project = Some(dir.clone());
    s.git_branch = Some(format!("fix-{key}"));
    summary(&mut s);
    for field in [&s.cwd, &s.project, &s.git_branch] {
        let text = field.as_deref().unwrap();
        assert!(
            !text.contains(&key) && text.contains("[REDACTED:"),
            "{text}"
        );
    }
}
