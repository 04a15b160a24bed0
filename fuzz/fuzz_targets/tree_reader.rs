//! The id/parentId tree reader (Pi, omp, OpenClaw): read, active branch, raw tree, header peek.
#![no_main]
use agent_mux_fuzz::temp_home;
use agent_mux_sessions::read::tree;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let home = temp_home();
    let p = home.path().join("t.jsonl");
    std::fs::write(&p, data).unwrap();
    let doc = tree::TreeDoc::read(&p).unwrap();
    let path = tree::active_path(&doc);
    for &i in &path {
        assert!(i < doc.entries.len(), "active path indexes entries");
    }
    let _ = tree::raw(&doc, &path);
    let _ = tree::read_header(&p);
    let _ = doc.version();
    for e in &doc.entries {
        let _ = tree::entry_time_ms(e);
    }
});
