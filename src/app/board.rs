//! The board of a game as one phone shows it, whether the game is played
//! on this device ([`super::offline`]) or over the network
//! ([`super::online_game`]): every piece with its identity, which of them
//! the player may tap now, which move a tap makes, the questions a Matfyz
//! piece asks (how far it goes, who receives what it captures) and the
//! note a move leaves. Plain Rust over [`crate::rules::Game`], with no
//! window.
//!
//! What differs stays outside: a local game rolls and plays its moves here
//! ([`Board::roll`], [`Board::play`]); an online game sends the move a tap
//! chose to the network and takes the next state from the log
//! ([`Board::follow`]).
//!
//! The rules only know *where* a colour has pieces; the board also keeps
//! which of a colour's pieces stands where, because it animates one piece
//! moving.

use crate::rules::board::TRACK_LEN;
use crate::rules::matfyz::Run;
use crate::rules::{Capture, Colour, Die, FlowError, Game, Move, Next, Played, Rolled};

use super::geometry::{Cell, Spot};
use super::matfyz::{self, Choice};

/// What happened last, for the note below the die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// Nothing worth a note.
    None,
    /// `seat` rolled and no piece could move: the die passes on. `die` is
    /// the roll, if it was the turn's only one (a Matfyz turn loses its
    /// sixes with it).
    TurnLost { seat: Colour, die: Option<Die> },
    /// Matfyz: `seat` moved, and no piece could use the rolls its run
    /// left: they are lost and the die passes on. `die` is the roll left,
    /// if it was one.
    Unused { seat: Colour, die: Option<Die> },
    /// `seat`, with no piece out to move, rolled no six in its three
    /// tries: the die passes on.
    NoSix { seat: Colour },
    /// No six yet: `attempt` (2 or 3) of three tries is next.
    TryAgain { attempt: u8 },
    /// A six: the same colour rolls again.
    RollAgain,
    /// A `piece` of that colour was sent back to its base `by` a colour.
    Captured { piece: Colour, by: Colour },
    /// Matfyz: a `piece` of that colour was captured `by` a player and put
    /// into the base of the player `to` (whom the capturer chose).
    Given {
        piece: Colour,
        by: Colour,
        to: Colour,
    },
    /// The highest opening rolls tied at `face`: their players roll
    /// again among themselves.
    Tie { face: Die },
    /// The opening rolls chose `seat` to begin.
    Begins { seat: Colour },
    /// `seat`'s turn timer ran out and the computer played for them.
    TimedOut { seat: Colour },
    /// The player of `seat` left the game: the computer plays for them.
    Left { seat: Colour },
    /// The phone of `seat` is gone: the computer plays for them until it
    /// is back.
    Gone { seat: Colour },
    /// Online: the phones had played apart, and the turns played on this
    /// side since were undone as they met again (the others' game goes on).
    Undone,
    /// The game is over.
    Won { winner: Colour },
}

impl Note {
    /// The note of the turn `seat` lost on its last roll (`die`, if that
    /// was the turn's only one), given that roll and those before it,
    /// newest first. Three in a row without a six were its three tries for
    /// one: a turn goes on after a roll without a six only while the
    /// player waits for a six.
    pub fn turn_lost(
        seat: Colour,
        die: Option<Die>,
        newest: impl Iterator<Item = (Colour, Die)>,
    ) -> Note {
        let tries = newest
            .take(3)
            .filter(|&(s, d)| s == seat && !d.is_six())
            .count();
        if tries == 3 {
            Note::NoSix { seat }
        } else {
            Note::TurnLost { seat, die }
        }
    }

    /// Whether it is news that stands while the computer's acts have
    /// nothing else to say: at its pace it would be gone before anyone
    /// read it.
    pub fn is_news(self) -> bool {
        matches!(
            self,
            Note::Captured { .. }
                | Note::Given { .. }
                | Note::Tie { .. }
                | Note::Begins { .. }
                | Note::TimedOut { .. }
                | Note::Left { .. }
                | Note::Gone { .. }
                | Note::Undone
        )
    }

    /// The note of a Matfyz turn that ended with rolls no piece could use,
    /// from the game `before` and `after` one run, if it did (a run that
    /// brought its pieces home, or left rolls to use, did not).
    pub fn unused(before: &Game, after: &Game) -> Option<Note> {
        // (Classic rolls are used one at a time: no move is replayed.)
        if !matches!(before, Game::Matfyz(_))
            || !unused_rolls(after).is_empty()
            || matches!(after.next(), Next::Won { .. })
        {
            return None;
        }
        let run = before.legal_moves().into_iter().find_map(|mv| {
            let mut played = *before;
            played.play(mv).ok()?;
            match mv {
                Move::Matfyz(run) if played == *after => Some(run),
                _ => None,
            }
        })?;
        let mut left = unused_rolls(before);
        for die in run.rolls() {
            if let Some(at) = left.iter().position(|&d| d == die) {
                left.remove(at);
            }
        }
        let die = match left[..] {
            [] => return None,
            [one] => Some(one),
            _ => None,
        };
        Some(Note::Unused {
            seat: run.seat(),
            die,
        })
    }

