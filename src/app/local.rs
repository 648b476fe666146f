//! The game on this device, kept in the data folder after each roll and
//! move once a person has rolled in it: a phone's operating system kills
//! an app in the background when it wants the memory, and a game against
//! the computer or passed from hand to hand must not be lost with it. Home
//! offers to go on with it, and an app the system recreates reopens it. A
//! game that ends, or that its players leave, is no longer kept.
//!
//! The file holds the game's [`Record`] (its setup and every roll and move,
//! played again when it is read), in postcard after a format byte. One that
//! does not read (damaged, or another version's) is not offered, and is
//! set aside as `local-game.damaged` (the latest such file only) rather
//! than written over by the next game: a damaged one as Home finds it,
//! another version's only as the next game is kept, so that going back to
//! that version finds its game where it left it.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::offline::{OfflineGame, Record, ReplayError};

/// The format of the file: its first byte.
const FORMAT: u8 = 1;

/// Where the game on this device is kept.
pub struct GameFile {
    path: PathBuf,
}

impl GameFile {
    /// The file in the data folder `data`.
    pub fn in_folder(data: &Path) -> GameFile {
        GameFile {
            path: data.join("local-game"),
        }
    }

    /// Where a kept file that does not read is set aside.
    fn damaged(&self) -> PathBuf {
        self.path.with_extension("damaged")
    }

    /// Keeps `game` as it is now, once a person has rolled in it: a new
    /// game takes the place of the one kept before only when it is played,
    /// not when it is opened and left at once (while a computer that
    /// begins makes its first rolls). A game resumed from a position
    /// has no record and is not kept: whatever was kept before is removed,
    /// as it is not the game on the board. A failure is logged and
    /// returned, for the board to say: the game goes on, only not kept.
    ///
    /// The file is flushed but not its folder, which costs a second flush
    /// on every step: a power cut may lose the last steps, a killed app
    /// loses none.
    ///
    /// Whether the file now holds `game` (what an app the system recreates
    /// may reopen).
    pub fn save(&self, game: &OfflineGame) -> io::Result<bool> {
        let Some(record) = game.record() else {
            self.discard();
            return Ok(false);
        };
        if !record.started() {
            return Ok(false);
        }
        if self.foreign() {
            self.set_aside();
        }
        let folder = self.path.parent().unwrap_or(Path::new("."));
        let written = encode(record).map_err(io::Error::other).and_then(|bytes| {
            crate::durable::create_folder(folder)?;
            crate::durable::rename_over(&self.path, |file| file.write_all(&bytes)).map(drop)
        });
        if let Err(e) = &written {
            tracing::warn!("cannot keep the game on this device: {e}");
        }
        written.map(|()| true)
    }

    /// Whether a game is kept that reads (Home offers it); a damaged one
    /// is set aside. It is not played again here, as Home opens often;
    /// one that does not play is set aside when the player goes on with it.
    pub fn offered(&self) -> bool {
        self.bytes().is_some_and(|bytes| match decode(&bytes) {
            Ok(_) => true,
            Err(e) => {
                tracing::warn!("the game on this device is not offered: {e}");
                if !is_foreign(&bytes) {
                    self.set_aside();
                }
                false
            }
        })
    }

    /// Whether the kept file is another version's (its format byte).
    fn foreign(&self) -> bool {
        let mut first = [0];
        std::fs::File::open(&self.path)
            .and_then(|mut file| io::Read::read_exact(&mut file, &mut first))
            .is_ok_and(|()| is_foreign(&first))
    }

    /// Keeps no game any more, but the bytes of the one kept, which does
    /// not read or play (damaged, or another version's), as
    /// `local-game.damaged`.
    pub fn set_aside(&self) {
        if let Err(e) = std::fs::rename(&self.path, self.damaged()) {
            tracing::warn!("cannot set the damaged game on this device aside: {e}");
        }
    }

    /// The kept game, played again, or why it does not read or play
    /// (logged); none when there is none, or the file cannot be read now
    /// (which is no reason to drop it).
    pub fn load(&self) -> Option<Result<OfflineGame, ReadError>> {
        let game = read(&self.bytes()?);
        if let Err(e) = &game {
            tracing::warn!("the game on this device does not play again: {e}");
        }
        Some(game)
    }

