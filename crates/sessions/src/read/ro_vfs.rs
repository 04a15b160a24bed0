//! A SQLite VFS that cannot create or delete a file: the platform's default VFS with `xOpen`
//! stripped of the create and write flags for `-wal` and journal files, and `xDelete` refused.
//!
//! Why: a read-only connection to a WAL database still opens its `-wal` with `O_CREAT` (SQLite
//! needs one to read a WAL database), so when an agent closes its database — removing the `-wal`
//! — between our look at the directory and SQLite's open, SQLite would create an empty `-wal` in
//! the agent's directory. Through this VFS that open fails instead (and `open_read_only` looks
//! again); an existing `-wal` is opened read-only, which SQLite supports. The `-shm` is not opened
//! through `xOpen`; `readonly_shm=1` covers it (see `sqlite_open`).
use rusqlite::ffi;
use std::ffi::{c_char, c_int, CStr};
use std::sync::OnceLock;

/// The registered name, for `Connection::open_with_flags_and_vfs`.
pub const NAME: &CStr = c"agent-mux-read-only";

/// The default VFS this one delegates to (a `*mut` kept as an address: it lives for the process).
static DEFAULT: OnceLock<usize> = OnceLock::new();

/// Register the VFS once; `Err` carries SQLite's code when it cannot be.
pub fn ensure_registered() -> Result<&'static CStr, c_int> {
    static REGISTERED: OnceLock<c_int> = OnceLock::new();
    // SAFETY: `register`'s contract: the OnceLock runs it once per process.
    let rc = *REGISTERED.get_or_init(|| unsafe { register() });
    if rc == ffi::SQLITE_OK {
        Ok(NAME)
    } else {
        Err(rc)
    }
}

/// # Safety
/// Call once per process (a second call would register the name twice).
unsafe fn register() -> c_int {
    // SAFETY: a null name asks for the default VFS; SQLite initialises itself on this call.
    let default = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
    if default.is_null() {
        return ffi::SQLITE_ERROR;
    }
    let _ = DEFAULT.set(default as usize);
    // A copy of the default VFS (same pAppData, which its methods rely on) with our xOpen and
    // xDelete; leaked, since SQLite keeps the pointer for the life of the process.
    // SAFETY: `default` is non-null and points at a registered VFS, which SQLite never frees;
    // the struct is plain data (pointers and function pointers), so a bitwise copy is a valid one.
    let mut vfs: ffi::sqlite3_vfs = unsafe { std::ptr::read(default) };
    vfs.pNext = std::ptr::null_mut();
    vfs.zName = NAME.as_ptr();
    vfs.xOpen = Some(x_open);
    vfs.xDelete = Some(x_delete);
    // SAFETY: a leaked, fully initialised VFS whose name (a static) outlives it.
    unsafe { ffi::sqlite3_vfs_register(Box::into_raw(Box::new(vfs)), 0) }
}

fn default_vfs() -> *mut ffi::sqlite3_vfs {
    *DEFAULT.get().expect("registered before use") as *mut ffi::sqlite3_vfs
}

/// Files beside the database that a writer would own: never created, never opened for writing.
const SIDE_FILES: c_int =
    ffi::SQLITE_OPEN_WAL | ffi::SQLITE_OPEN_MAIN_JOURNAL | ffi::SQLITE_OPEN_SUPER_JOURNAL;

unsafe extern "C" fn x_open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    mut flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    if flags & (SIDE_FILES | ffi::SQLITE_OPEN_MAIN_DB) != 0 {
        flags &= !(ffi::SQLITE_OPEN_CREATE
            | ffi::SQLITE_OPEN_READWRITE
            | ffi::SQLITE_OPEN_EXCLUSIVE
            | ffi::SQLITE_OPEN_DELETEONCLOSE);
        flags |= ffi::SQLITE_OPEN_READONLY;
    }
    let default = default_vfs();
    // SAFETY: `default` is the registered default VFS, alive for the process; SQLite calls us
    // with the arguments its own xOpen expects, which are passed on unchanged but for `flags`.
    unsafe {
        match (*default).xOpen {
            Some(open) => open(default, name, file, flags, out_flags),
            None => ffi::SQLITE_CANTOPEN,
        }
    }
}

/// A reader deletes nothing (SQLite would delete a `-wal` beside an empty database, or a journal
/// it rolled back).
unsafe extern "C" fn x_delete(
    _vfs: *mut ffi::sqlite3_vfs,
    _name: *const c_char,
    _sync: c_int,
) -> c_int {
    ffi::SQLITE_IOERR_DELETE
}
