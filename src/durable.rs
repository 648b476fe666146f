//! Replacing a file whole or not at all, for the files a player would miss
//! (the identity key, settings, statistics, a game's log, dice secret and
//! address book): the new content goes to a temporary file beside it, is
//! flushed to disk and renamed over it, and the rename is flushed too, so
//! that a crash leaves the old file or the new one and a power cut does
//! not bring the old one back.
//!
//! Every such file is its owner's alone (mode 0600 on Unix): one holds the
//! player's private key, another the secret their dice are drawn from.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old a temporary file must be for [`sweep`] to remove it: a younger
/// one may be a write under way in another window of the app.
const STALE: Duration = Duration::from_secs(60);

/// The platform's data folder for clovece (e.g. `~/.local/share/clovece`
/// on Linux, Application Support on iOS), where these files live unless
/// `--data` or the platform (Android) names another.
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "clovece").map(|d| d.data_dir().to_owned())
}

/// Replaces the file at `path` with what `write` writes. Its folder must
/// exist ([`create_folder`]): a late write into a folder removed meanwhile
/// (a game recorded and cleared away) fails rather than bringing it back.
pub fn replace(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    rename_over(path, write)?;
    sync_dir(folder(path))
}

/// [`replace`] without flushing the rename, for a caller that keeps
/// writing to the file: returns it, open for reading and writing. Until
/// the caller flushes the rename ([`sync_dir`]), a power cut may undo it,
/// leaving the old file, whole.
pub fn rename_over(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<File> {
    // A temporary name of its own for each write: two processes replacing
    // one file at once (two windows on one data folder) would otherwise
    // write into the same temporary file, and rename the other's half.
    // Created for its owner alone (tempfile's default on Unix: 0600); a
    // failed write's temporary file is removed when dropped.
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".");
    let mut temp = tempfile::Builder::new()
        .prefix(&name)
        .suffix(".tmp")
        .tempfile_in(folder(path))?;
    write(temp.as_file_mut())?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)
}

/// Removes from `dir` the temporary files of writes that a process
/// killed mid-write left (`<name>.<random>.tmp`, [`rename_over`]'s), once
/// they are a minute old: nothing else would, and the app rewrites the
/// game on this device at every step. Best effort: what cannot be read or
/// removed stays.
pub fn sweep(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let temporary = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.ends_with(".tmp"));
        let stale = entry.metadata().is_ok_and(|m| {
            m.is_file()
                && m.modified()
                    .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age >= STALE))
        });
        if temporary && stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Flushes the folder `dir`, which makes a rename or a new file in it
/// durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir).and_then(|d| d.sync_all())
}

/// Creates the folder `dir` and those missing above it, flushing the
/// folder each new one is in: otherwise a power cut could lose a new
/// folder with the files already flushed into it.
pub fn create_folder(dir: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut at = dir;
    while !at.exists() && folder(at) != at {
        missing.push(at);
        at = folder(at);
    }
    fs::create_dir_all(dir)?;
    missing.iter().try_for_each(|new| sync_dir(folder(new)))
}

/// The file at `path` (created for its owner alone if missing), open for
/// adding to its end, for a copy kept beside a file damaged past reading.
pub fn append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    owners_alone(&mut options);
    options.open(path)
}

/// An exclusive lock on the lock file at `path` (created if missing),
/// between processes and between two opens in one process, held until the
/// returned file is dropped; waits for another holder to let go. `None`
/// where the platform does not lock files (the standard library does not
/// on Android before Rust 1.98).
pub fn lock(path: &Path) -> io::Result<Option<File>> {
    locked(path, |file| file.lock())
}

/// [`lock`] without waiting: an error of kind `WouldBlock` while another
/// holds it.
pub fn try_lock(path: &Path) -> io::Result<Option<File>> {
    locked(path, |file| {
        file.try_lock().map_err(|e| match e {
            TryLockError::Error(e) => e,
            TryLockError::WouldBlock => io::ErrorKind::WouldBlock.into(),
        })
    })
}

