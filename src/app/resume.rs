//! Online games kept in the app's data folder, to be resumed after the app
//! was closed or killed mid-game.
//!
//! Each online session plays in a folder of its own, `games/<start time>`
//! in the data folder (the saved game of [`crate::net::game`] inside it),
//! which the session removes once the game is recorded in the statistics.
//! A folder still there when the app opens is a game the app did not see
//! to its end: Home offers to resume it, which is `clovece join` with no
//! ticket on that folder (the saved log, then catching up with the
//! others). Leaving it instead counts as leaving a game on purpose. A game
//! whose files cannot be read is said so, and the player may discard it.
//! One whose end the app showed, closed or killed before its session
//! recorded it, is recorded then with its result, not offered; only if its
//! log has lost the end since (a damaged disk) is it offered, to catch the
//! end up from the others, and leaving it then costs nothing.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::net::book::{Book, nickname_of};
use crate::net::game::GAME_DIR;
use crate::protocol::store::{Store, StoreError};
use crate::protocol::{Header, Seat, Theme, TurnTimer};
use crate::rules::{Colour, FirstPlayer, RuleSet};
use crate::stats::{GivenUp, Outcome};

use super::leave::LeaveCost;

/// The folder of the online games in the data folder.
const GAMES: &str = "games";
/// In a session's folder: the player gave its game up (left it, or closed
/// it after its end) while it still ran. It holds [`STRANDED`] if they
/// left it stranded ([`GivenUp::Stranded`]), which counts as a drop.
const GIVEN_UP: &str = "given-up";
/// What the mark of a game given up stranded holds: one file, written
/// whole or not at all, so that no kill between two marks turns the drop
/// the player was told of into a leave.
const STRANDED: &[u8] = b"stranded";
/// In a session's folder: the game ended before the player's eyes, and
/// its session may have been cut short (the app closed or killed) while
/// it lingered at the end, before recording it.
const ENDED: &str = "ended";
/// In a session's folder: every other player had left the game on
/// purpose, so giving it up counts as the player's win
/// ([`crate::stats::record::wins_by_forfeit`]). What Home says of a kept
/// game: what giving it up records is read from its log, but for a game
/// another version of the app saved, which this one cannot read
/// ([`unread`]).
const FORFEIT: &str = "forfeit";
/// The extension a session's folder is renamed to before it is removed
/// ([`discard`]): a removal cut short (the app killed) then leaves no
/// game behind to offer again, only a folder Home removes.
const DISCARDED: &str = "discarded";

/// A new session's folder in `data`, named after the time it starts (so
/// the newest kept game is found first).
pub fn new_folder(data: &Path) -> PathBuf {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    data.join(GAMES).join(format!("{stamp:039}"))
}

/// An online game kept in the data folder.
#[derive(Debug)]
pub enum Kept {
    /// It can be resumed.
    Unfinished(Unfinished),
    /// Its files cannot be read: why.
    Damaged { folder: PathBuf, why: String },
}

impl Kept {
    pub fn folder(&self) -> &Path {
        match self {
            Kept::Unfinished(game) => &game.folder,
            Kept::Damaged { folder, .. } => folder,
        }
    }
}

/// Who plays a seat of a kept game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sitter {
    /// A player, by nickname (empty when it is not known: the game was
    /// saved before nicknames were kept, or its address book is damaged).
    Player(String),
    /// The computer, from the start.
    Computer,
}

/// What Home says about a game it offers to resume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfinished {
    pub folder: PathBuf,
    pub rules: RuleSet,
    /// Who sits in each seat, in colour order.
    pub seats: Vec<(Colour, Sitter)>,
    pub timer: TurnTimer,
    pub theme: Theme,
    pub first: FirstPlayer,
    /// When the log last changed.
    pub last: Option<SystemTime>,
    /// What giving it up costs: nothing for a game of one player
    /// ([`crate::stats::record::counts`]) or one seen to its end, else a
    /// win when everyone else had left, two losses otherwise.
    pub leave: LeaveCost,
}

impl Unfinished {
    /// How many seats the game has.
    pub fn players(&self) -> u8 {
        u8::try_from(self.seats.len()).unwrap_or(u8::MAX)
    }

    /// How long ago the log last changed, as of `now`.
    pub fn since(&self, now: SystemTime) -> Duration {
        self.last
            .and_then(|last| now.duration_since(last).ok())
            .unwrap_or_default()
    }
}

