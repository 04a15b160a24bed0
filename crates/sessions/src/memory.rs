//! Giving freed memory back to the system. An allocator keeps what was freed for reuse, so a
//! loaded session of hundreds of MB, once dropped, still counts in the process's RSS while its
//! result (an export's text, JS values) is allocated beside it.
//!
//! Which allocator that is, the core cannot know: the program it is linked into chooses its
//! global allocator. That program installs the release that fits it (`use_release`); until then
//! the system allocator is assumed (glibc's `malloc_trim`, elsewhere nothing).
use std::sync::OnceLock;

static RELEASE: OnceLock<fn()> = OnceLock::new();

/// Make `release` the way freed memory goes back to the system, for the allocator the program
/// uses. The first call decides; later ones change nothing.
pub fn use_release(release: fn()) {
    let _ = RELEASE.set(release);
}

/// Return the allocator's free pages to the system.
pub fn release_freed() {
    match RELEASE.get() {
        Some(release) => release(),
        None => release_system(),
    }
}

/// The system allocator's release: glibc's `malloc_trim`; elsewhere nothing.
fn release_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer; it only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn counting() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    fn other() {}

    #[test]
    fn the_installed_release_is_the_one_called() {
        use_release(counting);
        use_release(other);
        let before = CALLS.load(Ordering::SeqCst);
        release_freed();
        assert!(CALLS.load(Ordering::SeqCst) > before);
    }
}