fn locked(path: &Path, lock: impl FnOnce(&File) -> io::Result<()>) -> io::Result<Option<File>> {
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    owners_alone(&mut options);
    let file = options.open(path)?;
    match lock(&file) {
        Ok(()) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::Unsupported => Ok(None),
        Err(e) => Err(e),
    }
}

/// A file `options` creates is its owner's alone.
fn owners_alone(options: &mut OpenOptions) {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    #[cfg(not(unix))]
    let _ = options;
}

fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom, Write};

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        replace(&path, |file| file.write_all(b"old")).unwrap();

        let failed = replace(&path, |file| {
            file.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });

        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    /// Two windows of the app on one data folder may save their settings
    /// at the same moment: each write lands whole or not at all.
    #[test]
    fn writers_at_once_never_mix_their_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let contents: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 64 * 1024]).collect();
        std::thread::scope(|threads| {
            for content in &contents {
                let (path, contents) = (&path, &contents);
                threads.spawn(move || {
                    for _ in 0..20 {
                        replace(path, |file| file.write_all(content)).unwrap();
                        let read = fs::read(path).unwrap();
                        assert!(contents.contains(&read), "a mixed file");
                    }
                });
            }
        });
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    /// What a process killed mid-write left goes, once it is old enough
    /// not to be another window's write under way.
    #[test]
    fn a_sweep_removes_stale_temporary_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, age: u64| {
            let path = dir.path().join(name);
            let f = File::create(&path).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(age))
                .unwrap();
            path
        };
        let left = file("local-game.a1B2c3.tmp", 3600);
        let writing = file("settings.json.x9Y8z7.tmp", 1);
        let kept = file("local-game", 3600);
        fs::create_dir(dir.path().join("old.tmp")).unwrap();
        sweep(dir.path());
        assert!(!left.exists());
        assert!(writing.exists() && kept.exists());
        assert!(dir.path().join("old.tmp").is_dir(), "files only");
    }

    #[test]
    fn the_renamed_file_stays_open_for_more() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        replace(&path, |file| file.write_all(b"old log")).unwrap();

        let mut file = rename_over(&path, |file| file.write_all(b"new")).unwrap();
        file.write_all(b" log").unwrap();
        sync_dir(dir.path()).unwrap();

        assert_eq!(fs::read(&path).unwrap(), b"new log");
        let mut read = String::new();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.read_to_string(&mut read).unwrap();
        assert_eq!(read, "new log");
    }

    #[test]
    fn a_write_into_a_removed_folder_fails_without_bringing_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("game");
        assert!(replace(&gone.join("ended"), |_| Ok(())).is_err());
        assert!(!gone.exists());
    }

    /// Lets files be created readable by others, as the usual umask does:
    /// under a umask that already forbids it, a file the app left open to
    /// others would look private to the tests too. (The whole process's,
    /// and no test needs another.)
    #[cfg(unix)]
    pub(crate) fn usual_umask() {
        // SAFETY: umask only sets the process's file creation mask.
        unsafe { libc::umask(0o022) };
    }

    #[cfg(unix)]
    #[test]
    fn only_the_owner_can_read() {
        use std::os::unix::fs::PermissionsExt;
        usual_umask();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        replace(&path, |file| file.write_all(b"dice")).unwrap();
        let kept = dir.path().join("kept.damaged");
        append(&kept).unwrap().write_all(b"torn").unwrap();
        for path in [path, kept] {
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "{}: {mode:o}", path.display());
        }
    }

    #[test]
    fn a_lock_is_refused_while_another_stands_and_given_when_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = lock(&path).unwrap();
        assert!(first.is_some(), "this platform locks files");

        let second = try_lock(&path);
        assert_eq!(second.unwrap_err().kind(), io::ErrorKind::WouldBlock);

        drop(first);
        assert!(try_lock(&path).unwrap().is_some());
    }

    #[test]
    fn missing_folders_are_created_and_a_file_in_the_way_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a").join("b").join("c");
        create_folder(&deep).unwrap();
        assert!(deep.is_dir());
        create_folder(&deep).unwrap();

        let file = dir.path().join("file");
        fs::write(&file, b"").unwrap();
        assert!(create_folder(&file.join("below")).is_err());
    }
}
