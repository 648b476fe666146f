//! A game's log: the signed header, the entries, and the state after each,
//! with the rule that decides between two entries claiming the same place.

use super::colours::Colours;
use super::computer::computer_move;
use super::dice::Throw;
use super::digest::Digest;
use super::event::{Act, Auto, Entry, Kind, Signed};
use super::header::{HeaderError, Setup, SignedHeader};
use super::result::GameResult;
use super::state::{Actor, Control, Due, State};
use super::wire::MAX_ENTRY;
use crate::rules::{Colour, Die, FlowError, Move};

/// Why an entry is not taken into the log. Nothing is appended when an
/// entry is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("entry {index} is past the end of the log ({len} entries): catch up first")]
    Gap { len: u32, index: u32 },
    #[error("entry {index} follows an entry this phone does not have")]
    UnknownBranch { index: u32 },
    #[error("entry {index} is already in the log")]
    Duplicate { index: u32 },
    #[error("entry {index} takes {len} bytes, more than any entry may ({MAX_ENTRY})")]
    TooLarge { index: u32, len: usize },
    #[error("entry {index} loses to the entry already in its place")]
    Outranked { index: u32 },
    #[error("{seat} signed two different entries for index {index}")]
    Equivocation { seat: Colour, index: u32 },
    #[error("entry {index} is another computer turn than the one in its place")]
    OtherComputerTurn { index: u32 },
    #[error(
        "the proof of cheating does not hold: not two different acts of one seat in order, nor a certificate one player completed after playing past its place"
    )]
    NotAProof,
    #[error("{0} is not a player's seat")]
    NotAPlayer(Colour),
    #[error("the signature of {0} does not match the act or vote it signs")]
    BadSignature(Colour),
    #[error("it is not {0}'s turn")]
    NotYourTurn(Colour),
    #[error("the computer does not play the seat in turn")]
    NotComputersTurn,
    #[error(transparent)]
    Flow(FlowError),
    #[error("that is not the move the computer plays here")]
    NotTheComputersMove,
    #[error("the roll lacks the reveal of {0}")]
    MissingReveal(Colour),
    #[error("the roll carries a reveal for {0}, which takes no part in it")]
    UnexpectedReveal(Colour),
    #[error("the reveal of {0} does not match its dice commitment")]
    RevealMismatch(Colour),
    #[error("no player is present to reveal for the roll")]
    NobodyPresent,
    #[error("{0} is not absent, so cannot take the seat back")]
    NotAbsent(Colour),
    #[error("{0} has already left")]
    AlreadyLeft(Colour),
    #[error("the certificate names {0} as gone, but not all of them are present")]
    GoneNotPresent(Colours),
    #[error("{voters} cannot certify absences alone: at least half of {present} must vote")]
    TooFewVoters { voters: Colours, present: Colours },
    #[error(
        "the certificate must carry votes of exactly {voters}, in colour order, not {signed:?}"
    )]
    WrongVoters {
        voters: Colours,
        signed: Vec<Colour>,
    },
    #[error("the rules cannot start the game")]
    NoGame,
    #[error("entry {index} would undo the end of the game, which this phone keeps")]
    AfterTheEnd { index: u32 },
}

/// What became of an entry taken into the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offered {
    /// It was appended at the end.
    Appended,
    /// It won its place against `lost`, the entry there, which was dropped
    /// with `after`, everything after it.
    Replaced { lost: Box<Entry>, after: Vec<Entry> },
}

/// One roll of the game, for the roll history and the dice statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RollRecord {
    pub roll: u32,
    pub seat: Colour,
    /// Whether the computer rolled for the seat.
    pub by_computer: bool,
    pub die: Die,
}

/// A game's log, checked entry by entry.
#[derive(Clone, Debug)]
pub struct Log {
    setup: Setup,
    entries: Vec<Entry>,
    hashes: Vec<Digest>,
    /// `states[i]` is the state before entry `i`; the last is the current.
    states: Vec<State>,
    /// The game is over and this phone keeps its end ([`Log::keep_end`]).
    end_kept: bool,
}

