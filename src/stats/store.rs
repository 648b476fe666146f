//! The statistics file: `stats.jsonl` in the data folder, one JSON
//! [`Record`] a line. Each change rewrites the whole file by
//! write-to-temporary, fsync, rename and fsync of the folder, so a crash
//! leaves either the old file or the new one. A line that is not a record
//! is reported by number and skipped. Every line is written back as it was
//! read, so a record of a newer version (a field or an outcome this one
//! does not know) survives an older app; a line that is not a JSON object (a
//! disk error, a torn write) is dropped, but before the next write
//! replaces such a file, it is added to the end of `stats.jsonl.damaged`
//! beside it, so nothing is lost.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::record::{GivenUp, Outcome, Record};
use crate::net::book::Book;
use crate::net::game::Finished;
use crate::protocol::store::Restored;

/// The file's name in the data folder.
pub const FILE: &str = "stats.jsonl";

#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    #[error("cannot read the statistics file {0}: {1}")]
    Read(PathBuf, io::Error),
    #[error("cannot write the statistics file {0}: {1}")]
    Write(PathBuf, io::Error),
}

/// The file as read: the records that could be read, and the numbers
/// (from 1) of the lines that could not.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<Record>,
    pub damaged: Vec<usize>,
    /// The lines the next write keeps, as they were read: every record,
    /// with any field a newer version wrote that this one does not know,
    /// and every line that is a JSON object but no record this version
    /// reads (a newer version's outcome, say), so that going back to an
    /// older app loses nothing of the newer one's.
    lines: Vec<Vec<u8>>,
    /// The games of the lines kept but not read: recorded already, even
    /// if this version cannot show them.
    unread: Vec<String>,
    /// Some line is not a JSON object (a torn write, a disk error): the
    /// next write drops it, after keeping the file as it was.
    torn: bool,
}

impl Loaded {
    /// Whether the game `game` is in the file (shown or not).
    fn has(&self, game: &str) -> bool {
        let unread = self.unread.iter();
        self.records
            .iter()
            .map(|r| &r.game)
            .chain(unread)
            .any(|g| g == game)
    }
}

/// A writer's hold on the statistics file ([`Store::lock`]).
struct Lock {
    _file: Option<fs::File>,
    _writing: MutexGuard<'static, ()>,
}

