//! Giving freed memory back to the system. glibc keeps what a thread freed in that thread's
//! arena for reuse, so a loaded session of hundreds of MB, once dropped, still counts in the
//! process's RSS while its result (an export's text, JS values) is allocated beside it.

/// Return the allocator's free pages to the system (glibc's `malloc_trim`; elsewhere nothing).
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer; it only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}
