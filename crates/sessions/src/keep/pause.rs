//! Named points where a test may stop a process that is keeping (`AGENT_MUX_KEEP_PAUSE=<point>`:
//! the process prints the point's name to stderr and sleeps until it is killed), so that a
//! kill -9 at each point can be tested. The variable is read from the call's environment
//! snapshot (`arm`), never from a worker thread.
use std::sync::Mutex;

static POINT: Mutex<Option<String>> = Mutex::new(None);

/// Take the point to stop at from the call's environment.
pub fn arm(ctx: &crate::context::Context) {
    let want = ctx.env.var("AGENT_MUX_KEEP_PAUSE").map(str::to_string);
    if want.is_some() || POINT.lock().map(|p| p.is_some()).unwrap_or(false) {
        if let Ok(mut p) = POINT.lock() {
            *p = want;
        }
    }
}

/// Stop here if the test asked to.
pub fn at(point: &str) {
    let stop = POINT
        .lock()
        .map(|p| p.as_deref() == Some(point))
        .unwrap_or(false);
    if stop {
        eprintln!("paused at {point}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
}
