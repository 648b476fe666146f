//! The classic rules (the HoyHop text, seeds 004/000), their three house
//! rules and the Croatian preset.
//!
//! A piece's place is stored as its *progress* from its own colour's point of
//! view, so that moving is an addition: 0 is the base, 1..=40 the track from
//! the colour's start square round to the square just behind it, 41..=44 the
//! home squares H1..H4. Each colour's four progresses are kept sorted, so two
//! equal positions are equal values.

use super::board::{Colour, Die, HOME_LEN, Place, Seats, TRACK_LEN};
use super::{Capture, FlowError, Played, Rolled};

const BASE: u8 = 0;
const START: u8 = 1;
const LAST_TRACK: u8 = TRACK_LEN;
const LAST_HOME: u8 = TRACK_LEN + HOME_LEN;
/// Attempts at a six for a colour with nothing else to move.
pub const TRIES: u8 = 3;

/// The three house rules of the HoyHop text, each a switch, all off by default.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct HouseRules {
    /// A capture, when one is possible, must be made (unless bringing out or
    /// clearing the start square is due).
    pub compulsory_capture: bool,
    /// Neither bringing out after a six nor clearing the start square is due.
    pub optional_bring_out: bool,
    /// A piece may not jump over another piece in the home row.
    pub no_jump_home: bool,
}

impl HouseRules {
    /// The Croatian preset: classic with no jumping in the home row (its way
    /// of choosing the first player is [`super::FirstPlayer::FirstSix`]).
    pub const CROATIAN: HouseRules = HouseRules {
        compulsory_capture: false,
        optional_bring_out: false,
        no_jump_home: true,
    };
}

/// Absolute track square (0..40) of progress `spot` (1..=40) of `colour`.
const fn track_square(colour: Colour, spot: u8) -> u8 {
    (colour.start() + spot - 1) % TRACK_LEN
}

const fn to_place(colour: Colour, spot: u8) -> Place {
    match spot {
        BASE => Place::Base,
        START..=LAST_TRACK => Place::Track(track_square(colour, spot)),
        _ => Place::Home(spot - LAST_TRACK),
    }
}

const fn to_spot(colour: Colour, place: Place) -> u8 {
    match place {
        Place::Base => BASE,
        Place::Track(square) => (square + TRACK_LEN - colour.start()) % TRACK_LEN + START,
        Place::Home(h) => LAST_TRACK + h,
    }
}

/// Why a set of pieces is not a position that can arise in play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidPosition {
    #[error("{0} is not seated but has pieces")]
    UnseatedColour(Colour),
    #[error("{0} is seated but has no pieces")]
    MissingColour(Colour),
    #[error("{0} must have exactly 4 pieces, not {1}")]
    PieceCount(Colour, usize),
    #[error("two {0} pieces on {1}")]
    SharedSquare(Colour, Place),
    #[error("{0} and {1} pieces both on {2}")]
    TwoColours(Colour, Colour, Place),
    #[error("the colour to act, {0}, is not seated")]
    TurnNotSeated(Colour),
    #[error("{0} has all pieces home, so the game is over and {0} must be the colour in turn")]
    FinishedNotInTurn(Colour),
}

/// The pieces of every seated colour and the colour to act. A small `Copy`
/// value; equal positions compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    seats: Seats,
    turn: Colour,
    /// Progress of each colour's pieces, sorted ascending; all zero for
    /// colours that are not seated.
    spots: [[u8; 4]; 4],
}

impl Position {
    /// Every seated colour with all pieces in base, `first` to act.
    pub fn start(seats: Seats, first: Colour) -> Result<Position, InvalidPosition> {
        if !seats.contains(first) {
            return Err(InvalidPosition::TurnNotSeated(first));
        }
        Ok(Position {
            seats,
            turn: first,
            spots: [[BASE; 4]; 4],
        })
    }

