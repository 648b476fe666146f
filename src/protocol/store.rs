//! Crash-safe persistence of one phone's game: the log as an append-only
//! file of checked records, synced after every append, and the phone's dice
//! secret; both are created by write-to-temporary, sync and rename
//! ([`crate::durable`]), so a crash while creating them leaves no half file.
//!
//! A record is its length (4 bytes, little-endian), 4 check bytes (the start
//! of a SHA-256 of the payload) and the payload (postcard). The first record
//! of the log file is the signed header, each later one an entry. A crash in
//! the middle of an append leaves a short or unchecked last record; loading
//! stops there with an error that carries everything before it, and the
//! first write after that cuts the damage off (a copy of the file as it
//! was is kept in `log.damaged`).
//!
//! When an entry loses a conflict, the log up to its place and the winner
//! are written to a temporary file, synced and renamed over the log: whole
//! or not at all. A phone stopped or failing before the rename finds the
//! log as it was, with every entry it had, never an empty place where its
//! player could sign another act (which would read as cheating;
//! docs/protocol.md); after it, the log with the winner.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tracing::warn;

use super::dice::DiceSecret;
use super::digest::{Digest, Domain};
use super::event::Entry;
use super::header::{Header, HeaderError, SignedHeader};
use super::log::{Log, LogError};
use super::wire::MAX_MESSAGE;
use crate::durable;
use crate::rules::Colour;

const LOG_FILE: &str = "log";
const SECRET_FILE: &str = "secret";
/// A copy of the log as it was when damage was found in it, before the
/// first write cuts the damage off: nothing the phone could not read is
/// lost.
const DAMAGED_FILE: &str = "log.damaged";
/// Locked by the one [`Store`] open on a game ([`Open`]).
const LOCK_FILE: &str = "lock";
const HEAD_LEN: usize = 8;

/// This phone's part of a game that only it knows.
#[derive(Serialize, Deserialize)]
struct Secret {
    game: Digest,
    seat: Colour,
    dice: DiceSecret,
}

/// The files of one game on this phone.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    file: File,
    /// The end offset of each intact record (the header's first).
    ends: Vec<u64>,
    /// The file's length, which is longer than the last end while damage
    /// found on loading has not been cut off yet.
    file_len: u64,
    /// A replacement's rename is not synced yet: nothing is appended until
    /// it is (see [`Store::replace`]).
    unsynced_rename: bool,
    _open: Open,
}

/// A game loaded from disk.
#[derive(Debug)]
pub struct Restored {
    pub log: Log,
    pub seat: Colour,
    pub secret: DiceSecret,
    pub store: Store,
}

/// What is wrong with a record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Damage {
    #[error("the file ends inside the record")]
    Truncated,
    #[error("the record's length {0} is impossible")]
    Length(u32),
    #[error("the record's check bytes do not match")]
    Checksum,
    #[error("the record does not decode: {0}")]
    Undecodable(#[from] postcard::Error),
    #[error("the entry is not valid: {0}")]
    Rejected(#[from] LogError),
    /// Each record is the entry after the one before it; one for an
    /// earlier place (which could win it and drop what follows) is never
    /// written.
    #[error("the record holds entry {0}, not the next one")]
    OutOfPlace(u32),
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No game was ever saved in the folder (no dice secret, or a secret
    /// but no log: stopped while creating the game, before its header was
    /// on disk, so there is nothing to resume): the one case where a new
    /// game may be created there without losing one.
    #[error("{} holds no saved game", .path.display())]
    Empty { path: PathBuf },
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{} holds {saved} entries, so entry {index} cannot follow them", .path.display())]
    Behind {
        path: PathBuf,
        index: u32,
        saved: u32,
    },
    #[error("{} is open in another window or process", .path.display())]
    InUse { path: PathBuf },
    #[error("{} holds no game: {why}", .path.display())]
    NoGame { path: PathBuf, why: Damage },
    #[error("{}: this phone's dice secret is damaged: {why}", .path.display())]
    Secret { path: PathBuf, why: Damage },
    #[error("{} is the secret of another game", .path.display())]
    OtherGame { path: PathBuf },
    #[error("{}: the game's header is refused: {source}", .path.display())]
    Header { path: PathBuf, source: HeaderError },
    #[error(
        "{} is damaged at entry {index} (byte {offset}): {why}; the {index} entries before it are intact",
        .path.display()
    )]
    Corrupt {
        path: PathBuf,
        index: u32,
        offset: u64,
        why: Damage,
        intact: Box<Restored>,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_owned(),
        source,
    }
}

