//! Is a file's data in memory already? A read from the page cache is CPU work; a read from disk
//! waits, and then more reads in flight finish sooner. Linux can tell without waiting or reading
//! ahead: `preadv2` with `RWF_NOWAIT` fails with `EAGAIN` when the data is not cached.
use std::fs::File;
use std::path::Path;

/// Threads that read a store from disk: with this many reads in flight a virtual disk answers
/// about twice as fast as with one per core (bench/RESULTS.md, "page cache cold").
const DISK_THREADS: usize = 16;

/// Files sampled to tell whether a store is in memory.
const PROBES: usize = 16;

/// Run `op` (parallel work that reads `files`) on a wider pool when they must come from disk,
/// else here on the global pool (one thread per core).
pub fn install_for<'a, R: Send>(
    files: impl ExactSizeIterator<Item = &'a Path>,
    op: impl FnOnce() -> R + Send,
) -> R {
    match disk_pool(files) {
        Some(pool) => pool.install(op),
        None => op(),
    }
}

/// A pool to read `files` with when they must come from disk, judged from an even sample (one
/// non-waiting read each): waiting on the disk takes no CPU, so more threads than cores keep
/// more reads in flight. `None` (use the global pool, one thread per core) when the sample is all
/// in memory, when the system cannot tell, or when there are as many cores anyway.
fn disk_pool<'a>(
    files: impl ExactSizeIterator<Item = &'a Path>,
) -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    if rayon::current_num_threads() >= DISK_THREADS {
        return None;
    }
    let step = files.len().div_ceil(PROBES).max(1);
    let mut sample = files.step_by(step);
    let cold =
        sample.any(|path| File::open(path).ok().and_then(|f| start_is_cached(&f)) == Some(false));
    if !cold {
        return None;
    }
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(DISK_THREADS)
            .thread_name(|i| format!("agent-mux-disk-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Is the first byte of `file` in the page cache? `None` where this cannot be asked (other
/// systems, old kernels, file systems without the flag) and for an empty file.
#[cfg(target_os = "linux")]
pub fn start_is_cached(file: &File) -> Option<bool> {
    use std::os::fd::AsRawFd;
    let mut byte = 0u8;
    let iov = libc::iovec {
        iov_base: (&mut byte as *mut u8).cast(),
        iov_len: 1,
    };
    // SAFETY: one iovec pointing at a live byte, an fd open for the whole call; offset 0 is
    // passed as (low, high) = (0, 0), the same on 32- and 64-bit kernels.
    let n = unsafe {
        libc::syscall(
            libc::SYS_preadv2,
            file.as_raw_fd(),
            &iov as *const libc::iovec,
            1 as libc::c_int,
            0 as libc::c_long,
            0 as libc::c_long,
            libc::RWF_NOWAIT,
        )
    };
    match n {
        1 => Some(true),
        0 => None,
        _ => match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EAGAIN) => Some(false),
            _ => None,
        },
    }
}

#[cfg(not(target_os = "linux"))]
pub fn start_is_cached(_file: &File) -> Option<bool> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    /// tmpfs and ramfs keep files only in the page cache: nothing there can be evicted.
    #[allow(clippy::unnecessary_cast)] // statfs field and constant widths differ between targets
    fn memory_backed(dir: &std::path::Path) -> bool {
        let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: statfs is plain integers, for which all zeroes is a valid value.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: a NUL-terminated path that outlives the call and a statfs it may fill in.
        let rc = unsafe { libc::statfs(path.as_ptr(), &mut st) };
        const RAMFS_MAGIC: i64 = 0x8584_58f6;
        rc != 0 || [libc::TMPFS_MAGIC as i64, RAMFS_MAGIC].contains(&(st.f_type as i64))
    }

    #[test]
    fn a_file_just_written_is_cached_and_one_evicted_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![b'x'; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        drop(f);
        let f = File::open(&path).unwrap();
        assert_eq!(start_is_cached(&f), Some(true));
        if memory_backed(dir.path()) {
            eprintln!(
                "skipped the eviction half: {} is memory-backed",
                dir.path().display()
            );
            return;
        }
        // DONTNEED is advice: under load (the whole suite running) a page can outlast the first
        // asking, so it is asked again for up to a second.
        for _ in 0..100 {
            // SAFETY: an open fd; DONTNEED drops clean cached pages and changes no data.
            let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            assert_eq!(rc, 0);
            if start_is_cached(&f) == Some(false) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(start_is_cached(&f), Some(false));
        // Asking did not read the data in.
        assert_eq!(start_is_cached(&f), Some(false));
        let empty = dir.path().join("empty");
        File::create(&empty).unwrap();
        assert_eq!(start_is_cached(&File::open(&empty).unwrap()), None);
    }
}