    /// The position with these pieces (four places for each seated colour, in
    /// any order), checked for everything that cannot arise in play.
    pub fn new(
        seats: Seats,
        turn: Colour,
        pieces: &[(Colour, Vec<Place>)],
    ) -> Result<Position, InvalidPosition> {
        let mut position = Position::start(seats, turn)?;
        let mut given = [false; 4];
        for (colour, places) in pieces {
            if !seats.contains(*colour) {
                return Err(InvalidPosition::UnseatedColour(*colour));
            }
            if places.len() != 4 || given[colour.index()] {
                let count = places.len() + if given[colour.index()] { 4 } else { 0 };
                return Err(InvalidPosition::PieceCount(*colour, count));
            }
            given[colour.index()] = true;
            let spots = &mut position.spots[colour.index()];
            for (spot, &place) in spots.iter_mut().zip(places) {
                *spot = to_spot(*colour, place);
            }
            spots.sort_unstable();
            if let Some(w) = spots.windows(2).find(|w| w[0] != BASE && w[0] == w[1]) {
                return Err(InvalidPosition::SharedSquare(
                    *colour,
                    to_place(*colour, w[0]),
                ));
            }
        }
        if let Some(missing) = seats.iter().find(|c| !given[c.index()]) {
            return Err(InvalidPosition::MissingColour(missing));
        }
        let mut owner: [Option<Colour>; TRACK_LEN as usize] = [None; TRACK_LEN as usize];
        for colour in seats.iter() {
            for place in position.places(colour) {
                if let Place::Track(square) = place {
                    if let Some(other) = owner[square as usize].replace(colour) {
                        return Err(InvalidPosition::TwoColours(other, colour, place));
                    }
                }
            }
            if position.all_home(colour) && colour != turn {
                return Err(InvalidPosition::FinishedNotInTurn(colour));
            }
        }
        Ok(position)
    }

    /// The colours in play.
    pub fn seats(&self) -> Seats {
        self.seats
    }

    /// The colour to act.
    pub fn turn(&self) -> Colour {
        self.turn
    }

    /// Where `colour`'s four pieces stand, in the order they travel: base
    /// first, then along the track, then home.
    pub fn places(&self, colour: Colour) -> [Place; 4] {
        self.spots[colour.index()].map(|spot| to_place(colour, spot))
    }

    /// Whether all of `colour`'s pieces are home.
    pub fn all_home(&self, colour: Colour) -> bool {
        self.spots[colour.index()][0] > LAST_TRACK
    }

    /// The seated colour standing on track square `square`, if any.
    pub fn occupant(&self, square: u8) -> Option<Colour> {
        let bit = 1u64 << square;
        self.seats.iter().find(|&c| self.track_mask(c) & bit != 0)
    }

    /// Bit `n` is set where `colour` has a piece on track square `n`.
    fn track_mask(&self, colour: Colour) -> u64 {
        self.spots[colour.index()]
            .iter()
            .filter(|&&s| (START..=LAST_TRACK).contains(&s))
            .fold(0, |mask, &s| mask | 1 << track_square(colour, s))
    }

    /// Bit `h` (1..=4) is set where `colour` has a piece on home square `h`.
    fn home_mask(&self, colour: Colour) -> u8 {
        self.spots[colour.index()]
            .iter()
            .filter(|&&s| s > LAST_TRACK)
            .fold(0, |mask, &s| mask | 1 << (s - LAST_TRACK))
    }

    /// The moves the rules allow the colour in turn for `roll`, with every
    /// obligation (bring out, clear the start square, compulsory capture)
    /// applied. Empty when the roll cannot be used.
    pub fn legal_moves(&self, house: HouseRules, roll: Die) -> Moves {
        let colour = self.turn;
        let spots = self.spots[colour.index()];
        let r = roll.get();
        let own = self.track_mask(colour);
        let others = self
            .seats
            .iter()
            .filter(|&c| c != colour)
            .fold(0, |mask, c| mask | self.track_mask(c));
        let home = self.home_mask(colour);
        let start_bit = 1u64 << colour.start();
        let has_base = spots[0] == BASE;

        let mut moves = Moves::default();
        let mut captures = 0u8;
        if has_base && roll.is_six() && own & start_bit == 0 {
            if others & start_bit != 0 {
                captures |= 1;
            }
            moves.push(Move::new(colour, BASE, START));
        }
        for &from in spots.iter().filter(|&&s| s != BASE) {
            let to = from + r;
            if to > LAST_HOME {
                continue;
            }
            if to <= LAST_TRACK {
                let bit = 1u64 << track_square(colour, to);
                if own & bit != 0 {
                    continue;
                }
                if others & bit != 0 {
                    captures |= 1 << moves.len;
                }
            } else {
                let target = to - LAST_TRACK;
                // Home squares strictly before the target that the piece passes.
                let first = from.saturating_sub(LAST_TRACK) + 1;
                let passed = (1u8 << target) - (1u8 << first);
                if home & (1 << target) != 0 || (house.no_jump_home && home & passed != 0) {
                    continue;
                }
            }
            moves.push(Move::new(colour, from, to));
        }

        if has_base && !house.optional_bring_out {
            // Bringing out comes first, then clearing the start square.
            if let Some(&due) = moves
                .iter()
                .find(|m| m.from == BASE)
                .or_else(|| moves.iter().find(|m| m.from == START))
            {
                return Moves::one(due);
            }
        }
        if house.compulsory_capture && captures != 0 {
            return moves.filtered(captures);
        }
        moves
    }