/// [`io_error`], except that a missing `path` in `dir` means no game was
/// saved there: a game is on disk once its log holds the header, and
/// [`Store::create`] writes the secret first.
fn missing_is_empty<'a>(
    dir: &'a Path,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> StoreError + 'a {
    move |source| match source.kind() {
        io::ErrorKind::NotFound => StoreError::Empty {
            path: dir.to_owned(),
        },
        _ => io_error(path)(source),
    }
}

fn record<T: Serialize>(value: &T) -> Vec<u8> {
    let payload = postcard::to_stdvec(value).expect("the log's types serialise to memory");
    let check = Digest::of(Domain::Record, &payload);
    let mut bytes = Vec::with_capacity(HEAD_LEN + payload.len());
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&check.0[..4]);
    bytes.extend_from_slice(&payload);
    bytes
}

/// The length its head gives the record at the start of `bytes`, head
/// included (whether or not the record is whole).
fn record_len(bytes: &[u8]) -> Option<usize> {
    let len: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    Some(HEAD_LEN + u32::from_le_bytes(len) as usize)
}

/// Reads the record at the start of `bytes`: its value and length.
fn read_record<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), Damage> {
    if bytes.len() < HEAD_LEN {
        return Err(Damage::Truncated);
    }
    let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if len as usize > MAX_MESSAGE {
        return Err(Damage::Length(len));
    }
    let end = HEAD_LEN + len as usize;
    let payload = bytes.get(HEAD_LEN..end).ok_or(Damage::Truncated)?;
    if Digest::of(Domain::Record, payload).0[..4] != bytes[4..HEAD_LEN] {
        return Err(Damage::Checksum);
    }
    Ok((postcard::from_bytes(payload)?, end))
}

/// The dice secret saved in `dir` (`Empty` without one).
fn read_secret(dir: &Path) -> Result<Secret, StoreError> {
    let path = dir.join(SECRET_FILE);
    let bytes = fs::read(&path).map_err(missing_is_empty(dir, &path))?;
    let (secret, _) = read_record(&bytes).map_err(|why| StoreError::Secret { path, why })?;
    Ok(secret)
}

/// A saved game's files as read, its header checked and nothing after it.
struct Saved {
    secret: Secret,
    /// The log file, open for reading (and writing if asked for).
    file: File,
    path: PathBuf,
    bytes: Vec<u8>,
    /// The log of the header alone.
    log: Log,
    /// Where the entries begin in `bytes`.
    entries: usize,
}

/// Reads the game saved in `dir` up to its entries: the secret, the log
/// file (open for writing too if `write`) and its header, which must be
/// the secret's game.
fn read_saved(dir: &Path, write: bool) -> Result<Saved, StoreError> {
    let secret = read_secret(dir)?;
    let path = dir.join(LOG_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(write)
        .open(&path)
        .map_err(missing_is_empty(dir, &path))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io_error(&path))?;
    let (header, entries) = header_of(&secret, &bytes, &path)?;
    let log = match Log::new(header) {
        Ok(log) => log,
        Err(source) => return Err(StoreError::Header { path, source }),
    };
    Ok(Saved {
        secret,
        file,
        path,
        bytes,
        log,
        entries,
    })
}