/// The newest online game kept in `data`, if any. A session's folder that
/// holds no game (a room left before its start, or a game whose creation
/// was cut short) is removed on the way, and a game the player gave up or
/// saw end (the app was killed before its session recorded it) is
/// recorded and removed (a given-up one that cannot be is damaged); one
/// that cannot be looked into (a file-system error), or that another
/// window of the app has open, is left alone.
pub fn kept(data: &Path) -> Option<Kept> {
    let entries = std::fs::read_dir(data.join(GAMES)).ok()?;
    let mut folders: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    // What a removal cut short left goes, older than the game offered too.
    folders.retain(|folder| {
        let discarded = folder.extension().is_some_and(|e| e == DISCARDED);
        if discarded {
            let _ = std::fs::remove_dir_all(folder);
        }
        !discarded
    });
    folders.sort();
    folders.into_iter().rev().find_map(|folder| {
        // A game another window of the app plays is its own: neither
        // offered, nor shown as damaged (and discarded from under it),
        // nor recorded as given up.
        if Store::in_use(&folder.join(GAME_DIR)) {
            return None;
        }
        // A game given up is never offered back, even one whose leave
        // cannot be recorded: Discard then records it (`discard_damaged`).
        if folder.join(GIVEN_UP).exists() {
            return match give_up(data, &folder, None) {
                Ok(()) => None,
                Err(e) => Some(Kept::Damaged {
                    folder,
                    why: e.to_string(),
                }),
            };
        }
        // A game seen to its end is recorded, not offered; one whose
        // record cannot be written yet is named with the reason (looked
        // at again each time), not offered as if it went on.
        if folder.join(ENDED).exists() {
            match record_ended(data, &folder) {
                Ok(true) => return None,
                Ok(false) => {}
                Err(e) => {
                    let why = e.to_string();
                    return Some(Kept::Damaged { folder, why });
                }
            }
        }
        let dir = folder.join(GAME_DIR);
        match dir.try_exists() {
            Ok(true) => look(folder, &dir),
            Ok(false) => {
                let _ = std::fs::remove_dir_all(&folder);
                None
            }
            Err(_) => None,
        }
    })
}

/// Records the game of session `folder`, whose end its player saw, with
/// its result, and removes it: whether it was (not if its log, damaged,
/// no longer holds the end: then it goes on). One that another version
/// of the app saved goes unrecorded ([`unread`]). (Home opens often, so
/// only such a game is checked whole here.)
fn record_ended(data: &Path, folder: &Path) -> Result<bool, GiveUpError> {
    let dir = folder.join(GAME_DIR);
    let stats = crate::stats::Store::new(data);
    if stats.record_saved(&dir)? {
        discard(folder).map_err(GiveUpError::Remove)?;
        return Ok(true);
    }
    if Store::header(&dir).is_err_and(|e| e.is_other_version()) {
        unread(data, folder, None)?;
        return Ok(true);
    }
    Ok(false)
}

/// What the game saved in `dir` (of session `folder`) is: its header, as
/// the rest is checked when it resumes (from the part before any damage).
/// A game whose creation was cut short (the app killed before its header
/// was on disk) is none, and its folder is removed.
fn look(folder: PathBuf, dir: &Path) -> Option<Kept> {
    let header = match Store::header(dir) {
        Ok(signed) => signed.header,
        Err(StoreError::Empty { .. }) if Store::cut_short(dir) => {
            let _ = discard(&folder);
            return None;
        }
        Err(e) => {
            return Some(Kept::Damaged {
                folder,
                why: e.to_string(),
            });
        }
    };
    let last = Store::last_change(dir);
    let names = Book::names_in(dir);
    Some(Kept::Unfinished(Unfinished {
        seats: seats(&header, &names),
        rules: header.rules,
        timer: header.timer,
        theme: header.theme,
        first: header.first,
        last,
        // Seen to its end (its log has lost the end since), it costs
        // nothing to give up: `give_up` records nothing.
        leave: LeaveCost::of(
            crate::stats::record::counts(&header.seats) && !folder.join(ENDED).exists(),
            folder.join(FORFEIT).exists(),
        ),
        folder,
    }))
}

/// The seats of `header`, the players named by `names`.
fn seats(header: &Header, names: &[(libp2p::PeerId, String)]) -> Vec<(Colour, Sitter)> {
    Colour::ALL
        .into_iter()
        .filter_map(|c| {
            let sitter = match header.seats[c.index()].as_ref()? {
                Seat::Player { key, .. } => Sitter::Player(
                    key.peer_id()
                        .map(|peer| nickname_of(names, peer))
                        .unwrap_or_default(),
                ),
                Seat::Computer { .. } => Sitter::Computer,
            };
            Some((c, sitter))
        })
        .collect()
}

/// Whether session `folder` holds a game to go on with: one that is
/// there, neither given up nor seen to its end.
pub fn resumable(folder: &Path) -> bool {
    folder.join(GAME_DIR).is_dir()
        && !folder.join(GIVEN_UP).exists()
        && !folder.join(ENDED).exists()
}

/// Held while a session folder is removed or marked given up: a session's
/// thread removes its folder once the game is recorded, just as the player
/// may leave it on the UI thread, and a mark written into a folder being
/// removed would stop the removal half way.
static FOLDERS: Mutex<()> = Mutex::new(());

fn folders() -> MutexGuard<'static, ()> {
    FOLDERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes the kept game in `folder`: it is recorded, or cannot be.