    /// Whether the colour in turn must roll for a six: nothing on the track
    /// and no home piece that could still move with any roll.
    pub fn waits_for_six(&self, house: HouseRules) -> bool {
        let colour = self.turn;
        if self.track_mask(colour) != 0 {
            return false;
        }
        let home = self.home_mask(colour);
        self.spots[colour.index()]
            .iter()
            .filter(|&&s| s > LAST_TRACK)
            .all(|&s| {
                let h = s - LAST_TRACK;
                let next = 1u8 << (h + 1);
                let deeper = (1u8 << (HOME_LEN + 1)) - next;
                if house.no_jump_home {
                    h == HOME_LEN || home & next != 0
                } else {
                    home & deeper == deeper
                }
            })
    }

    /// Plays `mv` for the colour in turn, without checking that the rules
    /// allow it (use [`Game::play`] for that), and returns the colour whose
    /// piece was captured. The turn does not pass.
    pub fn apply(&mut self, mv: Move) -> Option<Colour> {
        let colour = mv.colour;
        let spots = &mut self.spots[colour.index()];
        if let Some(spot) = spots.iter_mut().find(|s| **s == mv.from) {
            *spot = mv.to;
        }
        spots.sort_unstable();
        if !(START..=LAST_TRACK).contains(&mv.to) {
            return None;
        }
        let square = track_square(colour, mv.to);
        let victim = self
            .seats
            .iter()
            .find(|&c| c != colour && self.track_mask(c) & (1 << square) != 0)?;
        let spots = &mut self.spots[victim.index()];
        let hit = to_spot(victim, Place::Track(square));
        if let Some(spot) = spots.iter_mut().find(|s| **s == hit) {
            *spot = BASE;
        }
        spots.sort_unstable();
        Some(victim)
    }

    /// Passes the turn to the next seated colour.
    pub fn pass_turn(&mut self) {
        self.turn = self.seats.after(self.turn);
    }
}

/// One move of one piece: the colour's piece that stands on `from` goes to
/// `to`. Both are stored as the colour's progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Move {
    colour: Colour,
    from: u8,
    to: u8,
}

impl Move {
    const fn new(colour: Colour, from: u8, to: u8) -> Move {
        Move { colour, from, to }
    }

    /// The colour of the moving piece.
    pub fn colour(self) -> Colour {
        self.colour
    }

    /// Where the piece stands before the move.
    pub fn from(self) -> Place {
        to_place(self.colour, self.from)
    }

    /// Where the piece stands after the move.
    pub fn to(self) -> Place {
        to_place(self.colour, self.to)
    }

    /// The piece's progress before and after the move, as the mover sees
    /// it: 0 in base, 1..=40 along the track from its start square, 41..=44
    /// home. Computer players score moves with it.
    pub fn progress(self) -> (u8, u8) {
        (self.from, self.to)
    }
}

/// The legal moves for one roll: at most one per piece, without allocating.
#[derive(Clone, Copy, Debug, Default)]
pub struct Moves {
    list: [Option<Move>; 4],
    len: u8,
}

impl Moves {
    fn one(mv: Move) -> Moves {
        let mut moves = Moves::default();
        moves.push(mv);
        moves
    }