    /// `game` ended, or its players left it: it is no longer kept. One
    /// that ends before a person rolled in it (the computer played every
    /// turn) never took the place of the game kept before, which stays;
    /// so does a game another window of the app keeps since (unless it is
    /// this one's beginning: the same setup and opening, and only rolls
    /// and moves this one began with).
    pub fn ended(&self, game: &OfflineGame) {
        let Some(record) = game.record() else {
            return self.discard();
        };
        let others = || {
            self.bytes()
                .and_then(|bytes| decode(&bytes).ok())
                .is_some_and(|kept| !kept.leads_to(record))
        };
        if record.started() && !others() {
            self.discard();
        }
    }

    /// Keeps no game any more (it ended, or was not kept).
    pub fn discard(&self) {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                tracing::warn!("cannot remove the game on this device: {e}");
            }
            _ => {}
        }
    }

    /// The kept file's bytes, if there is one (why it cannot be read is
    /// logged).
    fn bytes(&self) -> Option<Vec<u8>> {
        match std::fs::read(&self.path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                tracing::warn!("cannot read the game on this device: {e}");
                None
            }
        }
    }
}

/// Why a kept game is not offered.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not a game this version keeps")]
    Format,
    #[error("damaged: {0}")]
    Damaged(#[from] postcard::Error),
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// The bytes of the file that keeps `record`.
fn encode(record: &Record) -> Result<Vec<u8>, postcard::Error> {
    let mut bytes = vec![FORMAT];
    bytes.extend(postcard::to_allocvec(record)?);
    Ok(bytes)
}

/// Whether a kept file beginning with `bytes` is another version's.
fn is_foreign(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|&format| format != FORMAT)
}

/// The record a kept file's `bytes` hold.
fn decode(bytes: &[u8]) -> Result<Record, ReadError> {
    match bytes.split_first() {
        Some((&FORMAT, rest)) => Ok(postcard::from_bytes(rest)?),
        _ => Err(ReadError::Format),
    }
}

