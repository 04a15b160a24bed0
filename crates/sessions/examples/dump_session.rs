//! Print one session as the API returns it: `dump_session <agent> <store-dir> <id> [--summary]`.
//! Also used to measure memory of `get` on big files (`/usr/bin/time -v`).
use agent_mux_sessions::{Client, ClientOptions, Env};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: dump_session <agent> <store-dir> <id> [--summary|--quiet]");
        std::process::exit(2);
    }
    let mut dirs = BTreeMap::new();
    dirs.insert(args[1].clone(), PathBuf::from(&args[2]));
    let client = Client::new(ClientOptions {
        session_dirs: dirs,
        ..Default::default()
    });
    let env = Env::from_process();
    let mode = args.get(4).map(String::as_str);
    if mode == Some("--summary") {
        let opts = agent_mux_sessions::options::ListOptions::default();
        let t = std::time::Instant::now();
        let list = client.list(env, &args[1], &opts).expect("list");
        eprintln!("listed {} sessions in {:?}", list.len(), t.elapsed());
        println!("{}", serde_json::to_string_pretty(&list).unwrap());
        return;
    }
    let t = std::time::Instant::now();
    let s = client.get(env, &args[1], &args[3]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    eprintln!("read {} messages in {:?}", s.messages.len(), t.elapsed());
    if mode != Some("--quiet") {
        let mut v = serde_json::to_value(&s).unwrap();
        v.as_object_mut().unwrap().remove("raw");
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    }
}
