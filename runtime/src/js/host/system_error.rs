//! Operating-system errors as Node shows them: the one place a Rust `io::Error` becomes a JS
//! error with Node's `code` (`ENOENT`), `errno` (-2), `syscall` (`open`), `path` (and `dest`),
//! and Node's message shape, `ENOENT: no such file or directory, open '/x'`.
//!
//! The errors are `OpError`s of class `System`: an async op rejects with one (the TS twin
//! rebuilds the Error with the caller's frames); the engine throws one from a sync op at once,
//! in Node's shape.

use std::io;
use std::path::Path;

use crate::js::engine::OpError;

/// libuv's name and text for each errno awf may meet (Node prints these).
const ERRNOS: &[(i32, &str, &str)] = &[
    (libc::EPERM, "EPERM", "operation not permitted"),
    (libc::ENOENT, "ENOENT", "no such file or directory"),
    (libc::ESRCH, "ESRCH", "no such process"),
    (libc::EINTR, "EINTR", "interrupted system call"),
    (libc::EIO, "EIO", "i/o error"),
    (libc::E2BIG, "E2BIG", "argument list too long"),
    (libc::EBADF, "EBADF", "bad file descriptor"),
    (libc::EAGAIN, "EAGAIN", "resource temporarily unavailable"),
    (libc::ENOMEM, "ENOMEM", "not enough memory"),
    (libc::EACCES, "EACCES", "permission denied"),
    (libc::EBUSY, "EBUSY", "resource busy or locked"),
    (libc::EEXIST, "EEXIST", "file already exists"),
    (libc::EXDEV, "EXDEV", "cross-device link not permitted"),
    (libc::ENOTDIR, "ENOTDIR", "not a directory"),
    (libc::EISDIR, "EISDIR", "illegal operation on a directory"),
    (libc::EINVAL, "EINVAL", "invalid argument"),
    (libc::EMFILE, "EMFILE", "too many open files"),
    (libc::ETXTBSY, "ETXTBSY", "text file is busy"),
    (libc::EFBIG, "EFBIG", "file too large"),
    (libc::ENOSPC, "ENOSPC", "no space left on device"),
    (libc::EROFS, "EROFS", "read-only file system"),
    (libc::EMLINK, "EMLINK", "too many links"),
    (libc::EPIPE, "EPIPE", "broken pipe"),
    (libc::ENAMETOOLONG, "ENAMETOOLONG", "name too long"),
    (libc::ENOTEMPTY, "ENOTEMPTY", "directory not empty"),
    (libc::ELOOP, "ELOOP", "too many symbolic links encountered"),
    (
        libc::ENOTSUP,
        "ENOTSUP",
        "operation not supported on socket",
    ),
    (libc::EADDRINUSE, "EADDRINUSE", "address already in use"),
    (
        libc::EADDRNOTAVAIL,
        "EADDRNOTAVAIL",
        "address not available",
    ),
    (libc::ENETUNREACH, "ENETUNREACH", "network is unreachable"),
    (
        libc::ECONNABORTED,
        "ECONNABORTED",
        "software caused connection abort",
    ),
    (libc::ECONNRESET, "ECONNRESET", "connection reset by peer"),
    (libc::ETIMEDOUT, "ETIMEDOUT", "connection timed out"),
    (libc::ENOBUFS, "ENOBUFS", "no buffer space available"),
    (libc::ECONNREFUSED, "ECONNREFUSED", "connection refused"),
    (libc::EHOSTUNREACH, "EHOSTUNREACH", "host is unreachable"),
];

/// Node's code and text for an OS error number; `EUNKNOWN` for one not in the table.
pub fn describe_errno(errno: i32) -> (&'static str, &'static str) {
    ERRNOS
        .iter()
        .find(|(n, _, _)| *n == errno)
        .map(|(_, code, text)| (*code, *text))
        .unwrap_or(("EUNKNOWN", "unknown error"))
}

