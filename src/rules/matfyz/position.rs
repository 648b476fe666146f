//! A Matfyz position: which colours every seat holds in its base and home,
//! where the shared pieces stand on the track, and how far the turn has got
//! (the unused rolls and the pieces whose run has ended).

use std::fmt;

use super::run::Origin;
use crate::rules::board::{Colour, Die, HOME_LEN, Place, Seats, TRACK_LEN};

/// A set of colours, one bit per colour. A seat never holds two pieces of
/// one colour, so its base is such a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Colours(u8);

impl Colours {
    const ALL: Colours = Colours(0b1111);

    pub(super) fn contains(self, colour: Colour) -> bool {
        self.0 & 1 << colour.index() != 0
    }

    fn insert(&mut self, colour: Colour) {
        self.0 |= 1 << colour.index();
    }

    fn remove(&mut self, colour: Colour) {
        self.0 &= !(1 << colour.index());
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The colours in the set, clockwise from red.
    pub(super) fn iter(self) -> impl Iterator<Item = Colour> {
        Colour::ALL.into_iter().filter(move |&c| self.contains(c))
    }
}

/// The rolls of the turn that are not used yet: all sixes come first, the
/// number that ended the rolling last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rolls {
    /// Sixes rolled and not used yet. Counted rather than listed because a
    /// turn may use any number of them (two bring-outs onto one start square
    /// capture each other, so sixes never run out of uses).
    pub sixes: u32,
    /// The number that ended the rolling, while it is unused; `None` while
    /// the colour in turn still rolls. Only `clovece moves` and `clovece
    /// bot` ever make it a six (there the listed rolls are the whole turn).
    pub last: Option<Die>,
}

impl Rolls {
    /// Number of unused rolls once the rolling has ended.
    pub(super) fn len(self) -> u64 {
        u64::from(self.sixes) + u64::from(self.last.is_some())
    }

    /// The `i`-th unused roll (sixes first), for `i < len()`.
    pub(super) fn at(self, i: u64) -> Die {
        match self.last {
            Some(last) if i >= u64::from(self.sixes) => last,
            _ => Die::SIX,
        }
    }

    /// The index of the first roll after `i` that differs from roll `i`
    /// (or `len()`): where a run goes on when nobody can use roll `i`, as
    /// nobody can use the equal rolls after it either.
    pub(super) fn after_equal(self, i: u64) -> u64 {
        let sixes = u64::from(self.sixes);
        match self.last {
            Some(last) if i < sixes && !last.is_six() => sixes,
            _ => self.len(),
        }
    }
}

/// The places (of the colour in turn's view) whose piece has ended its run
/// this turn and may not move again until the next turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Done {
    /// Bit `n`: track square `n`.
    track: u64,
    /// Bit `h`: home square `h` (1..=4) of the colour in turn.
    home: u8,
}

impl Done {
    pub(super) fn contains(self, place: Place) -> bool {
        match place {
            Place::Base => false,
            Place::Track(n) => self.track & 1 << n != 0,
            Place::Home(h) => self.home & 1 << h != 0,
        }
    }

    fn insert(&mut self, place: Place) {
        match place {
            Place::Base => {}
            Place::Track(n) => self.track |= 1 << n,
            Place::Home(h) => self.home |= 1 << h,
        }
    }
}

/// Where a piece on `from` lands when `seat` moves it `roll` squares, as
/// far as geometry goes: a six brings a piece out of the base onto the
/// seat's start square; on the track it goes clockwise, and past the seat's
/// home entrance into the seat's home; `None` past `H4` (and from squares
/// that do not exist, which a run read from outside may name).
pub(super) fn landing(seat: Colour, from: Place, roll: Die) -> Option<Place> {
    let r = roll.get();
    match from {
        Place::Base => roll.is_six().then_some(Place::Track(seat.start())),
        Place::Track(x) if x < TRACK_LEN => {
            let to_entrance = (seat.home_entrance() + TRACK_LEN - x) % TRACK_LEN;
            if r <= to_entrance {
                Some(Place::Track((x + r) % TRACK_LEN))
            } else {
                let h = r - to_entrance;
                (h <= HOME_LEN).then_some(Place::Home(h))
            }
        }
        Place::Home(h) if (1..=HOME_LEN).contains(&h) => {
            (h + r <= HOME_LEN).then_some(Place::Home(h + r))
        }
        Place::Track(_) | Place::Home(_) => None,
    }
}

/// Whether `place` is a track square or a home square.
fn on_board(place: Place) -> bool {
    match place {
        Place::Base => false,
        Place::Track(n) => n < TRACK_LEN,
        Place::Home(h) => (1..=HOME_LEN).contains(&h),
    }
}

