//! Replacing a small file whole or not at all, for the files a player
//! would miss (settings, statistics): the new content goes to a temporary
//! file beside it, is flushed to disk and renamed over it, and the rename
//! is flushed too, so that a crash leaves the old file or the new one and
//! a power cut does not bring the old one back.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// Replaces the file at `path` (creating its folder) with what `write`
/// writes.
pub fn replace(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut temp = path.to_owned().into_os_string();
    temp.push(".tmp");
    let temp = PathBuf::from(temp);
    let mut file = File::create(&temp)?;
    write(&mut file)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, path)?;
    File::open(dir).and_then(|d| d.sync_all())
}
