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

/// `SPOT_OF[colour][square]`: the progress (1..=40) at which `colour`'s
/// piece stands on absolute track square `square`. A table, because captures
/// look it up on every move.
const SPOT_OF: [[u8; TRACK_LEN as usize]; 4] = {
    let mut table = [[0; TRACK_LEN as usize]; 4];
    let mut c = 0;
    while c < 4 {
        let mut square = 0;
        while square < TRACK_LEN {
            table[c][square as usize] =
                (square + TRACK_LEN - Colour::from_index(c).start()) % TRACK_LEN + START;
            square += 1;
        }
        c += 1;
    }
    table
};

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
        Place::Track(square) => SPOT_OF[colour.index()][square as usize % TRACK_LEN as usize],
        Place::Home(h) => LAST_TRACK + h,
    }
}

/// Why a set of pieces is not a position that can arise in play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidPosition {
    #[error("{0} is not seated but is listed with the pieces")]
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
///
/// Each colour's pieces are one bit mask over its progress: bit `s` (1..=44)
/// is set where a piece stands, and the pieces not on the board are in
/// base. Two pieces of one colour never share a square, so the mask says
/// everything, and moving a piece is flipping two bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    seats: Seats,
    turn: Colour,
    /// Progress bits of each colour's pieces; zero for colours not seated.
    pieces: [u64; 4],
}

/// Bits 1..=40: the track, as progress.
const TRACK_BITS: u64 = ((1 << TRACK_LEN) - 1) << START;
/// Bits 41..=44: the home row.
const HOME_BITS: u64 = ((1 << HOME_LEN) - 1) << (LAST_TRACK + 1);
/// The 40 absolute track squares, bits 0..40.
const RING: u64 = (1 << TRACK_LEN) - 1;

/// Progress bits on the track of `colour` → absolute squares (bits 0..40).
const fn to_absolute(colour: Colour, progress: u64) -> u64 {
    let relative = (progress & TRACK_BITS) >> START;
    let k = colour.start() as u32;
    if k == 0 {
        relative
    } else {
        ((relative << k) | (relative >> (TRACK_LEN as u32 - k))) & RING
    }
}

/// Absolute squares (bits 0..40) → progress bits of `colour`.
const fn to_progress(colour: Colour, absolute: u64) -> u64 {
    let k = colour.start() as u32;
    let relative = if k == 0 {
        absolute
    } else {
        ((absolute >> k) | (absolute << (TRACK_LEN as u32 - k))) & RING
    };
    relative << START
}