    /// The note of `capture`, made by the player `by` in `game`.
    pub fn capture(game: &Game, capture: Capture, by: Colour) -> Note {
        match game {
            Game::Classic(_) => Note::Captured {
                piece: capture.piece,
                by,
            },
            Game::Matfyz(_) => Note::Given {
                piece: capture.piece,
                by,
                to: capture.to_base_of,
            },
        }
    }
}

/// One piece: its colour and which of that colour's pieces it is (0..4
/// under the classic rules, one per player under the Matfyz rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PieceId {
    pub colour: Colour,
    pub slot: usize,
}

/// A piece as the board draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceView {
    pub id: PieceId,
    /// Where it stands.
    pub spot: Spot,
    /// The board cell it is drawn on.
    pub cell: Cell,
    /// Whether tapping it now moves it (or asks how).
    pub movable: bool,
}

/// How many pieces stand in `seat`'s home: of any colour, as the Matfyz
/// rules fill a home with one piece of each.
pub fn home_count(pieces: &[PieceView], seat: Colour) -> usize {
    pieces
        .iter()
        .filter(|p| matches!(p.spot, Spot::Home(home, _) if home == seat))
        .count()
}

/// `game`'s seats from first to last place: the winner, then those who
/// did not leave on purpose (`left`), by pieces home, then by how far
/// their pieces have come (Matfyz pieces are nobody's until home). One
/// order for the result screen of a game on this device and online.
pub fn ranking(
    game: &Game,
    pieces: &[PieceView],
    winner: Option<Colour>,
    left: impl Fn(Colour) -> bool,
) -> Vec<Colour> {
    let mut seats: Vec<Colour> = game.seats().iter().collect();
    seats.sort_by_key(|&seat| {
        let progress: u32 = pieces
            .iter()
            .filter(|p| match game {
                Game::Classic(_) => p.id.colour == seat,
                Game::Matfyz(_) => matches!(p.spot, Spot::Home(home, _) if home == seat),
            })
            .map(|p| u32::from(progress(seat, p.spot)))
            .sum();
        let home = home_count(pieces, seat);
        std::cmp::Reverse((Some(seat) == winner, !left(seat), home, progress))
    });
    seats
}

/// How far a piece on `spot` has come for `seat`: 0 in a base, 1..=40 on
/// the track from the seat's start square, 41..=44 home.
fn progress(seat: Colour, spot: Spot) -> u8 {
    match spot {
        Spot::Base(_) => 0,
        Spot::Track(n) => (n + TRACK_LEN - seat.start()) % TRACK_LEN + 1,
        Spot::Home(_, h) => TRACK_LEN + h,
    }
}

/// What a tap (on a piece, a square or an answer) comes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tap {
    /// This move is to be played.
    Play(Move),
    /// The piece can move in several ways: the player is asked
    /// ([`Board::choice`]) first.
    Asked,
}

/// A move as the board sees it: which piece goes from where to where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Motion {
    colour: Colour,
    from: Spot,
    to: Spot,
}

impl Motion {
    /// The motion of `mv`, a legal move in `game`.
    fn of(game: &Game, mv: Move) -> Option<Motion> {
        match (game, mv) {
            (Game::Classic(_), Move::Classic(m)) => Some(Motion {
                colour: m.colour(),
                from: Spot::of(m.colour(), m.from()),
                to: Spot::of(m.colour(), m.to()),
            }),
            (Game::Matfyz(g), Move::Matfyz(run)) => Some(Motion {
                colour: matfyz::mover(g.position(), run)?,
                from: Spot::of(run.seat(), run.from().place()),
                to: Spot::of(run.seat(), run.to()),
            }),
            _ => None,
        }
    }
}

/// What a game played elsewhere did since the board's game, when the
/// board can show it as played: the dice rolled (oldest first; those
/// after the move too, which move nothing), and one move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub rolled: Vec<Die>,
    pub moved: Move,
}

/// A piece where the board shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placed {
    id: PieceId,
    spot: Spot,
    /// Which of its base's four cells it stands on, while it stands in a
    /// base ([`Board::free_cell`]).
    cell: usize,
}

/// The piece the player tapped, while they choose how it moves.
#[derive(Clone, Debug)]
struct Selection {
    piece: PieceId,
    /// Its legal runs still open (two or more).
    runs: Vec<Run>,
}