/// Renamed away first, so that the app killed half way through leaves
/// no game without its marks (`given-up`, `ended`) to offer again.
pub fn discard(folder: &Path) -> io::Result<()> {
    let _held = folders();
    let going = folder.with_extension(DISCARDED);
    std::fs::rename(folder, &going)?;
    std::fs::remove_dir_all(going)
}

/// Gives up the kept game in `folder`: recorded in the statistics of
/// `data` as this player leaving it on purpose (two losses; its real
/// result if it is over), so closing the app and discarding a game about
/// to be lost costs what leaving it does, or as a drop if they left it
/// stranded (`how`, if the caller knows it, else as [`mark_given_up`]
/// marked it); not recorded at all if the player saw it end and its log
/// has lost the end since. Then removes it. One another version of the
/// app saved goes as [`unread`] says.
pub fn give_up(data: &Path, folder: &Path, how: Option<GivenUp>) -> Result<(), GiveUpError> {
    let dir = folder.join(GAME_DIR);
    let how = how.unwrap_or_else(|| match std::fs::read(folder.join(GIVEN_UP)) {
        Ok(mark) if mark == STRANDED => GivenUp::Stranded,
        _ => GivenUp::OnPurpose,
    });
    let restored = match Store::open_intact(&dir) {
        // Saved by another version of the app, the game cannot be read
        // here (`unread`).
        Err(e) if e.is_other_version() => {
            let mine = match (folder.join(ENDED).exists(), folder.join(FORFEIT).exists()) {
                (true, _) => None,
                (false, true) => Some(Outcome::Won),
                (false, false) => Some(how.outcome()),
            };
            return unread(data, folder, mine);
        }
        opened => opened.map_err(GiveUpError::Unreadable)?,
    };
    // A game its player saw end, whose log has lost the end since (a
    // damaged disk), has no result left to record, and was not left.
    let lost_end = folder.join(ENDED).exists() && !restored.log.over_for(restored.seat);
    if !lost_end {
        crate::stats::Store::new(data).record_left(&restored, &dir, how)?;
    }
    discard(folder).map_err(GiveUpError::Remove)
}

/// Removes the kept game in `folder` that Home named damaged, as its
/// player discards it. One given up or seen to its end is recorded first
/// (the statistics could not be written when Home looked, and a leave must
/// not escape its losses by that), and stays while it cannot be; one whose
/// files hold no readable game has nothing to record, and goes. One that
/// cannot be read just now (the file system fails) stays, and so does
/// one that reads again. One another version of the app saved goes as
/// [`unread`] says.
pub fn discard_damaged(data: &Path, folder: &Path) -> Result<(), GiveUpError> {
    if folder.join(GIVEN_UP).exists() || folder.join(ENDED).exists() {
        // `give_up` records a game seen to its end with its result.
        return match give_up(data, folder, None) {
            Err(GiveUpError::Unreadable(e)) if e.is_damage() => {
                discard(folder).map_err(GiveUpError::Remove)
            }
            given_up => given_up,
        };
    }
    // One that reads again stays, for Home to offer it once more.
    match Store::header(&folder.join(GAME_DIR)) {
        Err(e) if e.is_other_version() => unread(data, folder, None),
        Err(e) if e.is_damage() => discard(folder).map_err(GiveUpError::Remove),
        Err(e) => Err(GiveUpError::Unreadable(e)),
        Ok(_) => Ok(()),
    }
}

/// Removes the kept game in `folder` that another version of the app
/// saved (an older one, the app updated since; or a newer one, gone back
/// from), recording `mine` for its player first, if anything: this
/// version can neither check nor replay its log, so it is read from the
/// header alone, and a result it holds is lost. A game given up costs
/// its leave (or counts as the win it was, everyone else having left);
/// one seen to its end, or cut off by the change of version (nobody's
/// leave: its Discard on Home is said to cost nothing), nothing.
fn unread(data: &Path, folder: &Path, mine: Option<Outcome>) -> Result<(), GiveUpError> {
    if let Some(mine) = mine {
        let dir = folder.join(GAME_DIR);
        let (header, me) = Store::seat_as_saved(&dir).map_err(GiveUpError::Unreadable)?;
        crate::stats::Store::new(data).record_unread(&header, me, mine, &dir)?;
    }
    discard(folder).map_err(GiveUpError::Remove)
}

/// Marks the game of session `folder` as given up by the player, `how`
/// they gave it up, to be recorded as such rather than offered again if
/// its session is cut short. A folder already gone holds a game its
/// session recorded and removed (the player left its result just then):
/// nothing is left to mark.
pub fn mark_given_up(folder: &Path, how: GivenUp) -> io::Result<()> {
    let _held = folders();
    let mark: &[u8] = match how {
        GivenUp::Stranded => STRANDED,
        GivenUp::OnPurpose => b"",
    };
    match crate::durable::replace(&folder.join(GIVEN_UP), |f| f.write_all(mark)) {
        Err(e) if e.kind() == io::ErrorKind::NotFound && !folder.exists() => Ok(()),
        marked => marked,
    }
}