/// The header at the start of `bytes`, the log file at `path`, which must
/// be the game of `secret`, and the length of its record.
fn header_of(
    secret: &Secret,
    bytes: &[u8],
    path: &Path,
) -> Result<(SignedHeader, usize), StoreError> {
    let (header, len): (SignedHeader, usize) =
        read_record(bytes).map_err(|why| StoreError::NoGame {
            path: path.to_owned(),
            why,
        })?;
    if header.header.id() != secret.game {
        return Err(StoreError::OtherGame {
            path: path.to_owned(),
        });
    }
    Ok((header, len))
}

/// The folders of the games open in this process.
static OPEN: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// A game open in one store at a time. Two (two app windows, or two
/// `clovece join --data` on one folder) would each append at their own
/// end, and one could go on appending to a log the other renamed away,
/// then sign another act in the place of one it had sent (cheating, to
/// the others). Between processes [`LOCK_FILE`] is locked, where the
/// platform locks files; within this one the folder is in [`OPEN`] (so on
/// Android too, where the app is the one process).
///
/// A question whether a store has a game open takes the lock too, for a
/// moment: it holds [`OPEN`] meanwhile, as a store taking the game does, so
/// that a question on one thread never makes a store on another fail as
/// if the game were open elsewhere. (A question from another process still
/// can, for that moment: two windows of the app opening one game at once.)
#[derive(Debug)]
struct Open {
    dir: PathBuf,
    lock: Option<File>,
}

impl Open {
    /// The game in `dir`, unless a store has it open. A missing folder
    /// holds no game.
    fn take(dir: &Path) -> Result<Open, StoreError> {
        let mut open = open_games();
        let (dir, lock) = Open::lock(dir, &open)?;
        open.insert(dir.clone());
        Ok(Open { dir, lock })
    }

    /// Whether a store has the game in `dir` open.
    fn asked(dir: &Path) -> Result<bool, StoreError> {
        let open = open_games();
        match Open::lock(dir, &open) {
            Ok(_) => Ok(false),
            Err(StoreError::InUse { .. }) => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// Locks the lock file of `dir` if no store has the game open, of this
    /// process (`open`: [`OPEN`], held by the caller) or another; the
    /// folder's canonical path, and the lock.
    fn lock(dir: &Path, open: &BTreeSet<PathBuf>) -> Result<(PathBuf, Option<File>), StoreError> {
        let in_use = || StoreError::InUse {
            path: dir.to_owned(),
        };
        let path = dir.join(LOCK_FILE);
        let lock = durable::try_lock(&path).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock => in_use(),
            _ => missing_is_empty(dir, &path)(e),
        })?;
        let dir = fs::canonicalize(dir).map_err(io_error(dir))?;
        if open.contains(&dir) {
            return Err(in_use());
        }
        Ok((dir, lock))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        // The lock goes while [`OPEN`] is held, as it was taken.
        let mut open = open_games();
        self.lock = None;
        open.remove(&self.dir);
    }
}

fn open_games() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    OPEN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes a rename or a new file in `dir` durable.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    durable::sync_dir(dir).map_err(io_error(dir))
}

impl StoreError {
    /// Whether the files themselves hold no readable game (none saved, or
    /// damaged past reading), rather than one that cannot be read now (it
    /// is open elsewhere, or the file system failed) or one another
    /// version of the app saved ([`StoreError::is_other_version`]).
    pub fn is_damage(&self) -> bool {
        match self {
            StoreError::Header { .. } => !self.is_other_version(),
            StoreError::Empty { .. }
            | StoreError::NoGame { .. }
            | StoreError::Secret { .. }
            | StoreError::OtherGame { .. }
            | StoreError::Corrupt { .. } => true,
            StoreError::Io { .. } | StoreError::Behind { .. } | StoreError::InUse { .. } => false,
        }
    }

    /// Whether the game was saved whole by an app of another protocol or
    /// engine (updated since, or gone back from): nothing is damaged, but
    /// this version can neither check its moves nor play it on.
    pub fn is_other_version(&self) -> bool {
        matches!(
            self,
            StoreError::Header {
                source: HeaderError::Protocol { .. } | HeaderError::Engine { .. },
                ..
            }
        )
    }
}