    fn push(&mut self, mv: Move) {
        self.list[self.len as usize] = Some(mv);
        self.len += 1;
    }

    /// The moves whose bit is set in `mask` (bit i = the i-th move).
    fn filtered(&self, mask: u8) -> Moves {
        let mut moves = Moves::default();
        for (i, &mv) in self.iter().enumerate() {
            if mask & (1 << i) != 0 {
                moves.push(mv);
            }
        }
        moves
    }

    /// Number of legal moves.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the roll cannot be used.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves, in piece order (base first, then by progress).
    pub fn iter(&self) -> impl Iterator<Item = &Move> {
        self.list[..self.len as usize].iter().flatten()
    }

    /// The `i`-th move.
    pub fn get(&self, i: usize) -> Option<Move> {
        self.list.get(i).copied().flatten()
    }
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The colour in turn rolls; `attempt` (1..=3) counts tries for a six.
    Roll { attempt: u8 },
    /// The colour in turn moves with `roll`; at least one move is legal.
    Move { roll: Die },
    /// The colour in turn has all four pieces home and has won.
    Won,
}

/// A classic game in progress: the position, the house rules and the turn
/// flow (extra roll after a six, three tries for a six, lost turns, the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    house: HouseRules,
    position: Position,
    phase: Phase,
}

impl Game {
    /// The game at `position`, its colour in turn about to roll (first try),
    /// or over if that colour has already won.
    pub fn new(house: HouseRules, position: Position) -> Game {
        let phase = if position.all_home(position.turn) {
            Phase::Won
        } else {
            Phase::Roll { attempt: 1 }
        };
        Game {
            house,
            position,
            phase,
        }
    }

    pub fn house(&self) -> HouseRules {
        self.house
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The winner, once the game is over.
    pub fn winner(&self) -> Option<Colour> {
        (self.phase == Phase::Won).then_some(self.position.turn)
    }

    /// Rolls `die` for the colour in turn.
    pub fn roll(&mut self, die: Die) -> Result<Rolled, FlowError> {
        let attempt = match self.phase {
            Phase::Roll { attempt } => attempt,
            Phase::Move { .. } => return Err(FlowError::MoveDue),
            Phase::Won => return Err(FlowError::GameOver),
        };
        if !self.position.legal_moves(self.house, die).is_empty() {
            self.phase = Phase::Move { roll: die };
            return Ok(Rolled::Move);
        }
        if attempt < TRIES && self.position.waits_for_six(self.house) {
            self.phase = Phase::Roll {
                attempt: attempt + 1,
            };
            return Ok(Rolled::TryAgain {
                attempt: attempt + 1,
            });
        }
        self.position.pass_turn();
        self.phase = Phase::Roll { attempt: 1 };
        Ok(Rolled::TurnLost)
    }

    /// The legal moves now: empty unless a move is due.
    pub fn legal_moves(&self) -> Moves {
        match self.phase {
            Phase::Move { roll } => self.position.legal_moves(self.house, roll),
            _ => Moves::default(),
        }
    }

    /// Plays `mv`, which must be one of [`Game::legal_moves`].
    pub fn play(&mut self, mv: Move) -> Result<Played, FlowError> {
        let roll = match self.phase {
            Phase::Move { roll } => roll,
            Phase::Roll { .. } => return Err(FlowError::RollDue),
            Phase::Won => return Err(FlowError::GameOver),
        };
        if !self.legal_moves().iter().any(|&m| m == mv) {
            return Err(FlowError::Illegal(format!("{}>{}", mv.from(), mv.to())));
        }
        let captured = self.position.apply(mv).map(|victim| Capture {
            piece: victim,
            to_base_of: victim,
        });
        let won = self.position.all_home(mv.colour);
        self.phase = if won {
            Phase::Won
        } else {
            if !roll.is_six() {
                self.position.pass_turn();
            }
            Phase::Roll { attempt: 1 }
        };
        Ok(Played { captured, won })
    }

    /// The legal move from `from` to `to`, if there is one.
    pub fn find_move(&self, from: Place, to: Place) -> Option<Move> {
        self.legal_moves()
            .iter()
            .copied()
            .find(|m| m.from() == from && m.to() == to)
    }
}