/// A game's board (see the module documentation).
pub struct Board {
    game: Game,
    /// Every piece with its spot, in a fixed order, so the board can
    /// follow each one.
    pieces: Vec<Placed>,
    /// The piece being asked about, if any.
    selection: Option<Selection>,
    /// Whether the move due is this phone's to make: always in a game on
    /// this device (whose computer seats are paced outside), online only
    /// when the log waits on this player.
    acting: bool,
}

impl Board {
    /// The board of `game`, whose moves are all made on this device.
    pub fn new(game: Game) -> Board {
        Board {
            pieces: identified(&game),
            game,
            selection: None,
            acting: true,
        }
    }

    /// The board of `game` played over the network, `acting` when the
    /// move due is this phone's.
    pub fn shared(game: Game, acting: bool) -> Board {
        Board {
            acting,
            ..Board::new(game)
        }
    }

    /// The rules' game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game moved on to `game` elsewhere (`acting`: whether the move
    /// due now is this phone's), by `step` if it is known. That step's
    /// move is shown as [`Board::play`] shows it (so a Matfyz piece that
    /// captures one of its own colour stays itself); anything else (a
    /// catch-up, rolls alone) is matched spot by spot. Returns a capture
    /// this shows: a piece that went into a base from outside one.
    pub fn follow(&mut self, game: Game, acting: bool, step: Option<&Step>) -> Option<Capture> {
        if game != self.game || !acting {
            self.selection = None;
        }
        self.acting = acting;
        let capture = match step.and_then(|step| self.motion(step, &game)) {
            Some((motion, captured)) => match self.place(motion, captured) {
                Some(()) => captured,
                None => self.match_spots(&game),
            },
            None => self.match_spots(&game),
        };
        self.game = game;
        capture
    }

    /// The motion of `step`'s move, and what it captured, if the step
    /// leads from this board's game to `game`'s pieces: after as many of
    /// its rolls as bring the move due (at most one count does: a roll
    /// fewer leaves a roll due, one more comes when the move is).
    fn motion(&self, step: &Step, game: &Game) -> Option<(Motion, Option<Capture>)> {
        let sorted = |game: &Game| {
            let mut spots = spots(game);
            spots.sort();
            spots
        };
        let goal = sorted(game);
        (0..=step.rolled.len()).rev().find_map(|rolls| {
            let mut before = self.game;
            for &die in &step.rolled[..rolls] {
                before.roll(die).ok()?;
            }
            let mut after = before;
            let played = after.play(step.moved).ok()?;
            (sorted(&after) == goal).then_some((Motion::of(&before, step.moved)?, played.captured))
        })
    }

    /// Moves pieces to `game`'s spots without knowing the moves: those
    /// that still stand where they stood stay (of pieces that stood
    /// together in a base, the one on the highest cell leaves), the
    /// others take the spots left over, of their colour.
    fn match_spots(&mut self, game: &Game) -> Option<Capture> {
        let mut left = spots(game);
        let mut order: Vec<usize> = (0..self.pieces.len()).collect();
        order.sort_by_key(|&i| self.pieces[i].cell);
        let mut moved = Vec::new();
        for i in order {
            let piece = self.pieces[i];
            match left
                .iter()
                .position(|&at| at == (piece.id.colour, piece.spot))
            {
                Some(k) => {
                    left.swap_remove(k);
                }
                None => moved.push(i),
            }
        }
        moved.sort();
        let mut capture = None;
        for i in moved {
            let colour = self.pieces[i].id.colour;
            let Some(k) = left.iter().position(|&(c, _)| c == colour) else {
                continue;
            };
            let (_, to) = left.swap_remove(k);
            let from = self.pieces[i].spot;
            if let Spot::Base(seat) = to {
                self.pieces[i].cell = self.free_cell(colour, seat);
                if !matches!(from, Spot::Base(_)) {
                    capture = Some(Capture {
                        piece: colour,
                        to_base_of: seat,
                    });
                }
            }
            self.pieces[i].spot = to;
        }
        capture
    }

    /// Rolls `die` in a game on this device.
    pub fn roll(&mut self, die: Die) -> Result<Rolled, FlowError> {
        self.game.roll(die)
    }

    /// Plays `mv` in a game on this device: its piece moves, and a piece
    /// it captures goes to the base the rules say.
    pub fn play(&mut self, mv: Move) -> Result<Played, FlowError> {
        let motion = Motion::of(&self.game, mv).ok_or(FlowError::Illegal)?;
        self.mover(motion).ok_or(FlowError::Illegal)?;
        let played = self.game.play(mv)?;
        self.selection = None;
        self.place(motion, played.captured);
        debug_assert!(self.pieces_match_the_rules());
        Ok(played)
    }