impl Store {
    /// Creates the files of a new game in `dir` (and the folder): the
    /// secret first, then the log with the header.
    pub fn create(
        dir: &Path,
        header: &SignedHeader,
        seat: Colour,
        secret: &DiceSecret,
    ) -> Result<Store, StoreError> {
        let secret = Secret {
            game: header.header.id(),
            seat,
            dice: secret.clone(),
        };
        durable::create_folder(dir).map_err(io_error(dir))?;
        let open = Open::take(dir)?;
        // A game saved here before (a finished one: nothing else is
        // replaced) goes first, so that a crash before the new log is
        // written leaves no game (`Empty`), not the new secret beside the
        // old game's log, which no phone could open. The secret's write
        // flushes the folder, and this removal with it. A copy of its log
        // kept from damage goes with it.
        for path in [dir.join(LOG_FILE), dir.join(DAMAGED_FILE)] {
            match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_error(&path)(e)),
                _ => {}
            }
        }
        let path = dir.join(SECRET_FILE);
        durable::replace(&path, |file| file.write_all(&record(&secret)))
            .map_err(io_error(&path))?;

        let path = dir.join(LOG_FILE);
        let bytes = record(header);
        let file =
            durable::rename_over(&path, |file| file.write_all(&bytes)).map_err(io_error(&path))?;
        sync_dir(dir)?;
        let end = bytes.len() as u64;
        Ok(Store {
            dir: dir.to_owned(),
            file,
            ends: vec![end],
            file_len: end,
            unsynced_rename: false,
            _open: open,
        })
    }

    /// Whether a store, of this process or another, has the game in `dir`
    /// open: it is being played (in another window, say), so neither
    /// offered to resume nor given up.
    pub fn in_use(dir: &Path) -> bool {
        matches!(Open::asked(dir), Ok(true))
    }

    /// Whether `dir` holds a game whose creation was cut short (the app
    /// stopped after its secret and before its log with the header were
    /// written) that no store has open: nothing was saved, nothing is
    /// being created, and the folder can go.
    pub fn cut_short(dir: &Path) -> bool {
        !dir.join(LOG_FILE).exists() && matches!(Open::asked(dir), Ok(false))
    }

    /// The id of the game saved in `dir`, from its dice secret alone (no
    /// entry is read): to see cheaply whether it is a game already known.
    pub fn game_id(dir: &Path) -> Result<Digest, StoreError> {
        Ok(read_secret(dir)?.game)
    }

    /// [`Store::open`], but a game damaged at its end is the part before
    /// the damage, as for a game to be recorded or given up: what its
    /// player saw of it, all there is to count.
    pub fn open_intact(dir: &Path) -> Result<Restored, StoreError> {
        match Store::open(dir) {
            Err(StoreError::Corrupt { intact, .. }) => Ok(*intact),
            opened => opened,
        }
    }

    /// The header of the game saved in `dir`, checked, its entries neither
    /// read nor checked: what the game is, cheaply (checking every entry
    /// again replays every computer move).
    pub fn header(dir: &Path) -> Result<SignedHeader, StoreError> {
        Ok(read_saved(dir, false)?.log.header().clone())
    }

    /// The header of the game saved in `dir` and this phone's seat in it,
    /// by whichever version of the app it was saved: neither the header's
    /// signatures nor the entries are checked. For what this phone's own
    /// files say of a game another version saved (its player's leave),
    /// when [`Store::header`] refuses it ([`StoreError::is_other_version`]).
    pub fn seat_as_saved(dir: &Path) -> Result<(Header, Colour), StoreError> {
        let secret = read_secret(dir)?;
        let path = dir.join(LOG_FILE);
        let bytes = fs::read(&path).map_err(missing_is_empty(dir, &path))?;
        let (signed, _) = header_of(&secret, &bytes, &path)?;
        Ok((signed.header, secret.seat))
    }

    /// When the log saved in `dir` last changed, if the file system says
    /// (the other files of the game change when it is only resumed).
    pub fn last_change(dir: &Path) -> Option<std::time::SystemTime> {
        std::fs::metadata(dir.join(LOG_FILE)).ok()?.modified().ok()
    }

    /// Loads the game saved in `dir`, checking every entry again.
    pub fn open(dir: &Path) -> Result<Restored, StoreError> {
        let open = Open::take(dir)?;
        let Saved {
            secret,
            file,
            path,
            bytes,
            mut log,
            entries: mut at,
        } = read_saved(dir, true)?;
        let mut ends = vec![at as u64];
        let mut damage = None;
        while at < bytes.len() {
            let loaded = read_record::<Entry>(&bytes[at..]).and_then(|(entry, len)| {
                if entry.index != log.len() {
                    return Err(Damage::OutOfPlace(entry.index));
                }
                log.offer(entry).map(|_| len).map_err(Damage::from)
            });
            match loaded {
                Ok(len) => {
                    at += len;
                    ends.push(at as u64);
                }
                Err(why) => {
                    damage = Some((at as u64, why));
                    break;
                }
            }
        }
        let intact = log.len();
        let store = Store {
            dir: dir.to_owned(),
            file,
            ends,
            file_len: bytes.len() as u64,
            // A replacement's rename before a restart of the app may not
            // have been synced: the first write syncs it.
            unsynced_rename: true,
            _open: open,
        };
        let restored = Restored {
            log,
            seat: secret.seat,
            secret: secret.dice,
            store,
        };
        match damage {
            None => Ok(restored),
            Some((offset, why)) => {
                // The first write cuts the damage off, and intact entries
                // behind damage in the middle (a flipped bit) with them.
                // So does a record cut short: most often the end of a
                // crash while appending, which holds nothing to keep, but
                // a flipped bit in a length in the middle reads the same;
                // and so is a last record of zeros from its first byte (the
                // file grew, but the power went before its data was
                // written), or one whose check fails and that ends where
                // the file does (torn after a block of its data reached
                // the disk). Such a copy holds nothing past the intact
                // part but that record, so it does not replace one kept
                // before, which may hold what a flip cut off. Kept as far
                // as the disk allows (a full one may be why the log is
                // damaged): the game goes on from its intact part anyway.
                let kept = dir.join(DAMAGED_FILE);
                let tail = usize::try_from(offset)
                    .ok()
                    .and_then(|offset| bytes.get(offset..))
                    .unwrap_or_default();
                let crash = why == Damage::Truncated
                    || tail.iter().all(|&b| b == 0)
                    || (why == Damage::Checksum && record_len(tail) == Some(tail.len()));
                if (!crash || !kept.exists())
                    && let Err(e) = durable::replace(&kept, |file| file.write_all(&bytes))
                {
                    warn!(
                        "cannot keep a copy of the damaged log in {}: {e}",
                        kept.display()
                    );
                }
                Err(StoreError::Corrupt {
                    path,
                    index: intact,
                    offset,
                    why,
                    intact: Box::new(restored),
                })
            }
        }
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join(LOG_FILE)
    }

    /// Number of entries saved.
    pub fn len(&self) -> u32 {
        self.ends.len() as u32 - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Puts `entry` in its place, dropping the entries saved from there on,
    /// whole or not at all: the log up to the place and `entry` are written
    /// to a temporary file, synced and renamed over the log. An error means
    /// the file is as it was, with every entry it held.
    pub fn replace(&mut self, entry: &Entry) -> Result<(), StoreError> {
        let place = self.place(entry)?;
        let path = self.log_path();
        let mut bytes = fs::read(&path).map_err(io_error(&path))?;
        bytes.truncate(self.ends[place] as usize);
        bytes.extend_from_slice(&record(entry));
        self.file =
            durable::rename_over(&path, |file| file.write_all(&bytes)).map_err(io_error(&path))?;
        self.ends.truncate(place + 1);
        self.file_len = bytes.len() as u64;
        self.ends.push(self.file_len);
        // Renamed, the new log is the file, so a failed sync is no error
        // here: a power cut that undid the rename would bring the old log
        // back whole, and the entry would win again when it came again.
        // But an act appended to the new file and sent could be lost with
        // the rename, and the phone could then sign another act in its
        // place: so the next write syncs the rename first, or fails.
        self.unsynced_rename = sync_dir(&self.dir).is_err();
        Ok(())
    }

    /// Cuts the file back to its last intact record.
    fn cut(&mut self) -> Result<(), StoreError> {
        let end = self.ends.last().copied().unwrap_or(0);
        if self.file_len != end {
            let path = self.log_path();
            self.file
                .set_len(end)
                .and_then(|()| self.file.sync_data())
                .map_err(io_error(&path))?;
            self.file_len = end;
        }
        Ok(())
    }

    /// Saves `entry` at the end of the log, in its place, and syncs it to
    /// disk. Entries saved after that place are dropped: they were taken
    /// out of the log when a later save failed (`Phone` keeps its log no
    /// longer than the file).
    pub fn append(&mut self, entry: &Entry) -> Result<(), StoreError> {
        let place = self.place(entry)?;
        self.ends.truncate(place + 1);
        self.write(entry)
    }

    /// Where `entry` goes: its index, when the file holds every entry
    /// before it (never after a gap).
    fn place(&self, entry: &Entry) -> Result<usize, StoreError> {
        let saved = self.ends.len() - 1;
        let place = entry.index as usize;
        if place > saved {
            return Err(StoreError::Behind {
                path: self.log_path(),
                index: entry.index,
                saved: saved as u32,
            });
        }
        Ok(place)
    }

    fn write(&mut self, entry: &Entry) -> Result<(), StoreError> {
        if self.unsynced_rename {
            sync_dir(&self.dir)?;
            self.unsynced_rename = false;
        }
        self.cut()?;
        let path = self.log_path();
        let bytes = record(entry);
        let end = self.file_len;
        let written =
            write_at_end(&mut self.file, end, &bytes).and_then(|()| self.file.sync_data());
        if let Err(source) = written {
            // Whatever part was written is cut off by the next write.
            self.file_len = end + bytes.len() as u64;
            return Err(StoreError::Io { path, source });
        }
        self.file_len = end + bytes.len() as u64;
        self.ends.push(self.file_len);
        Ok(())
    }
}