/// A position as written down, one entry per seat, before it is checked:
/// what the notation reads and writes, and what [`Position::new`] checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub seats: Seats,
    pub turn: Colour,
    /// The colours in each seated colour's base.
    pub bases: Vec<(Colour, Vec<Colour>)>,
    /// Each seated colour's home squares `H1..=H4`.
    pub homes: Vec<(Colour, [Option<Colour>; 4])>,
    /// The colour of the piece on each occupied track square.
    pub track: Vec<(u8, Colour)>,
    pub rolls: Rolls,
    /// The places (track squares, or home squares of the colour in turn)
    /// whose piece has ended its run this turn.
    pub done: Vec<Place>,
}

/// The two things a layout gives for every seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Base,
    Home,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Base => "base",
            Part::Home => "home",
        })
    }
}

/// Checks that `listed` names every seat once and nothing else.
fn check_parts(
    seats: Seats,
    listed: impl Iterator<Item = Colour>,
    part: Part,
) -> Result<(), InvalidPosition> {
    let mut given = Colours::default();
    for seat in listed {
        if !seats.contains(seat) {
            return Err(InvalidPosition::UnseatedColour(seat));
        }
        if given.contains(seat) {
            return Err(InvalidPosition::GivenTwice(seat, part));
        }
        given.insert(seat);
    }
    match seats.iter().find(|&s| !given.contains(s)) {
        Some(seat) => Err(InvalidPosition::Missing(seat, part)),
        None => Ok(()),
    }
}

/// Why a layout is not a position that can arise in play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidPosition {
    #[error("the colour to act, {0}, is not seated")]
    TurnNotSeated(Colour),
    #[error("{0} is not seated but has a base or a home")]
    UnseatedColour(Colour),
    #[error("the {1} of {0} is given twice")]
    GivenTwice(Colour, Part),
    #[error("{0} is seated but its {1} is not given")]
    Missing(Colour, Part),
    #[error("{0} holds two {1} pieces in its base and home")]
    HeldTwice(Colour, Colour),
    #[error("there must be {players} {colour} pieces (one per player), not {count}")]
    PieceCount {
        colour: Colour,
        count: usize,
        players: usize,
    },
    #[error("{0} is not a track square or a home square")]
    NoSuchSquare(Place),
    #[error("two pieces on T{0}")]
    SharedSquare(u8),
    #[error("{0} has one piece of each colour home, so the game is over and {0} must be in turn")]
    FinishedNotInTurn(Colour),
    #[error("{0} has won, so no rolls or finished runs can follow")]
    PlayAfterWin(Colour),
    #[error("done must be empty while a roll is due")]
    DoneWhileRolling,
    #[error("done lists {0}, where no piece stands")]
    DoneEmpty(Place),
    #[error("done lists {0} twice")]
    DoneTwice(Place),
}

/// A Matfyz position: a small `Copy` value, equal positions compare equal.
///
/// Seats and piece colours are both [`Colour`]s: a seat is named by the
/// colour of its base and home, the pieces are shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    seats: Seats,
    turn: Colour,
    /// The colours in each seat's base (empty for seats not in play).
    bases: [Colours; 4],
    /// Each seat's home squares H1..H4.
    homes: [[Option<Colour>; 4]; 4],
    /// Bit `n` of entry `c`: a piece of colour `c` stands on track square `n`.
    track: [u64; 4],
    rolls: Rolls,
    /// Empty whenever no roll is being used.
    done: Done,
}

impl Position {
    /// The opening position: every seat's base holds one piece of each
    /// colour, `first` is about to roll.
    pub fn start(seats: Seats, first: Colour) -> Result<Position, InvalidPosition> {
        if !seats.contains(first) {
            return Err(InvalidPosition::TurnNotSeated(first));
        }
        let mut bases = [Colours::default(); 4];
        for seat in seats.iter() {
            bases[seat.index()] = Colours::ALL;
        }
        Ok(Position {
            seats,
            turn: first,
            bases,
            homes: [[None; 4]; 4],
            track: [0; 4],
            rolls: Rolls::default(),
            done: Done::default(),
        })
    }