    /// The piece `motion` moves: of pieces standing together in a base,
    /// the one on the highest cell, whichever the player tapped (they look
    /// alike), so that every phone of a game, and the game replayed from
    /// its record, shows the same cell emptied.
    fn mover(&self, motion: Motion) -> Option<usize> {
        (0..self.pieces.len())
            .filter(|&i| {
                let piece = &self.pieces[i];
                (piece.id.colour, piece.spot) == (motion.colour, motion.from)
            })
            .max_by_key(|&i| self.pieces[i].cell)
    }

    /// Shows `motion` made by its piece ([`Board::mover`]), and the piece
    /// it `captured` sent to the base the rules say. `None` if no piece
    /// stands where the motion starts.
    fn place(&mut self, motion: Motion, captured: Option<Capture>) -> Option<()> {
        let piece = self.mover(motion)?;
        if let Some(capture) = captured {
            // Found before the mover lands, which may be of its colour.
            let victim = self
                .pieces
                .iter()
                .position(|p| p.spot == motion.to && p.id.colour == capture.piece);
            if let Some(victim) = victim {
                let cell = self.free_cell(capture.piece, capture.to_base_of);
                self.pieces[victim].spot = Spot::Base(capture.to_base_of);
                self.pieces[victim].cell = cell;
            }
        }
        self.pieces[piece].spot = motion.to;
        Some(())
    }

    /// The cell of `seat`'s base a piece of `colour` takes as it comes in:
    /// under the classic rules the lowest free one (a piece leaves from
    /// the highest, so every phone fills a base from its first cell
    /// whatever happened before, as one that joined later does); under the
    /// Matfyz rules, where a base holds one piece of each colour at most,
    /// its colour's, so a base reads alike whoever's it is.
    fn free_cell(&self, colour: Colour, seat: Colour) -> usize {
        free_cell(&self.game, &self.pieces, colour, seat)
    }

    fn pieces_match_the_rules(&self) -> bool {
        let mut mine: Vec<(Colour, Spot)> =
            self.pieces.iter().map(|p| (p.id.colour, p.spot)).collect();
        mine.sort();
        let mut rules = spots(&self.game);
        rules.sort();
        mine == rules
    }

    /// The rolls of the turn not used yet, in the order they are used
    /// (Matfyz: the sixes rolled so far, then the number that ended the
    /// rolling). Empty under the classic rules, where each roll is used
    /// at once.
    pub fn unused_rolls(&self) -> Vec<Die> {
        unused_rolls(&self.game)
    }

    /// The legal moves this phone may make now, with their motions.
    fn motions(&self) -> Vec<(Move, Motion)> {
        if !self.acting {
            return Vec::new();
        }
        self.game
            .legal_moves()
            .into_iter()
            .filter_map(|mv| Some((mv, Motion::of(&self.game, mv)?)))
            .collect()
    }

    /// Every piece on the board, with whether it may move now (while the
    /// player is asked about a piece, only that one). Pieces in one base
    /// share the moves out of it, so each of them is offered: a tap on
    /// any brings one piece out (a tap reaches less than a base's far
    /// corner, so offering only one left the others dead to a tap).
    pub fn pieces(&self) -> Vec<PieceView> {
        let motions = self.motions();
        let asked = self.selection.as_ref().map(|s| s.piece);
        self.pieces
            .iter()
            .map(|&Placed { id, spot, cell }| {
                let movable = asked.is_none_or(|piece| piece == id)
                    && motions
                        .iter()
                        .any(|(_, m)| (m.colour, m.from) == (id.colour, spot));
                PieceView {
                    id,
                    spot,
                    cell: spot.cell(cell),
                    movable,
                }
            })
            .collect()
    }

    /// Where the tapped piece (or any piece, if none is tapped) may end
    /// its move now: the squares the board marks.
    pub fn targets(&self) -> Vec<Spot> {
        let mut targets: Vec<Spot> = match &self.selection {
            Some(selection) => selection
                .runs
                .iter()
                .filter_map(|&run| Motion::of(&self.game, Move::Matfyz(run)))
                .map(|m| m.to)
                .collect(),
            None => self.motions().into_iter().map(|(_, m)| m.to).collect(),
        };
        targets.sort();
        targets.dedup();
        targets
    }

    /// What the player is asked about the piece they tapped, if anything.
    pub fn choice(&self) -> Option<(PieceId, Choice)> {
        let selection = self.selection.as_ref()?;
        let Game::Matfyz(g) = &self.game else {
            return None;
        };
        Some((
            selection.piece,
            Choice::between(g.position(), &selection.runs)?,
        ))
    }

    /// Drops the question about the tapped piece; another can be tapped.
    pub fn cancel_choice(&mut self) {
        self.selection = None;
    }