/// Whether a colour with these progress bits has a piece in base, i.e. fewer
/// than four bits set: clearing the lowest three set bits leaves nothing.
/// (Cheaper than a population count on CPUs without one.)
#[inline]
const fn has_base(mask: u64) -> bool {
    let m = mask & (mask.wrapping_sub(1));
    let m = m & m.wrapping_sub(1);
    m & m.wrapping_sub(1) == 0
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
            pieces: [0; 4],
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
            let mask = &mut position.pieces[colour.index()];
            for &place in places {
                let spot = to_spot(*colour, place);
                if spot == BASE {
                    continue;
                }
                if *mask & (1 << spot) != 0 {
                    return Err(InvalidPosition::SharedSquare(*colour, place));
                }
                *mask |= 1 << spot;
            }
        }
        if let Some(missing) = seats.iter().find(|c| !given[c.index()]) {
            return Err(InvalidPosition::MissingColour(missing));
        }
        let mut taken = 0u64;
        let mut owner = Colour::Red;
        for colour in seats.iter() {
            let squares = position.track_squares(colour);
            if taken & squares != 0 {
                let square = (taken & squares).trailing_zeros() as u8;
                let place = Place::Track(square);
                let first = seats
                    .iter()
                    .find(|&c| position.track_squares(c) & (1 << square) != 0)
                    .unwrap_or(owner);
                return Err(InvalidPosition::TwoColours(first, colour, place));
            }
            taken |= squares;
            owner = colour;
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
        let mut mask = self.pieces[colour.index()];
        let in_base = 4 - mask.count_ones() as usize;
        std::array::from_fn(|i| {
            if i < in_base {
                Place::Base
            } else {
                let spot = mask.trailing_zeros() as u8;
                mask &= mask - 1;
                to_place(colour, spot)
            }
        })
    }

    /// Whether all of `colour`'s pieces are home.
    pub fn all_home(&self, colour: Colour) -> bool {
        self.pieces[colour.index()] & HOME_BITS == HOME_BITS
    }

    /// The seated colour standing on track square `square`, if any.
    pub fn occupant(&self, square: u8) -> Option<Colour> {
        let bit = 1u64.checked_shl(square.into())?;
        self.seats
            .iter()
            .find(|&c| self.track_squares(c) & bit != 0)
    }

    /// The absolute track squares (bits 0..40) where `colour` has pieces.
    fn track_squares(&self, colour: Colour) -> u64 {
        to_absolute(colour, self.pieces[colour.index()])
    }

    /// The legal moves for `roll` of the colour in turn, with every
    /// obligation (bring out, clear the start square, compulsory capture)
    /// applied. Empty when the roll cannot be used.
    // Always inlined: called once per roll, and returning its result
    // through memory cost a third of a random playout's time
    // (docs/performance.md).
    #[inline(always)]
    pub fn legal_moves(&self, house: HouseRules, roll: Die) -> Moves {
        let colour = self.turn;
        let mine = self.pieces[colour.index()];
        let r = roll.get();
        // Captures matter only when they are compulsory.
        let others = if house.compulsory_capture {
            let squares = self
                .seats
                .iter()
                .filter(|&c| c != colour)
                .fold(0, |mask, c| mask | self.track_squares(c));
            to_progress(colour, squares)
        } else {
            0
        };
        let has_base = has_base(mine);

        // All pieces at once: a piece can move where its target is on the
        // board and not taken by a piece of its own.
        let targets = (mine << r) & !mine & (TRACK_BITS | HOME_BITS);
        let mut froms = targets >> r;
        if house.no_jump_home {
            let mut entering = targets & HOME_BITS;
            while entering != 0 {
                let to = entering.trailing_zeros() as u8;
                entering &= entering - 1;
                let from = to - r;
                // Home squares strictly between the piece and its target.
                let passed = ((1u64 << to) - 1) & !((2u64 << from.max(LAST_TRACK)) - 1);
                if mine & passed != 0 {
                    froms &= !(1 << from);
                }
            }
        }
        let mut captures = (others >> r) & froms;
        // The turn flow below is written without branches on the roll: a
        // random die makes such branches mispredict, and they cost more
        // than the arithmetic (docs/performance.md).
        let base = u64::from(has_base);
        let bring_out = base & u64::from(roll.is_six()) & !(mine >> START) & 1;
        froms |= bring_out << BASE;
        captures |= (others >> START) & bring_out;
        // Bringing out comes first, then clearing the start square: the
        // lowest of the two that is possible, when either is due.
        let obliging = base.wrapping_neg() & !u64::from(house.optional_bring_out).wrapping_neg();
        let obliged = froms & 0b11 & obliging;
        let due = obliged & obliged.wrapping_neg();
        froms = if due != 0 { due } else { froms };
        if house.compulsory_capture && due == 0 && captures != 0 {
            froms &= captures;
        }
        Moves {
            colour,
            roll: r,
            froms,
        }
    }

    /// Whether the colour in turn must roll for a six: nothing on the track
    /// and no home piece that could still move with any roll.
    pub fn waits_for_six(&self, house: HouseRules) -> bool {
        let mine = self.pieces[self.turn.index()];
        if mine & TRACK_BITS != 0 {
            return false;
        }
        // Home pieces are packed at the deep end when the squares behind the
        // shallowest one are full (or, without jumping, the next one is).
        let mut home = mine >> LAST_TRACK;
        while home != 0 {
            let h = home.trailing_zeros();
            let deeper = (((1u64 << HOME_LEN) << 1) - 1) & !((2u64 << h) - 1);
            let blocked = if house.no_jump_home {
                h == u32::from(HOME_LEN) || home & (2 << h) != 0
            } else {
                home & deeper == deeper
            };
            if !blocked {
                return false;
            }
            home &= home - 1;
        }
        true
    }

    /// Plays `mv` for the colour in turn, without checking that the rules
    /// allow it (use [`Game::play`] for that), and returns the colour whose
    /// piece was captured. The turn does not pass.
    #[inline]
    pub fn apply(&mut self, mv: Move) -> Option<Colour> {
        let colour = mv.colour;
        let mask = &mut self.pieces[colour.index()];
        *mask = (*mask & !(1 << mv.from)) | 1 << mv.to;
        if mv.to > LAST_TRACK {
            return None;
        }
        let square = track_square(colour, mv.to) as usize;
        // Colours that are not seated have no pieces, so every other colour
        // can be looked at; at most one of them stands there.
        let mut captured = None;
        for victim in Colour::ALL {
            if victim == colour {
                continue;
            }
            let pieces = &mut self.pieces[victim.index()];
            let hit = *pieces & 1 << SPOT_OF[victim.index()][square];
            *pieces ^= hit;
            if hit != 0 {
                captured = Some(victim);
            }
        }
        captured
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

impl std::fmt::Display for Move {
    /// `FROM>TO`, as the notation writes a move.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}>{}", self.from(), self.to())
    }
}