    /// The position `layout` describes, checked for everything that cannot
    /// arise in play: wrong piece counts, a seat holding two pieces of one
    /// colour, two pieces on a square, a finished game that goes on.
    pub fn new(layout: &Layout) -> Result<Position, InvalidPosition> {
        let seats = layout.seats;
        let mut p = Position::start(seats, layout.turn)?;
        check_parts(seats, layout.bases.iter().map(|b| b.0), Part::Base)?;
        check_parts(seats, layout.homes.iter().map(|h| h.0), Part::Home)?;
        p.bases = [Colours::default(); 4];
        for (seat, colours) in &layout.bases {
            for &c in colours {
                if p.held(*seat).contains(c) {
                    return Err(InvalidPosition::HeldTwice(*seat, c));
                }
                p.bases[seat.index()].insert(c);
            }
        }
        for (seat, squares) in &layout.homes {
            for (square, &c) in squares.iter().enumerate() {
                if let Some(c) = c.filter(|&c| p.held(*seat).contains(c)) {
                    return Err(InvalidPosition::HeldTwice(*seat, c));
                }
                p.homes[seat.index()][square] = c;
            }
        }
        for &(square, colour) in &layout.track {
            if square >= TRACK_LEN {
                return Err(InvalidPosition::NoSuchSquare(Place::Track(square)));
            }
            if p.occupant(square).is_some() {
                return Err(InvalidPosition::SharedSquare(square));
            }
            p.track[colour.index()] |= 1 << square;
        }
        let players = seats.len();
        for colour in Colour::ALL {
            let count = p.count(colour);
            if count != players {
                return Err(InvalidPosition::PieceCount {
                    colour,
                    count,
                    players,
                });
            }
        }
        // Only the seat in turn may have won: every other full home is a
        // game that went on after it ended.
        if let Some(seat) = seats.iter().find(|&s| s != p.turn && p.home_full(s)) {
            return Err(InvalidPosition::FinishedNotInTurn(seat));
        }
        if p.home_full(p.turn) {
            let seat = p.turn;
            if layout.rolls != Rolls::default() || !layout.done.is_empty() {
                return Err(InvalidPosition::PlayAfterWin(seat));
            }
        }
        p.rolls = layout.rolls;
        if p.rolls.last.is_none() && !layout.done.is_empty() {
            return Err(InvalidPosition::DoneWhileRolling);
        }
        for &place in &layout.done {
            if !on_board(place) {
                return Err(InvalidPosition::NoSuchSquare(place));
            }
            if p.piece_at(place).is_none() {
                return Err(InvalidPosition::DoneEmpty(place));
            }
            if p.done.contains(place) {
                return Err(InvalidPosition::DoneTwice(place));
            }
            p.done.insert(place);
        }
        Ok(p)
    }

    /// The position written out (seats clockwise, bases clockwise, track
    /// and done places in board order): `Position::new(&p.layout()) == Ok(p)`.
    pub fn layout(&self) -> Layout {
        let seats = self.seats;
        let done = (0..TRACK_LEN)
            .map(Place::Track)
            .chain((1..=HOME_LEN).map(Place::Home))
            .filter(|&place| self.done.contains(place))
            .collect();
        Layout {
            seats,
            turn: self.turn,
            bases: seats.iter().map(|s| (s, self.base(s).collect())).collect(),
            homes: seats.iter().map(|s| (s, self.home(s))).collect(),
            track: (0..TRACK_LEN)
                .filter_map(|n| Some((n, self.occupant(n)?)))
                .collect(),
            rolls: self.rolls,
            done,
        }
    }

    /// The colours in play (each one a player, named by its base's colour).
    pub fn seats(&self) -> Seats {
        self.seats
    }

    /// The seat to act.
    pub fn turn(&self) -> Colour {
        self.turn
    }

    /// The colours of the pieces in `seat`'s base, clockwise from red.
    pub fn base(&self, seat: Colour) -> impl Iterator<Item = Colour> {
        self.bases[seat.index()].iter()
    }

    /// `seat`'s home squares H1..H4.
    pub fn home(&self, seat: Colour) -> [Option<Colour>; 4] {
        self.homes[seat.index()]
    }

    /// The colour of the piece on track square `square`, if any.
    pub fn occupant(&self, square: u8) -> Option<Colour> {
        let bit = 1u64.checked_shl(square.into())?;
        Colour::ALL
            .into_iter()
            .find(|c| self.track[c.index()] & bit != 0)
    }

    /// The unused rolls of the turn.
    pub fn rolls(&self) -> Rolls {
        self.rolls
    }

    /// The colours `seat` holds: those in its base or its home. It may move
    /// no track piece of these colours, and a captured piece of these
    /// colours may not be put into its base.
    pub(super) fn held(&self, seat: Colour) -> Colours {
        let mut held = self.bases[seat.index()];
        for &c in self.homes[seat.index()].iter().flatten() {
            held.insert(c);
        }
        held
    }