fn write_at_end(file: &mut File, end: u64, bytes: &[u8]) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(end))?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::sim::{Config, Table};
    use crate::rules::Seats;

    /// A record in its place holding an entry the rules refuse (here one
    /// whose hash of the entry before is wrong) is damage; the game loads
    /// up to it. (Records out of place are `tests/protocol_store.rs`'s.)
    #[test]
    fn an_entry_in_its_place_that_the_rules_refuse_is_damage() {
        let mut table = Table::new(&Config::new(1, Seats::for_players(2).unwrap())).unwrap();
        while table.log().len() < 6 {
            assert!(table.step());
        }
        let dir = tempfile::tempdir().unwrap();
        let secret = DiceSecret::from_bytes([1; 32]);
        let header = table.log().header();
        let mut store = Store::create(dir.path(), header, Colour::Red, &secret).unwrap();
        let entries = table.log().entries();
        for entry in &entries[..5] {
            store.append(entry).unwrap();
        }
        drop(store);
        let forged = Entry {
            prev: Digest([9; 32]),
            ..entries[5].clone()
        };
        let path = dir.path().join(LOG_FILE);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(&record(&forged)).unwrap();
        match Store::open(dir.path()) {
            Err(StoreError::Corrupt { why, intact, .. }) => {
                assert!(matches!(why, Damage::Rejected(_)), "{why}");
                assert_eq!(intact.log.len(), 5);
            }
            other => panic!("{:?}", other.map(|r| r.log.len())),
        }
    }
}