/// The statistics file of one data folder.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    pub fn new(data: &Path) -> Store {
        Store {
            path: data.join(FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads every record that can be read; no file is no records.
    pub fn load(&self) -> Result<Loaded, StatsError> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loaded::default()),
            Err(e) => return Err(StatsError::Read(self.path.clone(), e)),
        };
        let mut loaded = Loaded::default();
        // A game's line given twice (two copies of the file joined)
        // counts once; the line stays as it is.
        let mut games = std::collections::HashSet::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Record>(line) {
                Ok(record)
                    if record
                        .players
                        .iter()
                        .all(|p| p.peer.parse::<libp2p::PeerId>().is_ok()) =>
                {
                    if games.insert(record.game.clone()) {
                        loaded.records.push(record);
                    }
                    loaded.lines.push(line.to_vec());
                }
                _ => {
                    loaded.damaged.push(i + 1);
                    match serde_json::from_slice::<serde_json::Map<_, _>>(line) {
                        Ok(object) => {
                            loaded.lines.push(line.to_vec());
                            if let Some(game) = object.get("game").and_then(|g| g.as_str()) {
                                loaded.unread.push(game.to_owned());
                            }
                        }
                        Err(_) => loaded.torn = true,
                    }
                }
            }
        }
        Ok(loaded)
    }

    /// Adds `record` unless its game is there already; whether it was
    /// added.
    pub fn add(&self, record: Record) -> Result<bool, StatsError> {
        let _lock = self.lock()?;
        let mut loaded = self.load()?;
        if loaded.has(&record.game) {
            return Ok(false);
        }
        if loaded.torn {
            self.keep_damaged()?;
        }
        let line = serde_json::to_vec(&record).expect("records serialise");
        loaded.lines.push(line);
        self.write(&loaded.lines)?;
        Ok(true)
    }

    /// Adds the game saved in the game folder `dir` if it is over for this
    /// player (it ended, or the player left it; up to any damage): a
    /// process stopped while it lingered at the end did not record it, and
    /// a new game would replace it. Nothing for a game still on, or a
    /// folder without a game this phone can read (whoever opens it next
    /// says why). Whether nothing is left to record: the game is in the
    /// statistics now (added, or there before), or it is over and counts
    /// in nobody's (one player and the computer).
    pub fn record_saved(&self, dir: &Path) -> Result<bool, StatsError> {
        use crate::protocol::store::Store;
        // Checking a whole saved game again replays every computer move
        // (docs/performance.md): not for a game recorded already.
        let Ok(id) = Store::game_id(dir) else {
            return Ok(false);
        };
        let id = super::record::game_id(id);
        if self.load()?.has(&id) {
            return Ok(true);
        }
        let Ok(saved) = Store::open_intact(dir) else {
            return Ok(false);
        };
        if !saved.log.over_for(saved.seat) {
            return Ok(false);
        }
        self.record_left(&saved, dir, GivenUp::OnPurpose)
            .map(|()| true)
    }

    /// Adds the game `saved` from the game folder `dir` (whose address
    /// book names its players) as its player leaves it: with its result if
    /// it is over, else as `how` says. Nothing for a game that counts in
    /// nobody's statistics (one player and the computer).
    pub fn record_left(
        &self,
        saved: &Restored,
        dir: &Path,
        how: GivenUp,
    ) -> Result<(), StatsError> {
        let names = Book::names_in(dir);
        if let Some(record) = Record::given_up(&saved.log, saved.seat, how, &names) {
            self.add(record)?;
        }
        Ok(())
    }

    /// Adds `mine` for this phone's player (seat `me`) in the game of
    /// `header` in the game folder `dir`, which another version of the app
    /// saved ([`Record::unread`]).
    pub fn record_unread(
        &self,
        header: &crate::protocol::Header,
        me: crate::rules::Colour,
        mine: Outcome,
        dir: &Path,
    ) -> Result<(), StatsError> {
        let names = Book::names_in(dir);
        if let Some(record) = Record::unread(header, me, mine, &names) {
            self.add(record)?;
        }
        Ok(())
    }

    /// Adds what `finished` tells about the players, if anything; whether
    /// a record was added.
    pub fn record(&self, finished: &Finished) -> Result<bool, StatsError> {
        match Record::of(finished) {
            Some(record) => self.add(record),
            None => Ok(false),
        }
    }

    /// Adds the file as it is now to the end of `stats.jsonl.damaged`,
    /// before a write drops its damaged lines: appended, so that an
    /// earlier damage kept there stays too.
    fn keep_damaged(&self) -> Result<(), StatsError> {
        let mut keep = self.path.clone().into_os_string();
        keep.push(".damaged");
        let keep = PathBuf::from(keep);
        let bytes = fs::read(&self.path).map_err(|e| StatsError::Read(self.path.clone(), e))?;
        crate::durable::append(&keep)
            .and_then(|mut file| {
                file.write_all(&bytes)?;
                file.sync_all()
            })
            .map_err(|e| StatsError::Write(keep, e))
    }

    /// The file's lock, held (until dropped) by one writer at a time from
    /// its reading to its writing: two writers at once (`clovece stats`
    /// beside a game that records its end, or two of the app's sessions)
    /// would each write back what they read, without the other's game.
    /// Within this process a mutex; between processes the lock file, where
    /// the platform locks files (the standard library does not on Android
    /// before Rust 1.98, where the app is the one process writing).
    fn lock(&self) -> Result<Lock, StatsError> {
        static WRITING: Mutex<()> = Mutex::new(());
        let writing = WRITING.lock().unwrap_or_else(PoisonError::into_inner);
        let mut path = self.path.clone().into_os_string();
        path.push(".lock");
        let path = PathBuf::from(path);
        let file = crate::durable::create_folder(self.folder())
            .and_then(|()| crate::durable::lock(&path))
            .map_err(|e| StatsError::Write(path, e))?;
        Ok(Lock {
            _file: file,
            _writing: writing,
        })
    }

    fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    fn write(&self, lines: &[Vec<u8>]) -> Result<(), StatsError> {
        crate::durable::create_folder(self.folder())
            .and_then(|()| {
                crate::durable::replace(&self.path, |file| {
                    lines.iter().try_for_each(|line| {
                        file.write_all(line)?;
                        file.write_all(b"\n")
                    })
                })
            })
            .map_err(|e| StatsError::Write(self.path.clone(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Outcome, Played};

    fn record(game: &str) -> Record {
        Record {
            game: game.to_owned(),
            rules: "classic".to_owned(),
            players: vec![Played {
                peer: libp2p::PeerId::random().to_base58(),
                name: "Ana".to_owned(),
                outcome: Outcome::Won,
                dice: [1; 6],
            }],
        }
    }

    #[test]
    fn records_survive_a_reload_and_a_game_is_recorded_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.load().unwrap().records.is_empty());
        assert!(store.add(record("a")).unwrap());
        assert!(store.add(record("b")).unwrap());
        assert!(!store.add(record("a")).unwrap());
        let loaded = store.load().unwrap();
        assert_eq!(loaded.records.len(), 2);
        assert!(loaded.damaged.is_empty());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "the statistics and their lock, no temporary file"
        );
    }

    /// Two writers at once (say `clovece stats` beside a game recording
    /// its end) keep every game: without the lock each wrote back what it
    /// had read, and most games were lost.
    #[test]
    fn a_game_whose_line_is_there_twice_counts_once_and_its_lines_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        store.add(record("a")).unwrap();
        let once = std::fs::read_to_string(store.path()).unwrap();
        std::fs::write(store.path(), once.repeat(2)).unwrap();
        let loaded = store.load().unwrap();
        assert_eq!((loaded.records.len(), loaded.lines.len()), (1, 2));
        assert!(loaded.damaged.is_empty());
    }

    #[test]
    fn two_writers_at_once_keep_every_game() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            for writer in 0..2 {
                let store = Store::new(dir.path());
                scope.spawn(move || {
                    for game in 0..25 {
                        assert!(store.add(record(&format!("{writer}-{game}"))).unwrap());
                    }
                });
            }
        });
        let loaded = Store::new(dir.path()).load().unwrap();
        assert_eq!((loaded.records.len(), loaded.damaged.len()), (50, 0));
    }

    #[test]
    fn damaged_lines_are_skipped_and_the_damaged_file_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        store.add(record("a")).unwrap();
        store.add(record("b")).unwrap();
        let mut text = fs::read_to_string(store.path()).unwrap();
        let torn = serde_json::to_string(&record("c")).unwrap();
        text.insert_str(0, "garbage\n");
        text.push_str(&torn[..torn.len() / 2]);
        fs::write(store.path(), &text).unwrap();
        let loaded = store.load().unwrap();
        assert_eq!(loaded.records.len(), 2);
        assert_eq!(loaded.damaged, vec![1, 4]);
        store.add(record("d")).unwrap();
        let kept = dir.path().join("stats.jsonl.damaged");
        assert_eq!(fs::read_to_string(&kept).unwrap(), text);
        let loaded = store.load().unwrap();
        assert_eq!(loaded.records.len(), 3);
        assert!(loaded.damaged.is_empty());
        // A second damage is kept after the first.
        let second = format!(
            "{}\nmore garbage\n",
            fs::read_to_string(store.path()).unwrap()
        );
        fs::write(store.path(), &second).unwrap();
        store.add(record("e")).unwrap();
        assert_eq!(fs::read_to_string(&kept).unwrap(), text + &second);
        assert_eq!(store.load().unwrap().records.len(), 4);
    }

    /// What a newer version wrote (a field, an outcome this one does not
    /// know) is written back as it was: going back to an older app loses
    /// nothing of it.
    #[test]
    fn a_newer_versions_lines_survive_a_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let mut field = serde_json::to_value(record("a")).unwrap();
        field["humans"] = 2.into();
        let mut outcome = serde_json::to_value(record("b")).unwrap();
        outcome["players"][0]["outcome"] = "conceded".into();
        let text = format!("{field}\n{outcome}\n");
        fs::write(store.path(), &text).unwrap();
        let loaded = store.load().unwrap();
        assert_eq!((loaded.records.len(), loaded.damaged), (1, vec![2]));
        store.add(record("c")).unwrap();
        // The game of the line it cannot read is recorded already.
        assert!(!store.add(record("b")).unwrap());
        let after = fs::read_to_string(store.path()).unwrap();
        assert!(after.starts_with(&text), "{after}");
        assert!(!dir.path().join("stats.jsonl.damaged").exists());
        assert_eq!(store.load().unwrap().records.len(), 2);
    }

    #[test]
    fn a_bad_peer_id_is_damage_not_a_player() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let mut bad = record("a");
        bad.players[0].peer = "not a peer".to_owned();
        fs::write(store.path(), serde_json::to_string(&bad).unwrap()).unwrap();
        assert_eq!(store.load().unwrap().damaged, vec![1]);
    }
}