    /// How many pieces of `colour` there are (in bases, homes, on the track).
    fn count(&self, colour: Colour) -> usize {
        let seats = self.seats.iter();
        let in_bases = seats
            .clone()
            .filter(|s| self.bases[s.index()].contains(colour));
        let in_homes = seats
            .flat_map(|s| self.homes[s.index()])
            .filter(|&c| c == Some(colour));
        in_bases.count() + in_homes.count() + self.track[colour.index()].count_ones() as usize
    }

    /// Whether `seat` has one piece of each colour home: it has won.
    pub fn home_full(&self, seat: Colour) -> bool {
        self.homes[seat.index()].iter().all(Option::is_some)
    }

    pub(super) fn done(&self) -> Done {
        self.done
    }

    /// The colour of the piece on `place` (a home square of the seat in
    /// turn), or `None` for the base, empty squares and squares that do not
    /// exist.
    pub(super) fn piece_at(&self, place: Place) -> Option<Colour> {
        match place {
            Place::Base => None,
            Place::Track(n) => self.occupant(n),
            Place::Home(h) => *self.homes[self.turn.index()].get(usize::from(h).checked_sub(1)?)?,
        }
    }

    /// Bit `n` set where the seat in turn may start a run from track square
    /// `n`: a piece of a colour it holds neither in its base nor its home,
    /// that has not ended a run this turn.
    pub(super) fn movable_track(&self) -> u64 {
        let held = self.held(self.turn);
        let pieces = Colour::ALL
            .into_iter()
            .filter(|&c| !held.contains(c))
            .fold(0, |mask, c| mask | self.track[c.index()]);
        pieces & !self.done.track
    }

    /// Where the seat in turn's piece on `from` lands with `roll`, if the
    /// rules allow it: never beyond H4, never onto an occupied home square
    /// (the track has no such limit: the piece jumps, or captures when its
    /// run ends there).
    pub(super) fn step(&self, from: Place, roll: Die) -> Option<Place> {
        let to = landing(self.turn, from, roll)?;
        let blocked = matches!(to, Place::Home(_)) && self.piece_at(to).is_some();
        (!blocked).then_some(to)
    }

    /// Whether some piece the seat in turn may still move this turn can use
    /// `roll`: a base piece (with a six), a home piece or a track piece of a
    /// colour it does not hold, whose run has not ended.
    pub(super) fn can_use(&self, roll: Die) -> bool {
        if roll.is_six() && !self.bases[self.turn.index()].is_empty() {
            return true;
        }
        let home = (1..=HOME_LEN)
            .map(Place::Home)
            .filter(|&h| self.piece_at(h).is_some() && !self.done.contains(h));
        let track = bits(self.movable_track()).map(Place::Track);
        home.chain(track)
            .any(|from| self.step(from, roll).is_some())
    }

    /// Takes the seat in turn's piece off `from` and returns its colour.
    pub(super) fn lift(&mut self, from: Origin) -> Option<Colour> {
        let seat = self.turn.index();
        match from {
            Origin::Base(colour) => {
                let held = self.bases[seat].contains(colour);
                self.bases[seat].remove(colour);
                held.then_some(colour)
            }
            Origin::Track(n) => {
                let colour = self.occupant(n)?;
                self.track[colour.index()] &= !(1 << n);
                Some(colour)
            }
            Origin::Home(h) => self.homes[seat][usize::from(h - 1)].take(),
        }
    }

    /// Ends a run: puts `piece` on `to`, where it stays for the rest of the
    /// turn. A piece already standing there (on the track) is captured and
    /// goes to `recipient`'s base; its colour is returned.
    pub(super) fn put(
        &mut self,
        piece: Colour,
        to: Place,
        recipient: Option<Colour>,
    ) -> Option<Colour> {
        let mut captured = None;
        match to {
            Place::Base => return None,
            Place::Track(n) => {
                if let (Some(victim), Some(recipient)) = (self.occupant(n), recipient) {
                    self.track[victim.index()] &= !(1 << n);
                    self.bases[recipient.index()].insert(victim);
                    captured = Some(victim);
                }
                self.track[piece.index()] |= 1 << n;
            }
            Place::Home(h) => self.homes[self.turn.index()][usize::from(h - 1)] = Some(piece),
        }
        self.done.insert(to);
        captured
    }

    /// Marks rolls as used: `sixes` of them, and the last one too if
    /// `last` (then every six is gone as well: the sixes come first).
    pub(super) fn consume(&mut self, sixes: u8, last: bool) {
        if last {
            self.rolls = Rolls::default();
        } else {
            self.rolls.sixes = self.rolls.sixes.saturating_sub(u32::from(sixes));
        }
    }