    /// Answers the question with its option `index`: the move, or the next
    /// question (who receives the piece a plan captures).
    pub fn choose(&mut self, index: usize) -> Result<Tap, FlowError> {
        let (piece, choice) = self.choice().ok_or(FlowError::Illegal)?;
        let runs = &self.selection.as_ref().ok_or(FlowError::Illegal)?.runs;
        let kept = choice.keep(runs, index);
        if kept.is_empty() {
            return Err(FlowError::Illegal);
        }
        self.offer(piece, kept.into_iter().map(Move::Matfyz).collect())
    }

    /// The player taps `piece`: its move if it may move now, or a question
    /// when it can move in several ways.
    pub fn tap_piece(&mut self, piece: PieceId) -> Result<Tap, FlowError> {
        self.move_due()?;
        let spot = self
            .pieces
            .iter()
            .find(|p| p.id == piece)
            .ok_or(FlowError::Illegal)?
            .spot;
        let moves = self
            .motions()
            .into_iter()
            .filter(|(_, m)| (m.colour, m.from) == (piece.colour, spot))
            .map(|(mv, _)| mv)
            .collect();
        self.offer(piece, moves)
    }

    /// The player taps `spot`: the move of the piece that may end its move
    /// there (the tapped piece's, while one is asked about), or a question.
    /// Where more than one may end there, a piece that may move and
    /// stands there is tapped (Matfyz: the piece a run captures may be
    /// one the player could move, and a tap on its square goes to the
    /// square first); otherwise refused: then the piece is to be tapped.
    pub fn tap_to(&mut self, spot: Spot) -> Result<Tap, FlowError> {
        self.move_due()?;
        let ending: Vec<(Move, Motion)> = self
            .motions()
            .into_iter()
            .filter(|(_, m)| m.to == spot)
            .collect();
        let (piece, moves) = match &self.selection {
            Some(selection) => {
                let moves = ending
                    .into_iter()
                    .map(|(mv, _)| mv)
                    .filter(|mv| matches!(mv, Move::Matfyz(r) if selection.runs.contains(r)))
                    .collect();
                (selection.piece, moves)
            }
            None => {
                let (_, first) = *ending.first().ok_or(FlowError::Illegal)?;
                let start = (first.colour, first.from);
                if ending.iter().any(|(_, m)| (m.colour, m.from) != start) {
                    let standing = self
                        .pieces()
                        .into_iter()
                        .find(|p| p.movable && p.spot == spot);
                    return match standing {
                        Some(piece) => self.tap_piece(piece.id),
                        None => Err(FlowError::Illegal),
                    };
                }
                let piece = self
                    .pieces()
                    .into_iter()
                    .find(|p| p.movable && (p.id.colour, p.spot) == start)
                    .ok_or(FlowError::Illegal)?;
                (piece.id, ending.into_iter().map(|(mv, _)| mv).collect())
            }
        };
        self.offer(piece, moves)
    }

    fn move_due(&self) -> Result<(), FlowError> {
        match self.game.next() {
            Next::Move { .. } if self.acting => Ok(()),
            Next::Move { .. } => Err(FlowError::Illegal),
            Next::Roll { .. } => Err(FlowError::RollDue),
            Next::Won { .. } => Err(FlowError::GameOver),
        }
    }

    /// The one move of `moves`, or a question about `piece` when there are
    /// more.
    fn offer(&mut self, piece: PieceId, moves: Vec<Move>) -> Result<Tap, FlowError> {
        match moves.as_slice() {
            [] => Err(FlowError::Illegal),
            [mv] => {
                self.selection = None;
                Ok(Tap::Play(*mv))
            }
            _ => {
                let runs = moves
                    .iter()
                    .filter_map(|mv| match mv {
                        Move::Matfyz(run) => Some(*run),
                        Move::Classic(_) => None,
                    })
                    .collect();
                self.selection = Some(Selection { piece, runs });
                Ok(Tap::Asked)
            }
        }
    }
}

/// Every piece of `game` with its spot, numbered per colour in the order
/// of [`spots`], those in a base on its first free cells.
fn identified(game: &Game) -> Vec<Placed> {
    let found = spots(game);
    let mut pieces: Vec<Placed> = Vec::with_capacity(found.len());
    for (colour, spot) in found {
        let slot = pieces.iter().filter(|p| p.id.colour == colour).count();
        let cell = match spot {
            Spot::Base(seat) => free_cell(game, &pieces, colour, seat),
            Spot::Track(_) | Spot::Home(..) => 0,
        };
        pieces.push(Placed {
            id: PieceId { colour, slot },
            spot,
            cell,
        });
    }
    pieces
}

/// [`Board::free_cell`] among `pieces`.
fn free_cell(game: &Game, pieces: &[Placed], colour: Colour, seat: Colour) -> usize {
    match game {
        Game::Classic(_) => (0..4)
            .find(|&cell| {
                !pieces
                    .iter()
                    .any(|p| p.spot == Spot::Base(seat) && p.cell == cell)
            })
            .unwrap_or(0),
        Game::Matfyz(_) => colour.index(),
    }
}