/// The game a kept file's `bytes` hold, played again.
pub fn read(bytes: &[u8]) -> Result<OfflineGame, ReadError> {
    Ok(OfflineGame::replay(decode(bytes)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::offline::{Player, Setup};
    use crate::bot::Level;
    use crate::protocol::header::TurnTimer;
    use crate::rules::{Die, HouseRules, Next, RuleSet};

    fn setup() -> Setup {
        Setup {
            players: vec![
                Player::Human { name: "Ana".into() },
                Player::Computer { level: Level::Easy },
            ],
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::None,
        }
    }

    /// A game with its first roll made.
    fn game() -> OfflineGame {
        let mut game = OfflineGame::new(setup(), || Die::SIX).unwrap();
        game.roll(Die::SIX).unwrap();
        game
    }

    /// A game of two computer players, sixty rolls and the moves between
    /// them: steps of every kind to change in the fuzz below.
    fn long_game() -> OfflineGame {
        let players = vec![Player::Computer { level: Level::Easy }; 2];
        let mut game = OfflineGame::new(Setup { players, ..setup() }, || Die::SIX).unwrap();
        let faces = [6, 3, 6, 5, 1, 6, 6, 2, 4, 6, 3, 5];
        for face in faces.iter().cycle().take(60) {
            if let Next::Move { .. } = game.next() {
                game.play_computer().unwrap();
            }
            if let Next::Roll { .. } = game.next() {
                game.roll(Die::new(*face).unwrap()).unwrap();
            }
        }
        game
    }

    #[test]
    fn a_kept_game_reads_back_as_it_was_and_is_gone_once_discarded() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(data.path());
        assert!(kept.load().is_none(), "none kept yet");
        assert!(!kept.offered());
        let game = game();
        kept.save(&game).unwrap();
        assert!(kept.offered());
        let again = kept.load().expect("the kept game").unwrap();
        assert_eq!(again.record(), game.record());
        assert_eq!(again.pieces(), game.pieces());
        kept.discard();
        assert!(kept.load().is_none());
        assert!(!kept.offered());
        kept.discard();
    }

    /// The app's data folder is made by whatever first writes into it;
    /// the game on the device may be the first.
    #[test]
    fn a_game_is_kept_in_a_data_folder_not_made_yet() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(&data.path().join("clovece"));
        assert!(kept.save(&game()).unwrap());
        assert!(kept.offered());
    }

    #[test]
    fn a_new_game_takes_the_kept_ones_place_only_once_played() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(data.path());
        let earlier = game();
        kept.save(&earlier).unwrap();
        // The person is green: the computer (red) begins, and its rolls
        // do not make the new game the one kept.
        let mut players = setup().players;
        players.reverse();
        let mut new = OfflineGame::new(Setup { players, ..setup() }, || Die::SIX).unwrap();
        for _ in 0..3 {
            new.roll(Die::new(2).unwrap()).unwrap();
            assert!(!kept.save(&new).unwrap(), "not the game kept");
        }
        kept.ended(&new);
        assert_eq!(
            kept.load().unwrap().unwrap().record(),
            earlier.record(),
            "opened and left"
        );
        new.roll(Die::new(3).unwrap()).unwrap();
        assert!(kept.save(&new).unwrap());
        assert_eq!(
            kept.load().unwrap().unwrap().record(),
            new.record(),
            "played"
        );
        kept.ended(&new);
        assert!(!kept.offered(), "left");
    }

    /// Two windows of the app on one data folder: the game one ends does
    /// not take away the one the other keeps since.
    #[test]
    fn a_game_that_ends_leaves_another_windows_game_kept() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(data.path());
        let mine = game();
        kept.save(&mine).unwrap();
        let mut players = setup().players;
        players.push(Player::Human { name: "Ben".into() });
        let mut theirs = OfflineGame::new(Setup { players, ..setup() }, || Die::SIX).unwrap();
        theirs.roll(Die::SIX).unwrap();
        kept.save(&theirs).unwrap();
        kept.ended(&mine);
        assert_eq!(kept.load().unwrap().unwrap().record(), theirs.record());
        kept.ended(&theirs);
        assert!(!kept.offered());
    }

    #[test]
    fn a_game_from_a_position_takes_the_place_of_the_kept_one_unkept() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(data.path());
        kept.save(&game()).unwrap();
        let seats = crate::rules::Seats::for_players(2).unwrap();
        let position = crate::rules::Game::new(
            RuleSet::Classic(HouseRules::default()),
            seats,
            crate::rules::Colour::Red,
        )
        .unwrap();
        let players = vec![Player::Human { name: "Ana".into() }; 2];
        kept.save(&OfflineGame::resume(position, players).unwrap())
            .unwrap();
        assert!(
            !kept.offered(),
            "the earlier game is not the one on the board"
        );
    }

    #[test]
    fn a_damaged_or_foreign_file_is_not_offered() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(data.path());
        kept.save(&game()).unwrap();
        let good = std::fs::read(&kept.path).unwrap();
        let mut cut = good.clone();
        cut.truncate(good.len() - 1);
        let mut newer = good.clone();
        newer[0] = FORMAT + 1;
        let mut flipped = good.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x7f;
        for bytes in [vec![], cut, newer, flipped, b"rubbish".to_vec()] {
            std::fs::write(&kept.path, &bytes).unwrap();
            assert!(matches!(kept.load(), Some(Err(_))), "{bytes:?}");
        }
        // Not offered, and set aside rather than written over by the next
        // game: a damaged one as Home finds it, another version's (that
        // version's game) only as the next game is kept.
        std::fs::write(&kept.path, b"\x01rubbish").unwrap();
        assert!(!kept.offered());
        assert_eq!(std::fs::read(kept.damaged()).unwrap(), b"\x01rubbish");
        assert!(!kept.path.exists());
        let mut newer = good.clone();
        newer[0] = FORMAT + 1;
        std::fs::write(&kept.path, &newer).unwrap();
        assert!(!kept.offered());
        assert_eq!(
            std::fs::read(&kept.path).unwrap(),
            newer,
            "left for its version"
        );
        kept.save(&game()).unwrap();
        assert_eq!(std::fs::read(kept.damaged()).unwrap(), newer);
        assert_eq!(std::fs::read(&kept.path).unwrap(), good);
    }

    /// A file that cannot be read now (here a folder in its place) is no
    /// game that does not play: nothing says it is to be dropped.
    #[test]
    fn a_kept_game_that_cannot_be_read_now_is_none_not_damaged() {
        let data = tempfile::tempdir().unwrap();
        let kept = GameFile::in_folder(data.path());
        std::fs::create_dir(&kept.path).unwrap();
        assert!(kept.load().is_none());
    }

    proptest::proptest! {
        /// Bytes of any kind read as a game or as why not; never a panic.
        #[test]
        fn any_bytes_read_as_a_game_or_a_refusal(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        ) {
            let mut file = vec![FORMAT];
            file.extend(bytes);
            let _ = read(&file);
        }

        /// So do a game's bytes, as the file keeps them, changed anywhere.
        #[test]
        fn a_kept_file_changed_anywhere_reads_or_is_refused(
            changes in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(), 1..=u8::MAX),
                1..6,
            ),
        ) {
            let mut file = encode(long_game().record().unwrap()).unwrap();
            for (at, flip) in changes {
                let at = at.index(file.len());
                file[at] ^= flip;
            }
            let _ = read(&file);
        }
    }
}