    /// Adds a six to the rolls of the seat in turn, who rolls again.
    pub(super) fn add_six(&mut self) {
        self.rolls.sixes = self.rolls.sixes.saturating_add(1);
    }

    /// Ends the rolling with `die`, which is not a six.
    pub(super) fn end_rolling(&mut self, die: Die) {
        self.rolls.last = Some(die);
    }

    /// Forfeits the unused rolls that no piece can use, front first (an
    /// unusable six makes every six unusable), and passes the turn when no
    /// roll is left. Only called while rolls are being used.
    pub(super) fn settle(&mut self) {
        while let Some(last) = self.rolls.last {
            let front = if self.rolls.sixes > 0 { Die::SIX } else { last };
            if self.can_use(front) {
                return;
            }
            if self.rolls.sixes > 0 {
                self.rolls.sixes = 0;
            } else {
                self.rolls.last = None;
            }
        }
        self.turn = self.seats.after(self.turn);
        self.done = Done::default();
    }

    /// Ends the game: the seat in turn has won, its remaining rolls lapse.
    pub(super) fn finish(&mut self) {
        self.rolls = Rolls::default();
        self.done = Done::default();
    }

    /// The seats to which a piece captured on `to` may go: those holding
    /// its colour neither in base nor home (possibly the seat in turn).
    /// `None` alone when nothing stands on `to`.
    pub(super) fn recipients(&self, to: Place) -> impl Iterator<Item = Option<Colour>> {
        let victim = match to {
            Place::Track(n) => self.occupant(n),
            _ => None,
        };
        let held = Colour::ALL.map(|s| self.held(s));
        let seats = self.seats;
        let nobody = victim.is_none().then_some(None);
        nobody
            .into_iter()
            .chain(victim.into_iter().flat_map(move |v| {
                seats
                    .iter()
                    .filter(move |s| !held[s.index()].contains(v))
                    .map(Some)
            }))
    }
}

/// The set bits of `mask`, lowest first.
pub(super) fn bits(mut mask: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let n = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            n
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn die(n: u8) -> Die {
        Die::new(n).unwrap()
    }

    #[test]
    fn landing_enters_the_movers_home_after_its_entrance_only() {
        let red = Colour::Red;
        assert_eq!(landing(red, Place::Track(38), die(2)), Some(Place::Home(1)));
        assert_eq!(landing(red, Place::Track(38), die(5)), Some(Place::Home(4)));
        assert_eq!(landing(red, Place::Track(38), die(6)), None);
        // Green's entrance (T19) is passed by when red moves.
        assert_eq!(
            landing(red, Place::Track(17), die(4)),
            Some(Place::Track(21))
        );
        assert_eq!(
            landing(Colour::Green, Place::Track(17), die(4)),
            Some(Place::Home(2))
        );
        assert_eq!(landing(red, Place::Base, die(6)), Some(Place::Track(0)));
        assert_eq!(landing(red, Place::Base, die(5)), None);
        assert_eq!(landing(red, Place::Home(1), die(3)), Some(Place::Home(4)));
        assert_eq!(landing(red, Place::Home(2), die(3)), None);
    }

    #[test]
    fn equal_rolls_are_skipped_together() {
        let rolls = Rolls {
            sixes: 3,
            last: Some(die(2)),
        };
        assert_eq!(rolls.len(), 4);
        assert_eq!(rolls.at(2), Die::SIX);
        assert_eq!(rolls.at(3), die(2));
        assert_eq!(rolls.after_equal(1), 3);
        assert_eq!(rolls.after_equal(3), 4);
        let all_sixes = Rolls {
            sixes: 1,
            last: Some(Die::SIX),
        };
        assert_eq!(all_sixes.after_equal(0), 2);
    }

    #[test]
    fn the_start_position_survives_its_layout() {
        let seats = Seats::for_players(3).unwrap();
        let p = Position::start(seats, Colour::Blue).unwrap();
        assert_eq!(Position::new(&p.layout()), Ok(p));
        assert!(p.base(Colour::Green).eq(Colour::ALL));
        assert_eq!(p.base(Colour::Yellow).count(), 0);
    }

    #[test]
    fn a_seat_holding_a_colour_twice_is_rejected() {
        let seats = Seats::for_players(2).unwrap();
        let mut layout = Position::start(seats, Colour::Red).unwrap().layout();
        layout.homes[0].1[0] = Some(Colour::Blue);
        assert_eq!(
            Position::new(&layout),
            Err(InvalidPosition::HeldTwice(Colour::Red, Colour::Blue))
        );
    }
}
