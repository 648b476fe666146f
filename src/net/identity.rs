//! The player's libp2p identity: an ed25519 key kept in the data folder, so
//! that a phone keeps its `PeerId` (and with it its seat in a saved game)
//! across restarts.
//!
//! The file holds libp2p's own protobuf encoding of the key. It is written
//! once, crash-safely: to a temporary file, synced, renamed over the final
//! name, and the folder synced, so that a crash leaves either no key or a
//! whole one. A file that does not decode is never replaced silently: that
//! would turn the player into a stranger to their own saved game.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use libp2p::identity::Keypair;

/// The key's file name inside the data folder.
pub const KEY_FILE: &str = "identity.key";

/// Held while the key is made ([`load_or_create`]).
const LOCK_FILE: &str = "identity.key.lock";

/// The largest key file read: a protobuf-encoded ed25519 key is 68 bytes.
const MAX_KEY_FILE: u64 = 4096;

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{} is not a valid identity key ({why}); move it away to start as a new player",
        .path.display()
    )]
    Corrupt { path: PathBuf, why: String },
    #[error("{} holds a {kind} key; clovece players need an ed25519 key", .path.display())]
    NotEd25519 { path: PathBuf, kind: String },
}

impl IdentityError {
    /// Whether there is no key file yet: a player who has not played.
    pub fn is_missing(&self) -> bool {
        matches!(self, IdentityError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> IdentityError + '_ {
    move |source| IdentityError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The identity kept in `dir`, made (and the folder created) on first use.
/// Made under a lock ([`LOCK_FILE`] between processes where the platform
/// locks files, a mutex within this one): two processes (or threads)
/// starting at once for the first time would each make a key, the last
/// renamed over the first, and the other would play as a player no file
/// keeps, a stranger to its own saved game after a restart.
pub fn load_or_create(dir: &Path) -> Result<Keypair, IdentityError> {
    let path = dir.join(KEY_FILE);
    let missing = |loaded: &Result<Keypair, IdentityError>| {
        loaded.as_ref().is_err_and(IdentityError::is_missing)
    };
    let loaded = load(&path);
    if !missing(&loaded) {
        return loaded;
    }
    static MAKING: Mutex<()> = Mutex::new(());
    let _making = MAKING.lock().unwrap_or_else(PoisonError::into_inner);
    crate::durable::create_folder(dir).map_err(io_error(dir))?;
    let lock = dir.join(LOCK_FILE);
    let _held = crate::durable::lock(&lock).map_err(io_error(&lock))?;
    // Made meanwhile by whoever held the lock before.
    let loaded = load(&path);
    if !missing(&loaded) {
        return loaded;
    }
    let keypair = Keypair::generate_ed25519();
    save(dir, &keypair)?;
    Ok(keypair)
}

/// Reads the key at `path`.
pub fn load(path: &Path) -> Result<Keypair, IdentityError> {
    let len = fs::metadata(path).map_err(io_error(path))?.len();
    if len > MAX_KEY_FILE {
        return Err(IdentityError::Corrupt {
            path: path.to_owned(),
            why: format!("{len} bytes, far more than a key"),
        });
    }
    let bytes = fs::read(path).map_err(io_error(path))?;
    let keypair = Keypair::from_protobuf_encoding(&bytes).map_err(|e| IdentityError::Corrupt {
        path: path.to_owned(),
        why: e.to_string(),
    })?;
    if keypair.key_type() != libp2p::identity::KeyType::Ed25519 {
        return Err(IdentityError::NotEd25519 {
            path: path.to_owned(),
            kind: keypair.key_type().to_string(),
        });
    }
    Ok(keypair)
}

/// Writes `keypair` into `dir` (creating it), whole or not at all, readable
/// by its owner only ([`crate::durable::replace`]).
fn save(dir: &Path, keypair: &Keypair) -> Result<(), IdentityError> {
    let path = dir.join(KEY_FILE);
    let bytes = keypair
        .to_protobuf_encoding()
        .expect("an ed25519 key encodes");
    crate::durable::create_folder(dir).map_err(io_error(dir))?;
    crate::durable::replace(&path, |file| file.write_all(&bytes)).map_err(io_error(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_starting_at_once_for_the_first_time_make_one_key() {
        let dir = tempfile::tempdir().unwrap();
        let start = std::sync::Barrier::new(8);
        let ids: Vec<_> = std::thread::scope(|s| {
            let made: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        load_or_create(dir.path()).unwrap().public().to_peer_id()
                    })
                })
                .collect();
            made.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let kept = load(&dir.path().join(KEY_FILE))
            .unwrap()
            .public()
            .to_peer_id();
        assert!(ids.iter().all(|&id| id == kept), "{ids:?} vs {kept}");
    }

    #[test]
    fn identity_is_kept_across_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path()).unwrap();
        let again = load_or_create(dir.path()).unwrap();
        assert_eq!(first.public().to_peer_id(), again.public().to_peer_id());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "the key and its lock, no temporary file"
        );
    }

    #[test]
    fn identity_folder_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        load_or_create(&nested).unwrap();
        assert!(nested.join(KEY_FILE).is_file());
    }

    #[test]
    fn corrupt_identity_is_a_clear_error_and_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE);
        fs::write(&path, b"not a key").unwrap();
        let err = load_or_create(dir.path()).unwrap_err();
        assert!(matches!(err, IdentityError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("identity.key"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"not a key");
    }

    #[test]
    fn oversized_identity_file_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(KEY_FILE), vec![0u8; 1 << 20]).unwrap();
        let err = load_or_create(dir.path()).unwrap_err();
        assert!(matches!(err, IdentityError::Corrupt { .. }), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn identity_file_is_private() {
        use std::os::unix::fs::PermissionsExt;
        crate::durable::tests::usual_umask();
        let dir = tempfile::tempdir().unwrap();
        load_or_create(dir.path()).unwrap();
        let mode = fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0);
    }
}