/// Marks the game of session `folder` as one that every other player has
/// left, for Home to say that giving it up counts as a win. The mark
/// stays: no honest entry brings back a player who left (a cheater's
/// entry for an earlier place might, and then Home's text is wrong, and
/// so is the win a game another version saved records from it: giving up
/// any other records what its log says).
pub fn mark_forfeit(folder: &Path) -> io::Result<()> {
    crate::durable::replace(&folder.join(FORFEIT), |_| Ok(()))
}

/// Marks the game of session `folder` as ended before the player's eyes,
/// to be recorded with its result rather than offered again if its
/// session is cut short.
pub fn mark_ended(folder: &Path) -> io::Result<()> {
    crate::durable::replace(&folder.join(ENDED), |_| Ok(()))
}

/// Why a kept game could not be given up (it stays where it is).
#[derive(Debug, thiserror::Error)]
pub enum GiveUpError {
    #[error("the game cannot be read: {0}")]
    Unreadable(StoreError),
    #[error(transparent)]
    Record(#[from] crate::stats::StatsError),
    #[error("the game cannot be removed: {0}")]
    Remove(io::Error),
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn no_kept_game_is_nothing_to_resume() {
        let data = tempfile::tempdir().unwrap();
        assert!(kept(data.path()).is_none());
    }

    #[test]
    fn a_session_folder_without_a_game_is_cleared_away() {
        let data = tempfile::tempdir().unwrap();
        let folder = new_folder(data.path());
        std::fs::create_dir_all(&folder).unwrap();
        assert!(kept(data.path()).is_none());
        assert!(!folder.exists());
    }

    /// The app killed while creating a game: its secret is written, its
    /// log with the header not yet. No game was saved, none to discard.
    #[test]
    fn a_game_whose_creation_was_cut_short_is_cleared_away() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        std::fs::remove_file(folder.join(GAME_DIR).join("log")).unwrap();
        assert!(kept(data.path()).is_none());
        assert!(!folder.exists());
    }

    /// Not every game with a part missing is one cut short: one being
    /// created right now (its store open), and one whose secret is gone
    /// beside its log (damage, as the secret is written first) stay.
    #[test]
    fn a_game_being_created_or_missing_its_secret_is_not_cleared_away() {
        let data = tempfile::tempdir().unwrap();
        let (folder, phone) = kept_game_of(data.path(), None);
        let log = folder.join(GAME_DIR).join("log");
        std::fs::remove_file(&log).unwrap();
        assert!(kept(data.path()).is_none(), "being created");
        assert!(folder.exists());
        drop(phone);

        let folder = kept_game(data.path());
        std::fs::remove_file(folder.join(GAME_DIR).join("secret")).unwrap();
        assert!(matches!(kept(data.path()), Some(Kept::Damaged { .. })));
        assert!(folder.exists());
    }

    /// Another window plays the game (its store is open): Home passes it
    /// by, even marked given up (that window's session records it), and
    /// offers the one before it.
    #[test]
    fn a_game_another_window_plays_is_neither_offered_nor_given_up() {
        let data = tempfile::tempdir().unwrap();
        let older = kept_game(data.path());
        let (playing, phone) = kept_game_of(data.path(), None);
        assert_eq!(unfinished(data.path()).folder, older);
        mark_given_up(&playing, GivenUp::OnPurpose).unwrap();
        assert_eq!(unfinished(data.path()).folder, older);
        assert!(playing.exists());
        let stats = crate::stats::Store::new(data.path()).load().unwrap();
        assert!(stats.records.is_empty());
        drop(phone);
        assert_eq!(unfinished(data.path()).folder, older, "given up now");
        assert!(!playing.exists());
    }

    #[test]
    fn a_damaged_game_is_named_and_can_be_discarded() {
        let data = tempfile::tempdir().unwrap();
        let folder = new_folder(data.path());
        std::fs::create_dir_all(folder.join(GAME_DIR)).unwrap();
        std::fs::write(folder.join(GAME_DIR).join("secret"), b"rubbish").unwrap();
        let Some(Kept::Damaged { folder: named, why }) = kept(data.path()) else {
            panic!("a damaged game is reported");
        };
        assert_eq!(named, folder);
        assert!(!why.is_empty());
        discard(&folder).unwrap();
        assert!(kept(data.path()).is_none());
    }