impl Log {
    /// An empty log for the game `header`. Refuses a header of another
    /// version or not signed by every player.
    pub fn new(header: SignedHeader) -> Result<Log, HeaderError> {
        let setup = header.verify()?;
        let start = State::start(&setup).map_err(|_| HeaderError::Rules)?;
        Ok(Log {
            setup,
            entries: Vec::new(),
            hashes: Vec::new(),
            states: vec![start],
            end_kept: false,
        })
    }

    pub fn header(&self) -> &SignedHeader {
        &self.setup.signed
    }

    /// The game id: the hash of the header.
    pub fn game(&self) -> Digest {
        self.setup.game
    }

    pub fn len(&self) -> u32 {
        self.entries.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The hash the next entry must name as `prev`.
    pub fn head(&self) -> Digest {
        self.hashes.last().copied().unwrap_or(self.setup.game)
    }

    /// The hash of the entry before index `index`.
    fn prev_of(&self, index: u32) -> Digest {
        match index {
            0 => self.setup.game,
            i => self.hashes[i as usize - 1],
        }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn hashes(&self) -> &[Digest] {
        &self.hashes
    }

    pub fn state(&self) -> &State {
        self.states
            .last()
            .expect("a log always has a current state")
    }

    pub fn due(&self) -> Due {
        self.state().due()
    }

    pub fn players(&self) -> Colours {
        self.setup.players
    }

    pub(crate) fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Takes `entry` into the log if it is valid and belongs there: at the
    /// end, or in place of an entry it wins against (see
    /// [`Entry::wins_over`]).
    pub fn offer(&mut self, entry: Entry) -> Result<Offered, LogError> {
        let len = self.len();
        let index = entry.index;
        if index > len {
            return Err(LogError::Gap { len, index });
        }
        let prev = self.prev_of(index);
        if entry.prev != prev {
            return Err(LogError::UnknownBranch { index });
        }
        // No honest entry is larger: a batch of entries, which ends before
        // an entry that would not fit, must never be empty.
        let (size, hash) = entry.sized_hash();
        if size > MAX_ENTRY {
            return Err(LogError::TooLarge { index, len: size });
        }
        let at = index as usize;
        if index < len && self.hashes[at] == hash {
            return Err(LogError::Duplicate { index });
        }
        if index < len && self.end_kept {
            return Err(LogError::AfterTheEnd { index });
        }
        // A computer turn is a function of the log before it, so only one
        // can stand in a place, and ours was checked. Refusing another one
        // here outright spares searching the computer's move again for
        // every copy a hostile phone sends.
        if index < len
            && matches!(entry.kind, Kind::Computer(_))
            && matches!(self.entries[at].kind, Kind::Computer(_))
        {
            return Err(LogError::OtherComputerTurn { index });
        }
        // Whether it would take the place is a matter of rank and hash
        // alone, so an entry that would not is refused before the costly
        // checks (a signature, the computer's move), which a hostile phone
        // could otherwise have made again and again with copies of a losing
        // act. Only its author's second act in the place is checked first:
        // valid, it proves them a cheater.
        let losing = index < len && !entry.wins_over(&hash, &self.entries[at], &self.hashes[at]);
        let twice = match (entry.author(), self.entries.get(at).and_then(Entry::author)) {
            (Some(a), Some(b)) if losing && a == b => Some(a),
            _ => None,
        };
        if losing && twice.is_none() {
            return Err(LogError::Outranked { index });
        }
        let state = self.states[at].apply(&self.setup, index, prev, &entry.kind)?;
        if let Some(seat) = twice {
            return Err(LogError::Equivocation { seat, index });
        }
        let mut dropped = self.truncate(index).into_iter();
        self.entries.push(entry);
        self.hashes.push(hash);
        self.states.push(state);
        Ok(match dropped.next() {
            None => Offered::Appended,
            Some(lost) => Offered::Replaced {
                lost: Box::new(lost),
                after: dropped.collect(),
            },
        })
    }

    /// If the game is over, keeps its end from now on: no entry takes a
    /// place in the log any more, whatever its rank. Without this, a
    /// stronger entry for an old place (a late certificate, a proof of
    /// the loser's own two acts) would set the game back and leave it
    /// unfinished, its result gone (docs/protocol.md, "Undo the end").
    /// Whether the end is kept.
    pub fn keep_end(&mut self) -> bool {
        self.end_kept = matches!(self.due(), Due::Over(_));
        self.end_kept
    }

    /// Drops the entries from `len` on and returns them (an entry that lost
    /// its place, with everything after it; a phone's own entry it could
    /// not save).
    pub(crate) fn truncate(&mut self, len: u32) -> Vec<Entry> {
        let len = len as usize;
        self.hashes.truncate(len);
        self.states.truncate(len + 1);
        self.entries.split_off(len)
    }

    /// The computer's move for the seat to move now (what a computer seat
    /// plays, and what a player's phone plays when their timer runs out).
    pub fn computer_move(&self) -> Option<Move> {
        let Due::Move { seat, .. } = self.due() else {
            return None;
        };
        let game = self.state().game()?;
        computer_move(&self.setup, game, seat, self.len())
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.state().result(&self.setup, self.head())
    }

    /// Where the leave of `seat`'s player is in the log, if it is there (a
    /// certificate at its place may have taken it out).
    pub fn leave(&self, seat: Colour) -> Option<usize> {
        self.entries.iter().rposition(|entry| {
            matches!(
                &entry.kind,
                Kind::Player(Signed { seat: s, act: Act::Leave, .. }) if *s == seat
            )
        })
    }

    /// Whether the player of `seat` left the game on purpose, as the log
    /// stands ([`Log::leave`]).
    pub fn has_left(&self, seat: Colour) -> bool {
        self.state().control(seat) == Some(Control::Left)
    }

    /// Whether the game is over for the player of `me`: it ended, or they
    /// left it (the others may play on without them).
    pub fn over_for(&self, me: Colour) -> bool {
        self.result().is_some() || self.has_left(me)
    }

    /// Every roll of the dice so far, in order (the draw of the first
    /// player is not a roll of the die and is left out).
    pub fn rolls(&self) -> impl Iterator<Item = RollRecord> + '_ {
        self.entries
            .iter()
            .zip(&self.states)
            .filter_map(move |(entry, before)| {
                let reveals = match &entry.kind {
                    Kind::Player(Signed {
                        act: Act::Roll(reveals),
                        ..
                    })
                    | Kind::Computer(Auto::Roll(reveals)) => reveals,
                    _ => return None,
                };
                let Due::Roll {
                    roll,
                    seat: Some(seat),
                    by,
                } = before.due()
                else {
                    return None;
                };
                Some(RollRecord {
                    roll,
                    seat,
                    by_computer: by == Actor::Computer,
                    die: Throw::new(&self.setup.game, roll, reveals).die(),
                })
            })
    }

    /// Every move played so far, in order: a player's, or the computer's
    /// for a seat.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.entries.iter().filter_map(|entry| match &entry.kind {
            Kind::Player(Signed {
                act: Act::Move { mv, .. },
                ..
            })
            | Kind::Computer(Auto::Move(mv)) => Some(*mv),
            _ => None,
        })
    }

    /// By colour, how many moves the phones played for their player as
    /// the turn timer ran out (`Act::Move { auto: true }`): how the other
    /// phones learn that a player's time ran out, as the rest of such a
    /// turn is signed as the player's own.
    pub fn timed_out(&self) -> [u32; 4] {
        let mut counts = [0; 4];
        for entry in &self.entries {
            if let Kind::Player(Signed {
                seat,
                act: Act::Move { auto: true, .. },
                ..
            }) = &entry.kind
            {
                counts[seat.index()] += 1;
            }
        }
        counts
    }

    /// By colour, how often each face came up in the rolls its player
    /// made (the per-player dice statistics): not the computer's rolls for
    /// a computer seat, or for a player away or gone, which only the
    /// phones that saw them would count.
    pub fn dice_counts(&self) -> [[u32; 6]; 4] {
        let mut counts = [[0; 6]; 4];
        for record in self.rolls().filter(|r| !r.by_computer) {
            counts[record.seat.index()][record.die.get() as usize - 1] += 1;
        }
        counts
    }
}