/// The errno of an `io::Error`, also for the errors std makes without one.
fn errno_of(error: &io::Error) -> i32 {
    if let Some(n) = error.raw_os_error() {
        return n;
    }
    match error.kind() {
        io::ErrorKind::NotFound => libc::ENOENT,
        io::ErrorKind::PermissionDenied => libc::EACCES,
        io::ErrorKind::AlreadyExists => libc::EEXIST,
        io::ErrorKind::InvalidInput => libc::EINVAL,
        io::ErrorKind::ConnectionRefused => libc::ECONNREFUSED,
        io::ErrorKind::ConnectionReset => libc::ECONNRESET,
        io::ErrorKind::TimedOut => libc::ETIMEDOUT,
        io::ErrorKind::BrokenPipe => libc::EPIPE,
        io::ErrorKind::IsADirectory => libc::EISDIR,
        io::ErrorKind::NotADirectory => libc::ENOTDIR,
        io::ErrorKind::DirectoryNotEmpty => libc::ENOTEMPTY,
        _ => libc::EIO,
    }
}

/// A failed call of `syscall` on `path` (and `dest`, for rename, copyfile, link), as Node words it.
pub fn fs_error(error: &io::Error, syscall: &str, path: &Path, dest: Option<&Path>) -> OpError {
    errno_error(errno_of(error), syscall, Some(path), dest)
}

/// The same from an errno.
pub fn errno_error(errno: i32, syscall: &str, path: Option<&Path>, dest: Option<&Path>) -> OpError {
    let (code, text) = describe_errno(errno);
    let mut message = format!("{code}: {text}, {syscall}");
    let mut data = serde_json::Map::new();
    data.insert("errno".into(), (-errno).into());
    data.insert("syscall".into(), syscall.into());
    if let Some(path) = path {
        message.push_str(&format!(" '{}'", path.display()));
        data.insert("path".into(), path.display().to_string().into());
    }
    if let Some(dest) = dest {
        message.push_str(&format!(" -> '{}'", dest.display()));
        data.insert("dest".into(), dest.display().to_string().into());
    }
    OpError::system(code, message, serde_json::Value::Object(data))
}

/// A failed spawn of `file`: Node's `spawn git ENOENT`.
pub fn spawn_error(error: &io::Error, syscall: &str, file: &str) -> OpError {
    process_error(errno_of(error), syscall, file)
}

/// A child process that failed in `syscall` (`spawn`, `spawnSync`): `spawnSync sh ETIMEDOUT`.
pub fn process_error(errno: i32, syscall: &str, file: &str) -> OpError {
    let (code, _) = describe_errno(errno);
    let syscall = format!("{syscall} {file}");
    OpError::system(
        code,
        format!("{syscall} {code}"),
        serde_json::json!({
            "errno": -errno,
            "syscall": syscall,
            "path": file,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_nodes_shape() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        let error = fs_error(&e, "open", Path::new("/x"), None);
        assert_eq!(error.code, "ENOENT");
        assert_eq!(
            error.message,
            "ENOENT: no such file or directory, open '/x'"
        );
        assert_eq!(
            error.data.as_deref().cloned(),
            Some(serde_json::json!({ "errno": -2, "syscall": "open", "path": "/x" }))
        );
        let e = io::Error::from_raw_os_error(libc::EXDEV);
        let error = fs_error(&e, "rename", Path::new("/a"), Some(Path::new("/b")));
        assert_eq!(
            error.message,
            "EXDEV: cross-device link not permitted, rename '/a' -> '/b'"
        );
    }

    #[test]
    fn errors_without_an_errno_get_one_from_their_kind() {
        let e = io::Error::new(io::ErrorKind::NotFound, "gone");
        assert_eq!(fs_error(&e, "stat", Path::new("/y"), None).code, "ENOENT");
    }

    #[test]
    fn spawn_errors_read_as_in_node() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        let error = spawn_error(&e, "spawn", "no-such-program");
        assert_eq!(error.message, "spawn no-such-program ENOENT");
        assert_eq!(error.code, "ENOENT");
    }
}