    #[test]
    fn a_game_given_up_after_its_session_recorded_and_removed_it_stays_gone() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        discard(&folder).unwrap();
        mark_given_up(&folder, GivenUp::OnPurpose).unwrap();
        assert!(!folder.exists());
        assert!(kept(data.path()).is_none());
    }

    #[test]
    fn a_game_given_up_whose_leave_cannot_be_recorded_is_damaged_not_offered() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        mark_given_up(&folder, GivenUp::OnPurpose).unwrap();
        // The statistics cannot be written (a folder where the file goes).
        std::fs::create_dir(data.path().join(crate::stats::store::FILE)).unwrap();
        let Some(Kept::Damaged { folder: named, .. }) = kept(data.path()) else {
            panic!("a given-up game is never offered to resume");
        };
        assert_eq!(named, folder);
        // Discarded, it is recorded first: while it cannot be, it stays.
        assert!(matches!(
            discard_damaged(data.path(), &folder),
            Err(GiveUpError::Record(_))
        ));
        assert!(folder.exists());
        std::fs::remove_dir(data.path().join(crate::stats::store::FILE)).unwrap();
        discard_damaged(data.path(), &folder).unwrap();
        assert!(!folder.exists());
        assert_eq!(recorded(data.path()), 1, "the leave is recorded");
        assert!(kept(data.path()).is_none());
    }

    /// A damaged game that cannot be read has nothing to record, given up
    /// or not: discarding it removes it.
    #[test]
    fn a_damaged_game_that_cannot_be_read_is_discarded_without_a_record() {
        let data = tempfile::tempdir().unwrap();
        for mark in [
            None,
            Some((|f: &Path| mark_given_up(f, GivenUp::OnPurpose)) as fn(&Path) -> _),
            Some(mark_ended),
        ] {
            let folder = kept_game(data.path());
            if let Some(mark) = mark {
                mark(&folder).unwrap();
            }
            std::fs::write(folder.join(GAME_DIR).join("log"), b"damaged").unwrap();
            discard_damaged(data.path(), &folder).unwrap();
            assert!(!folder.exists());
        }
        assert_eq!(recorded(data.path()), 0);
    }

    /// A game that Green's phone kept, saved by an older version of the
    /// app (updated since), marked by `mark` if that is some:
    /// its folder.
    fn older_apps_game(data: &Path, mark: Option<fn(&Path) -> io::Result<()>>) -> PathBuf {
        let keys = keys();
        let signers = keys.each_ref().map(|k| Signer::new(k).unwrap());
        let secret = DiceSecret::from_bytes([9; 32]);
        let seat = |signer: &Signer| Seat::Player {
            key: signer.public(),
            commitment: DiceChain::new(&secret, crate::protocol::header::DEFAULT_ROLLS)
                .commitment(),
        };
        let seats = [Some(seat(&signers[0])), None, Some(seat(&signers[1])), None];
        let mut header = Header::new([1; 32], RuleSet::Classic(HouseRules::default()), seats);
        header.engine = "clovece 0.0.0".into();
        let signed = SignedHeader::sign_all(header, &[&signers[0], &signers[1]]);
        let folder = new_folder(data);
        Store::create(&folder.join(GAME_DIR), &signed, Colour::Green, &secret).unwrap();
        if let Some(mark) = mark {
            mark(&folder).unwrap();
        }
        folder
    }

    /// The outcomes of Red and Green in the one game the statistics of
    /// `data` hold.
    fn outcomes(data: &Path) -> Vec<crate::stats::Outcome> {
        let records = crate::stats::Store::new(data).load().unwrap().records;
        let [record] = &records[..] else {
            panic!("one game recorded, not {}", records.len());
        };
        record.players.iter().map(|p| p.outcome).collect()
    }

    /// A game another version of the app saved is whole, but this
    /// version can neither check nor play it on: it is recorded from its
    /// header alone, never deleted as damaged without its player's leave.
    #[test]
    fn a_game_another_app_version_saved_costs_what_its_header_tells() {
        // Given up: its leave (two losses) is recorded at once.
        let data = tempfile::tempdir().unwrap();
        let folder = older_apps_game(
            data.path(),
            Some(|f: &Path| mark_given_up(f, GivenUp::OnPurpose)),
        );
        assert!(kept(data.path()).is_none());
        assert!(!folder.exists());
        assert_eq!(outcomes(data.path()), [Outcome::Unfinished, Outcome::Left]);

        // Given up stranded: the drop it was.
        let data = tempfile::tempdir().unwrap();
        older_apps_game(
            data.path(),
            Some(|f: &Path| mark_given_up(f, GivenUp::Stranded)),
        );
        assert!(kept(data.path()).is_none());
        assert_eq!(
            outcomes(data.path()),
            [Outcome::Unfinished, Outcome::Dropped]
        );

        // Given up once everyone else had left: the win it was.
        let data = tempfile::tempdir().unwrap();
        let folder = older_apps_game(data.path(), Some(mark_forfeit));
        mark_given_up(&folder, GivenUp::OnPurpose).unwrap();
        assert!(kept(data.path()).is_none());
        assert_eq!(outcomes(data.path()), [Outcome::Unfinished, Outcome::Won]);

        // Seen to its end: its result cannot be read, and nothing is
        // recorded.
        let data = tempfile::tempdir().unwrap();
        let folder = older_apps_game(data.path(), Some(mark_ended));
        assert!(kept(data.path()).is_none());
        assert!(!folder.exists());
        assert_eq!(recorded(data.path()), 0);

        // Cut off by the change of version: named, and discarded without
        // a record (nobody left it).
        let data = tempfile::tempdir().unwrap();
        let folder = older_apps_game(data.path(), None);
        let Some(Kept::Damaged { why, .. }) = kept(data.path()) else {
            panic!("a game an older app saved cannot go on");
        };
        assert!(why.contains("clovece 0.0.0"), "{why}");
        discard_damaged(data.path(), &folder).unwrap();
        assert!(!folder.exists());
        assert_eq!(recorded(data.path()), 0);
    }

    /// Discard on the card of a game that could not be read because the
    /// file system failed keeps it while that lasts, and once it reads
    /// again leaves it for Home to offer (Leave costs its losses).
    #[test]
    fn a_game_that_cannot_be_read_just_now_is_not_discarded() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        let log = folder.join(GAME_DIR).join("log");
        let saved = std::fs::read(&log).unwrap();
        std::fs::remove_file(&log).unwrap();
        // A folder where the file is: reading it fails, as a disk can.
        std::fs::create_dir(&log).unwrap();
        assert!(matches!(kept(data.path()), Some(Kept::Damaged { .. })));
        assert!(matches!(
            discard_damaged(data.path(), &folder),
            Err(GiveUpError::Unreadable(StoreError::Io { .. }))
        ));
        std::fs::remove_dir(&log).unwrap();
        std::fs::write(&log, saved).unwrap();
        discard_damaged(data.path(), &folder).unwrap();
        assert_eq!(unfinished(data.path()).folder, folder);
        assert_eq!(recorded(data.path()), 0);
    }

    /// How many games the statistics of `data` hold.
    fn recorded(data: &Path) -> usize {
        crate::stats::Store::new(data).load().unwrap().records.len()
    }

    /// A game seen to its end whose record cannot be written yet (the
    /// statistics file cannot be read) is named with the reason, not
    /// offered as one that goes on; once it can be, it is recorded.
    #[test]
    fn an_ended_game_that_cannot_be_recorded_yet_is_named_not_offered() {
        let data = tempfile::tempdir().unwrap();
        let folder = ended_game(data.path());
        let stats = data.path().join(crate::stats::store::FILE);
        std::fs::create_dir(&stats).unwrap();
        let Some(Kept::Damaged { folder: named, why }) = kept(data.path()) else {
            panic!("an ended game is never offered to resume");
        };
        assert_eq!(named, folder);
        assert!(!why.is_empty());
        std::fs::remove_dir(&stats).unwrap();
        assert!(kept(data.path()).is_none());
        assert!(!folder.exists());
    }

    /// Discard on a damaged card of a game seen to its end: not while
    /// another window has the game open (it cannot be read just then),
    /// and, against the computer (counted in nobody's statistics), with
    /// nothing to record however the statistics file stands.
    #[test]
    fn discarding_an_ended_game_waits_for_another_window_and_records_what_counts() {
        let data = tempfile::tempdir().unwrap();
        let folder = ended_game(data.path());
        std::fs::create_dir(data.path().join(crate::stats::store::FILE)).unwrap();
        let open = Store::open(&folder.join(GAME_DIR)).unwrap();
        assert!(matches!(
            discard_damaged(data.path(), &folder),
            Err(GiveUpError::Unreadable(StoreError::InUse { .. }))
        ));
        assert!(folder.exists());
        drop(open);
        discard_damaged(data.path(), &folder).unwrap();
        assert!(!folder.exists());
    }

    /// The app killed while a game recorded (or left) was being removed:
    /// what is left of it is removed, never offered, and the game before
    /// it is.
    #[test]
    fn a_game_whose_removal_was_cut_short_is_not_offered_again() {
        let data = tempfile::tempdir().unwrap();
        let oldest = kept_game(data.path());
        let older = kept_game(data.path());
        let folder = kept_game(data.path());
        let going = folder.with_extension(DISCARDED);
        std::fs::rename(&folder, &going).unwrap();
        let gone = oldest.with_extension(DISCARDED);
        std::fs::rename(&oldest, &gone).unwrap();
        assert_eq!(unfinished(data.path()).folder, older);
        assert!(!going.exists());
        assert!(!gone.exists(), "older than the game offered, too");
    }

    #[test]
    fn only_a_game_neither_given_up_nor_ended_is_resumable() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        assert!(resumable(&folder));
        mark_ended(&folder).unwrap();
        assert!(!resumable(&folder), "ended");
        let elsewhere = tempfile::tempdir().unwrap();
        let other = kept_game(elsewhere.path());
        mark_given_up(&other, GivenUp::OnPurpose).unwrap();
        assert!(!resumable(&other), "given up");
        assert!(!resumable(&data.path().join("nowhere")));
    }

    #[test]
    fn newer_sessions_sort_after_older_ones() {
        let data = Path::new("d");
        let first = new_folder(data);
        std::thread::sleep(Duration::from_millis(2));
        assert!(new_folder(data) > first);
    }

    use crate::bot::Level;
    use crate::protocol::{DiceChain, DiceSecret, Phone, SignedHeader, Signer};
    use crate::rules::HouseRules;
    use libp2p::identity::Keypair;

    /// The players' keys of [`kept_game`]: Red's and Green's.
    fn keys() -> [Keypair; 2] {
        [1u8, 2].map(|s| Keypair::ed25519_from_bytes([s; 32]).unwrap())
    }

    /// A two-player game (Red, Green) kept by Green's phone in a session
    /// folder of `data`, as when the app is closed before its end: the
    /// folder.
    fn kept_game(data: &Path) -> PathBuf {
        kept_game_of(data, None).0
    }

    /// The game of [`kept_game`], with the computer at `computer` in Red's
    /// seat if that is some: the folder and Green's phone.
    pub(in crate::app) fn kept_game_of(data: &Path, computer: Option<Level>) -> (PathBuf, Phone) {
        let keys = keys();
        let signers = keys.each_ref().map(|k| Signer::new(k).unwrap());
        let secret = || DiceSecret::from_bytes([9; 32]);
        let seat = |signer: &Signer| Seat::Player {
            key: signer.public(),
            commitment: DiceChain::new(&secret(), crate::protocol::header::DEFAULT_ROLLS)
                .commitment(),
        };
        let red = computer.map_or_else(|| seat(&signers[0]), |level| Seat::Computer { level });
        let seats = [Some(red), None, Some(seat(&signers[1])), None];
        let header = Header::new([1; 32], RuleSet::Classic(HouseRules::default()), seats);
        let signing: &[&Signer] = match computer {
            Some(_) => &[&signers[1]],
            None => &[&signers[0], &signers[1]],
        };
        let signed = SignedHeader::sign_all(header, signing);
        let folder = new_folder(data);
        let dir = folder.join(GAME_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        let phone = Phone::new(signed, &keys[1], secret(), Some(&dir)).unwrap();
        (folder, phone)
    }

    /// A game of one person against the computer, kept in `data`, that
    /// its player saw end (they left it): its folder.
    fn ended_game(data: &Path) -> PathBuf {
        let (folder, mut phone) = kept_game_of(data, Some(Level::Easy));
        phone.leave(&mut Nowhere).unwrap();
        mark_ended(&folder).unwrap();
        folder
    }

    /// A transport that loses everything: a phone alone.
    pub(in crate::app) struct Nowhere;

    impl crate::protocol::Transport for Nowhere {
        fn send(&mut self, _: Colour, _: &[u8]) {}
        fn broadcast(&mut self, _: &[u8]) {}
    }

    #[test]
    fn a_room_of_one_player_that_ended_unrecorded_is_cleared_away_not_offered() {
        let data = tempfile::tempdir().unwrap();
        // Green against the computer leaves, and the app is killed before
        // its session removes the game: nobody's statistics, nothing to
        // resume.
        let folder = ended_game(data.path());
        assert!(kept(data.path()).is_none(), "not offered");
        assert!(!folder.exists());
        let stats = crate::stats::Store::new(data.path()).load().unwrap();
        assert!(stats.records.is_empty());
    }

    fn unfinished(data: &Path) -> Unfinished {
        match kept(data) {
            Some(Kept::Unfinished(game)) => game,
            other => panic!("an unfinished game is kept: {other:?}"),
        }
    }

    #[test]
    fn a_kept_game_names_its_players_from_its_address_book() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        let [red, green] = keys().map(|k| k.public().to_peer_id());
        let book = Book {
            names: vec![(red, "Hana".into()), (green, "Ivo".into())],
            ..Book::default()
        };
        book.save(&folder.join(GAME_DIR)).unwrap();
        let game = unfinished(data.path());
        assert_eq!(
            game.seats,
            [
                (Colour::Red, Sitter::Player("Hana".into())),
                (Colour::Green, Sitter::Player("Ivo".into()))
            ]
        );
        assert_eq!(game.players(), 2);
        // Two players: leaving it counts in the statistics.
        assert_eq!(game.leave, LeaveCost::TwoLosses);
    }

    #[test]
    fn a_kept_game_was_last_played_when_its_log_last_changed() {
        let data = tempfile::tempdir().unwrap();
        let dir = kept_game(data.path()).join(GAME_DIR);
        let played = SystemTime::now() - Duration::from_secs(3 * 3600);
        let log = std::fs::File::options()
            .write(true)
            .open(dir.join("log"))
            .unwrap();
        log.set_modified(played).unwrap();
        // A resume that reached no one writes the address book again.
        Book::default().save(&dir).unwrap();
        let last = unfinished(data.path()).last.unwrap();
        // Within the coarsest file system's two seconds (FAT).
        let off = last.duration_since(played).unwrap_or_else(|e| e.duration());
        assert!(off <= Duration::from_secs(2), "{off:?} off");
    }

    #[test]
    fn a_kept_game_everyone_else_left_is_offered_as_a_win_to_give_up() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        mark_forfeit(&folder).unwrap();
        assert_eq!(unfinished(data.path()).leave, LeaveCost::Won);
        assert!(resumable(&folder), "still a game to go on with");
    }

    #[test]
    fn a_kept_game_without_nicknames_still_offers_its_players_by_colour() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        let nameless = [
            (Colour::Red, Sitter::Player(String::new())),
            (Colour::Green, Sitter::Player(String::new())),
        ];
        // Saved before nicknames were kept: no address book here.
        assert_eq!(unfinished(data.path()).seats, nameless);
        // A damaged address book costs the names only.
        std::fs::write(folder.join(GAME_DIR).join("peers"), b"\xff\xff").unwrap();
        assert_eq!(unfinished(data.path()).seats, nameless);
    }

    #[test]
    fn a_kept_game_given_up_counts_as_this_players_leave_and_is_removed() {
        use crate::stats::Outcome;

        let keys = keys();
        let data = tempfile::tempdir().unwrap();
        // Green's phone keeps the game; the app is closed before its end.
        let folder = kept_game(data.path());
        assert!(matches!(kept(data.path()), Some(Kept::Unfinished(_))));

        give_up(data.path(), &folder, None).unwrap();
        let records = crate::stats::Store::new(data.path())
            .load()
            .unwrap()
            .records;
        assert_eq!(records.len(), 1);
        // This player's own leave; the other still plays, as far as this
        // phone knows, and is a friend all the same.
        let outcome = |key: &libp2p::identity::Keypair| {
            let peer = key.public().to_peer_id().to_base58();
            let played = records[0].players.iter().find(|p| p.peer == peer);
            played.map(|p| p.outcome)
        };
        assert_eq!(outcome(&keys[1]), Some(Outcome::Left));
        assert_eq!(outcome(&keys[0]), Some(Outcome::Unfinished));
        let me = keys[1].public().to_peer_id();
        let friends = crate::app::invite::friends(data.path(), me).unwrap();
        assert_eq!(friends.len(), 1);
        assert_eq!(friends[0].target.peer, keys[0].public().to_peer_id());
        assert!(!folder.exists());
        assert!(kept(data.path()).is_none());
    }

    /// The app was killed as the player left a stranded game: Home, next
    /// time, records the drop they were told of (one loss), from the one
    /// mark, and offers nothing.
    #[test]
    fn a_kept_game_given_up_stranded_is_recorded_as_this_players_drop() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        mark_given_up(&folder, GivenUp::Stranded).unwrap();
        assert!(kept(data.path()).is_none());
        assert!(!folder.exists());
        assert_eq!(
            outcomes(data.path()),
            [Outcome::Unfinished, Outcome::Dropped]
        );
    }

    /// The player saw the game end; the app was killed before recording
    /// it, and the log has lost its end since (as a log never finished).
    #[test]
    fn a_game_seen_to_its_end_whose_log_lost_it_costs_nothing_to_give_up() {
        let data = tempfile::tempdir().unwrap();
        let folder = kept_game(data.path());
        mark_ended(&folder).unwrap();
        let Some(Kept::Unfinished(game)) = kept(data.path()) else {
            panic!("offered, to be played on from the other phones")
        };
        assert_eq!(game.leave, LeaveCost::Nothing);
        mark_given_up(&folder, GivenUp::OnPurpose).unwrap();
        give_up(data.path(), &folder, None).unwrap();
        let stats = crate::stats::Store::new(data.path()).load().unwrap();
        assert!(stats.records.is_empty(), "not a leave: {:?}", stats.records);
        assert!(!folder.exists());
    }

    #[test]
    fn a_game_marked_given_up_is_recorded_as_a_leave_not_offered() {
        use crate::stats::{GivenUp, Outcome};

        let data = tempfile::tempdir().unwrap();
        // The player left it; the app was killed before its session could
        // record the leave.
        let folder = kept_game(data.path());
        mark_given_up(&folder, GivenUp::OnPurpose).unwrap();
        assert!(kept(data.path()).is_none(), "not offered");
        assert!(!folder.exists());
        let records = crate::stats::Store::new(data.path())
            .load()
            .unwrap()
            .records;
        assert_eq!(records.len(), 1);
        let green = keys()[1].public().to_peer_id().to_base58();
        let outcomes: Vec<(bool, Outcome)> = records[0]
            .players
            .iter()
            .map(|p| (p.peer == green, p.outcome))
            .collect();
        assert_eq!(
            outcomes,
            [(false, Outcome::Unfinished), (true, Outcome::Left)],
            "this player left; red played on"
        );
    }
}