/// Every piece of `game` as its colour and spot.
pub(super) fn spots(game: &Game) -> Vec<(Colour, Spot)> {
    match game {
        Game::Classic(g) => g
            .position()
            .seats()
            .iter()
            .flat_map(|c| g.position().places(c).map(|place| (c, Spot::of(c, place))))
            .collect(),
        Game::Matfyz(g) => matfyz::spots(g.position()),
    }
}

/// The rolls of `game`'s turn not used yet: Matfyz keeps a turn's sixes
/// (and the roll after them) for the plan; classic uses each roll at once.
pub(super) fn unused_rolls(game: &Game) -> Vec<Die> {
    match game {
        Game::Classic(_) => Vec::new(),
        Game::Matfyz(g) => {
            let rolls = g.position().rolls();
            let sixes = usize::try_from(rolls.sixes).unwrap_or(usize::MAX);
            std::iter::repeat_n(Die::SIX, sixes)
                .chain(rolls.last)
                .collect()
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::matfyz::{self as rules, Rolls};
    use crate::rules::{HouseRules, Place, RuleSet, Seats, classic};

    /// A two-player classic game, Red to roll, with Red's and Green's
    /// pieces where the notation's places say (`"T3"`, `"B"`, …).
    pub(in crate::app) fn two_player_classic(red: [&str; 4], green: [&str; 4]) -> Game {
        let pieces = [(Colour::Red, red), (Colour::Green, green)].map(|(c, ps)| {
            (
                c,
                ps.iter()
                    .map(|p| p.parse().unwrap())
                    .collect::<Vec<Place>>(),
            )
        });
        let seats = Seats::for_players(2).unwrap();
        let position = classic::Position::new(seats, Colour::Red, &pieces).unwrap();
        Game::Classic(classic::Game::new(HouseRules::default(), position))
    }

    fn die(n: u8) -> Die {
        Die::new(n).unwrap()
    }

    #[test]
    fn a_home_counts_the_pieces_in_it_whatever_their_colour() {
        let piece = |colour, spot| PieceView {
            id: PieceId { colour, slot: 0 },
            spot,
            cell: Cell { col: 0, row: 0 },
            movable: false,
        };
        let pieces = [
            piece(Colour::Blue, Spot::Home(Colour::Red, 1)),
            piece(Colour::Red, Spot::Home(Colour::Red, 2)),
            piece(Colour::Red, Spot::Home(Colour::Green, 1)),
            piece(Colour::Red, Spot::Base(Colour::Red)),
        ];
        assert_eq!(home_count(&pieces, Colour::Red), 2);
        assert_eq!(home_count(&pieces, Colour::Green), 1);
        assert_eq!(home_count(&pieces, Colour::Blue), 0);
    }

    /// docs/matfyz.md's position with red to move after `rolls`.
    fn matfyz(rolls: Rolls) -> Game {
        let layout = matfyz::docs_example(rolls);
        Game::Matfyz(rules::Game::new(rules::Position::new(&layout).unwrap()))
    }

    fn six_and(n: u8) -> Rolls {
        Rolls {
            sixes: 1,
            last: Some(die(n)),
        }
    }

    fn piece_on(board: &Board, spot: Spot) -> PieceView {
        board.pieces().into_iter().find(|p| p.spot == spot).unwrap()
    }

    #[test]
    fn a_matfyz_piece_with_two_plans_asks_how_far_and_the_answer_is_its_move() {
        let mut board = Board::shared(matfyz(six_and(3)), true);
        let yellow = piece_on(&board, Spot::Track(10));
        assert_eq!(board.tap_piece(yellow.id), Ok(Tap::Asked));
        let Some((piece, Choice::Plan(plans))) = board.choice() else {
            panic!("no plan asked: {:?}", board.choice());
        };
        assert_eq!(piece, yellow.id);
        let ends: Vec<Spot> = plans.iter().map(|p| p.end).collect();
        assert_eq!(ends, [Spot::Track(16), Spot::Track(19)]);
        let Ok(Tap::Play(Move::Matfyz(run))) = board.choose(1) else {
            panic!("the answer is no move");
        };
        assert_eq!(run.to(), Place::Track(19));
        assert_eq!(board.choice(), None, "answered");
    }

    /// Matfyz: two blue pieces may end on T10 (from T4 with the six, from
    /// T1 with both rolls), where a yellow that may move stands. A tap on
    /// the square, which names no one move, is the yellow's.
    #[test]
    fn a_square_several_pieces_may_reach_is_the_tap_of_the_movable_piece_on_it() {
        use Colour::{Blue, Green, Red, Yellow};
        let layout = rules::Layout {
            seats: crate::rules::Seats::for_players(3).unwrap(),
            turn: Red,
            bases: vec![
                (Red, vec![Red, Green]),
                (Blue, vec![Red, Green]),
                (Green, vec![Red, Blue, Green, Yellow]),
            ],
            homes: vec![(Red, [None; 4]), (Blue, [None; 4]), (Green, [None; 4])],
            track: vec![(1, Blue), (4, Blue), (10, Yellow), (30, Yellow)],
            rolls: six_and(3),
            done: Vec::new(),
        };
        let game = Game::Matfyz(rules::Game::new(rules::Position::new(&layout).unwrap()));
        let mut board = Board::shared(game, true);
        let from = |spot| {
            board
                .motions()
                .into_iter()
                .any(|(_, m)| m.from == spot && m.to == Spot::Track(10))
        };
        assert!(
            from(Spot::Track(1)) && from(Spot::Track(4)),
            "both blues reach T10"
        );
        let yellow = piece_on(&board, Spot::Track(10));
        assert!(yellow.movable);
        assert_eq!(board.tap_to(Spot::Track(10)), Ok(Tap::Asked));
        assert!(matches!(board.choice(), Some((piece, Choice::Plan(_))) if piece == yellow.id));
    }

    #[test]
    fn a_board_that_is_not_acting_offers_nothing_and_refuses_taps() {
        let mut board = Board::shared(matfyz(six_and(3)), false);
        assert!(board.pieces().iter().all(|p| !p.movable));
        assert!(board.targets().is_empty());
        let yellow = piece_on(&board, Spot::Track(10));
        assert_eq!(board.tap_piece(yellow.id), Err(FlowError::Illegal));
    }

    #[test]
    fn following_the_game_drops_an_open_question() {
        let game = matfyz(six_and(3));
        let mut board = Board::shared(game, true);
        let yellow = piece_on(&board, Spot::Track(10));
        board.tap_piece(yellow.id).unwrap();
        assert!(board.choice().is_some());
        assert_eq!(board.follow(game, false, None), None);
        assert_eq!(board.choice(), None);
    }

    #[test]
    fn every_phone_empties_the_same_base_cell_whichever_piece_was_tapped() {
        let mut rolled = two_player_classic(["B", "B", "B", "B"], ["B", "B", "B", "B"]);
        rolled.roll(Die::SIX).unwrap();
        let mut acting = Board::shared(rolled, true);
        let mut watching = Board::shared(rolled, false);
        let first = piece_on(&acting, Spot::Base(Colour::Red));
        let Ok(Tap::Play(mv)) = acting.tap_piece(first.id) else {
            panic!("bringing a piece out is the one move");
        };
        let mut moved = rolled;
        moved.play(mv).unwrap();
        let step = Step {
            rolled: Vec::new(),
            moved: mv,
        };
        acting.follow(moved, false, Some(&step));
        watching.follow(moved, false, Some(&step));
        assert_eq!(acting.pieces(), watching.pieces());
    }

    /// Random games of `rules`, followed by a board as another phone sees
    /// them: a roll alone (half of them; the others reach it with their
    /// move, as the computer's do, and a third of the moves with the roll
    /// after them) moves nothing, each move moves its piece, and the board
    /// shows what a board made at that point shows (a phone that joined,
    /// or restarted, then). Returns how many moves
    /// captured a piece of the mover's own colour.
    fn follow_random_games(rules: RuleSet, games: u64) -> usize {
        let mut own_captures = 0;
        for seed in 0..games {
            let mut state = seed;
            let mut below = |n: usize| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as usize % n
            };
            let seats = Seats::for_players(4).unwrap();
            let mut game = Game::new(rules, seats, Colour::Red).unwrap();
            let mut board = Board::shared(game, false);
            let shown = |board: &Board| {
                let mut shown: Vec<(Spot, Cell, Colour)> = board
                    .pieces()
                    .iter()
                    .map(|p| (p.spot, p.cell, p.id.colour))
                    .collect();
                shown.sort();
                shown
            };
            let mut rolled = Vec::new();
            while !matches!(game.next(), Next::Won { .. }) {
                if let Next::Roll { .. } = game.next() {
                    let face = die(below(6) as u8 + 1);
                    game.roll(face).unwrap();
                    rolled.push(face);
                    if below(2) == 0 {
                        continue;
                    }
                    let before = board.pieces();
                    assert_eq!(board.follow(game, false, None), None);
                    assert_eq!(board.pieces(), before, "{rules:?}, game {seed}");
                    rolled.clear();
                } else {
                    let moves = game.legal_moves();
                    let mv = moves[below(moves.len())];
                    let motion = Motion::of(&game, mv).unwrap();
                    let mover = board.pieces[board.mover(motion).unwrap()].id;
                    let played = game.play(mv).unwrap();
                    // A catch-up may hold the next roll too.
                    if below(3) == 0 && matches!(game.next(), Next::Roll { .. }) {
                        let face = die(below(6) as u8 + 1);
                        game.roll(face).unwrap();
                        rolled.push(face);
                    }
                    let step = Step {
                        rolled: std::mem::take(&mut rolled),
                        moved: mv,
                    };
                    let captured = board.follow(game, false, Some(&step));
                    assert_eq!(captured, played.captured, "{rules:?}, game {seed}");
                    let moved = board.pieces.iter().find(|p| p.id == mover).unwrap();
                    assert_eq!(moved.spot, motion.to, "{rules:?}, game {seed}");
                    own_captures +=
                        usize::from(played.captured.is_some_and(|c| c.piece == motion.colour));
                }
                assert_eq!(
                    shown(&board),
                    shown(&Board::shared(game, false)),
                    "{rules:?}, game {seed}"
                );
            }
        }
        own_captures
    }

    #[test]
    fn a_followed_board_keeps_each_mover_and_shows_what_a_later_board_shows() {
        follow_random_games(RuleSet::Classic(HouseRules::default()), 10);
        let own = follow_random_games(RuleSet::Matfyz, 10);
        assert!(own > 0, "some Matfyz piece captures one of its colour");
    }

    #[test]
    fn a_followed_move_keeps_each_pieces_identity_and_shows_a_capture() {
        let mut board = Board::shared(
            two_player_classic(["T3", "B", "T17", "B"], ["T5", "B", "B", "B"]),
            false,
        );
        let before = board.pieces();
        // No move known (a catch-up): matched spot by spot.
        let captured = board.follow(
            two_player_classic(["B", "B", "T17", "T5"], ["B", "B", "B", "B"]),
            false,
            None,
        );
        assert_eq!(
            captured,
            Some(Capture {
                piece: Colour::Green,
                to_base_of: Colour::Green
            })
        );
        let after = board.pieces();
        let spot = |spot: Spot| before.iter().find(|p| p.spot == spot).unwrap().id;
        let now = |id: PieceId| *after.iter().find(|p| p.id == id).unwrap();
        // The red piece on T3 moved to T5; the one on T17 stayed.
        assert_eq!(now(spot(Spot::Track(3))).spot, Spot::Track(5));
        assert_eq!(now(spot(Spot::Track(17))).spot, Spot::Track(17));
        // The captured green piece takes its base's first free cell.
        let green = now(spot(Spot::Track(5)));
        assert_eq!(green.spot, Spot::Base(Colour::Green));
        assert_eq!(green.cell, Spot::Base(Colour::Green).cell(3));
        assert_eq!(
            after.iter().map(|p| p.id).collect::<Vec<_>>(),
            before.iter().map(|p| p.id).collect::<Vec<_>>(),
            "the order stays"
        );
    }

    /// Red in turn with a six and a four: its red piece on T34, which the
    /// six brings to H1, and a blue piece in its base (it holds green and
    /// yellow at home).
    pub(in crate::app) fn red_near_home_with_six_and_four() -> Game {
        use Colour::{Blue, Green, Red, Yellow};
        let layout = rules::Layout {
            seats: Seats::for_players(2).unwrap(),
            turn: Red,
            bases: vec![(Red, vec![Blue]), (Green, vec![Red, Blue, Green, Yellow])],
            homes: vec![
                (Red, [None, None, Some(Green), Some(Yellow)]),
                (Green, [None; 4]),
            ],
            track: vec![(34, Red)],
            rolls: six_and(4),
            done: vec![],
        };
        Game::Matfyz(rules::Game::new(rules::Position::new(&layout).unwrap()))
    }

    #[test]
    fn a_matfyz_run_that_leaves_a_roll_no_piece_can_use_says_it_is_lost() {
        let before = red_near_home_with_six_and_four();
        let after = |to: Place| {
            let mv = (before.legal_moves().into_iter())
                .find(|mv| matches!(mv, Move::Matfyz(run) if run.to() == to))
                .unwrap();
            let mut after = before;
            after.play(mv).unwrap();
            after
        };
        let lost = Note::Unused {
            seat: Colour::Red,
            die: Some(die(4)),
        };
        let home = after(Place::Home(1));
        assert_eq!(Note::unused(&before, &home), Some(lost), "the 4 is lost");
        let both = after(Place::Track(4));
        assert_eq!(Note::unused(&before, &both), None, "both rolls used");
        let red_next = after(Place::Track(0));
        assert_eq!(
            Note::unused(&before, &red_next),
            None,
            "the 4 is the red piece's"
        );
        assert_eq!(Note::unused(&before, &before), None, "no run");
    }
}