/// The legal moves for one roll, without allocating: a move is known by the
/// progress its piece starts from (0 for bringing a piece out), so the list
/// is one bit mask, in piece order (base first, then by progress).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Moves {
    colour: Colour,
    roll: u8,
    froms: u64,
}

impl Moves {
    fn none(colour: Colour, roll: u8) -> Moves {
        Moves {
            colour,
            roll,
            froms: 0,
        }
    }

    fn mv(&self, from: u8) -> Move {
        let to = if from == BASE {
            START
        } else {
            from + self.roll
        };
        Move::new(self.colour, from, to)
    }

    /// Number of legal moves.
    pub fn len(&self) -> usize {
        self.froms.count_ones() as usize
    }

    /// Whether the roll cannot be used.
    pub fn is_empty(&self) -> bool {
        self.froms == 0
    }

    /// Whether `mv` is one of the moves.
    pub fn contains(&self, mv: Move) -> bool {
        mv.from < 64 && self.froms & (1 << mv.from) != 0 && self.mv(mv.from) == mv
    }

    /// The moves, in piece order.
    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        let mut rest = self.froms;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let from = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                self.mv(from)
            })
        })
    }

    /// The `i`-th move.
    pub fn get(&self, i: usize) -> Option<Move> {
        let mut rest = self.froms;
        for _ in 0..i {
            rest &= rest.checked_sub(1)?;
        }
        (rest != 0).then(|| self.mv(rest.trailing_zeros() as u8))
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
    /// The legal moves while a move is due (computed once, at the roll).
    moves: Moves,
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
            moves: Moves::none(position.turn, 0),
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
    // Always inlined, like `legal_moves`: measured 4% faster playouts.
    #[inline(always)]
    pub fn roll(&mut self, die: Die) -> Result<Rolled, FlowError> {
        let attempt = match self.phase {
            Phase::Roll { attempt } => attempt,
            Phase::Move { .. } => return Err(FlowError::MoveDue),
            Phase::Won => return Err(FlowError::GameOver),
        };
        self.moves = self.position.legal_moves(self.house, die);
        if !self.moves.is_empty() {
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
        self.moves
    }

    /// Plays `mv`, which must be one of [`Game::legal_moves`].
    #[inline]
    pub fn play(&mut self, mv: Move) -> Result<Played, FlowError> {
        let roll = match self.phase {
            Phase::Move { roll } => roll,
            Phase::Roll { .. } => return Err(FlowError::RollDue),
            Phase::Won => return Err(FlowError::GameOver),
        };
        if !self.moves.contains(mv) {
            return Err(FlowError::Illegal);
        }
        self.moves.froms = 0;
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
        self.moves.iter().find(|m| m.from() == from && m.to() == to)
    }
}
