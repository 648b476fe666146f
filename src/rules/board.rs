//! Board geometry shared by every rule set: colours, seats, dice and places.

use std::fmt;
use std::str::FromStr;

/// Number of squares on the track around the board.
pub const TRACK_LEN: u8 = 40;
/// Number of home squares of each colour.
pub const HOME_LEN: u8 = 4;

/// The four colours, in clockwise order. The discriminant is the colour's
/// index, and its start square is `T(10 * index)`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Colour {
    Red = 0,
    Blue = 1,
    Green = 2,
    Yellow = 3,
}

impl Colour {
    /// All colours, clockwise from red.
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Blue, Colour::Green, Colour::Yellow];

    /// Position in the clockwise order, 0..4.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour at `index % 4`.
    pub const fn from_index(index: usize) -> Colour {
        Colour::ALL[index % 4]
    }

    /// The lower-case English name used in the notation.
    pub const fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Blue => "blue",
            Colour::Green => "green",
            Colour::Yellow => "yellow",
        }
    }

    /// The track square where this colour's pieces come out of the base.
    pub const fn start(self) -> u8 {
        self as u8 * 10
    }

    /// The last track square before this colour's home row (one square
    /// behind its start).
    pub const fn home_entrance(self) -> u8 {
        (self.start() + TRACK_LEN - 1) % TRACK_LEN
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `text` as an error message quotes it: its first 40 characters, then
/// "…". The word quoted is the input's, which may be megabytes long, and
/// the message is one line.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A word that names no colour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown colour {0:?} (expected red, blue, green or yellow)")]
pub struct UnknownColour(pub String);

impl FromStr for Colour {
    type Err = UnknownColour;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Colour::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| UnknownColour(excerpt(s)))
    }
}

/// The colours in play. Only the three sets of the rules exist: red and green
/// for two players, red, blue and green for three, all four for four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Seats(u8);

/// A set of colours that is not one of the three seatings of the rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seats must be red+green, red+blue+green or all four colours, not {}", names(.0))]
pub struct InvalidSeats(pub Vec<Colour>);

/// Colour names joined with `+`, as the seat messages write them (the
/// first few of a list the input made long).
fn names(colours: &[Colour]) -> String {
    let names: Vec<&str> = colours.iter().take(8).map(|c| c.name()).collect();
    if names.is_empty() {
        "none".to_owned()
    } else if colours.len() > names.len() {
        names.join("+") + "+…"
    } else {
        names.join("+")
    }
}

impl Seats {
    const TWO: u8 = 0b0101;
    const THREE: u8 = 0b0111;
    const FOUR: u8 = 0b1111;

    /// The seating for `players` players (2, 3 or 4).
    pub const fn for_players(players: u8) -> Option<Seats> {
        match players {
            2 => Some(Seats(Self::TWO)),
            3 => Some(Seats(Self::THREE)),
            4 => Some(Seats(Self::FOUR)),
            _ => None,
        }
    }

    /// The seating made of exactly these colours, in any order.
    pub fn from_colours(colours: &[Colour]) -> Result<Seats, InvalidSeats> {
        let mut mask = 0u8;
        for &c in colours {
            let bit = 1 << c.index();
            if mask & bit != 0 {
                return Err(InvalidSeats(colours.to_vec()));
            }
            mask |= bit;
        }
        match mask {
            Self::TWO | Self::THREE | Self::FOUR => Ok(Seats(mask)),
            _ => Err(InvalidSeats(colours.to_vec())),
        }
    }

    /// Whether `colour` plays.
    pub const fn contains(self, colour: Colour) -> bool {
        self.0 & (1 << colour as u8) != 0
    }

    /// Number of players.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Never true: a seating has at least two colours.
    pub const fn is_empty(self) -> bool {
        false
    }

    /// The seated colours, clockwise from red.
    pub fn iter(self) -> impl Iterator<Item = Colour> + Clone {
        Colour::ALL.into_iter().filter(move |&c| self.contains(c))
    }

    /// The seated colour that plays after `colour` (clockwise).
    pub fn after(self, colour: Colour) -> Colour {
        // The seat mask twice over, shifted so that bit 0 is the next colour.
        let later = (u32::from(self.0) | u32::from(self.0) << 4) >> (colour.index() + 1);
        Colour::from_index(colour.index() + 1 + later.trailing_zeros() as usize)
    }
}

impl TryFrom<u8> for Seats {
    type Error = InvalidSeats;
    fn try_from(mask: u8) -> Result<Self, Self::Error> {
        let colours: Vec<Colour> = Colour::ALL
            .into_iter()
            .filter(|c| mask & (1 << c.index()) != 0)
            .collect();
        if mask > 0b1111 {
            return Err(InvalidSeats(colours));
        }
        Seats::from_colours(&colours)
    }
}

impl From<Seats> for u8 {
    fn from(seats: Seats) -> u8 {
        seats.0
    }
}

/// One face of the die, 1..=6. Dice values always come from outside the
/// engine (the game's shared randomness, or a test).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "u8", into = "u8")]
pub struct Die(u8);

/// A number that is not a face of the die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a roll must be 1 to 6, not {0}")]
pub struct InvalidDie(pub i64);

impl Die {
    /// The six, which brings pieces out and gives another roll.
    pub const SIX: Die = Die(6);

    /// The face `value`, if it is 1..=6.
    pub const fn new(value: u8) -> Option<Die> {
        if value >= 1 && value <= 6 {
            Some(Die(value))
        } else {
            None
        }
    }

    /// All six faces in order.
    pub fn all() -> impl Iterator<Item = Die> {
        (1..=6).map(Die)
    }

    /// The number of pips.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Whether this is a six.
    pub const fn is_six(self) -> bool {
        self.0 == 6
    }
}

impl TryFrom<i64> for Die {
    type Error = InvalidDie;
    fn try_from(value: i64) -> Result<Self, Self::Error> {
        u8::try_from(value)
            .ok()
            .and_then(Die::new)
            .ok_or(InvalidDie(value))
    }
}

impl TryFrom<u8> for Die {
    type Error = InvalidDie;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Die::new(value).ok_or(InvalidDie(value.into()))
    }
}

impl From<Die> for u8 {
    fn from(die: Die) -> u8 {
        die.0
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Where a piece stands, in absolute board terms, as the notation writes it:
/// `B`, `T0`..`T39`, `H1`..`H4` (home squares belong to the colour whose home
/// row it is, which the context gives).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Place {
    Base,
    /// Track square 0..40.
    Track(u8),
    /// Home square 1..=4, 4 being the deepest.
    Home(u8),
}

/// A token that is not `B`, `T0`..`T39` or `H1`..`H4`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown square {0:?} (expected B, T0..T39 or H1..H4)")]
pub struct UnknownPlace(pub String);

impl FromStr for Place {
    type Err = UnknownPlace;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || UnknownPlace(excerpt(s));
        let number = |digits: &str| -> Result<u8, UnknownPlace> {
            // Reject signs, leading zeros ("T05") and empty numbers.
            if digits.is_empty()
                || !digits.bytes().all(|b| b.is_ascii_digit())
                || (digits.len() > 1 && digits.starts_with('0'))
            {
                return Err(err());
            }
            digits.parse().map_err(|_| err())
        };
        match s.as_bytes().first() {
            Some(b'B') if s.len() == 1 => Ok(Place::Base),
            Some(b'T') => match number(&s[1..])? {
                n if n < TRACK_LEN => Ok(Place::Track(n)),
                _ => Err(err()),
            },
            Some(b'H') => match number(&s[1..])? {
                n @ 1..=HOME_LEN => Ok(Place::Home(n)),
                _ => Err(err()),
            },
            _ => Err(err()),
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Base => f.write_str("B"),
            Place::Track(n) => write!(f, "T{n}"),
            Place::Home(n) => write!(f, "H{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_squares_and_entrances_follow_the_notation() {
        assert_eq!(Colour::Red.start(), 0);
        assert_eq!(Colour::Yellow.start(), 30);
        assert_eq!(Colour::Red.home_entrance(), 39);
        assert_eq!(Colour::Blue.home_entrance(), 9);
    }

    #[test]
    fn seats_are_one_of_three_sets_and_turns_go_clockwise() {
        let two = Seats::from_colours(&[Colour::Green, Colour::Red]).unwrap();
        assert_eq!(two.after(Colour::Red), Colour::Green);
        assert_eq!(two.after(Colour::Green), Colour::Red);
        assert!(Seats::from_colours(&[Colour::Red, Colour::Blue]).is_err());
        assert!(Seats::from_colours(&[Colour::Red, Colour::Red, Colour::Green]).is_err());
        let four = Seats::for_players(4).unwrap();
        assert_eq!(four.after(Colour::Yellow), Colour::Red);
    }

    #[test]
    fn places_parse_strictly() {
        assert_eq!("T39".parse(), Ok(Place::Track(39)));
        assert_eq!("H4".parse(), Ok(Place::Home(4)));
        assert_eq!("B".parse(), Ok(Place::Base));
        for bad in ["T40", "H0", "H5", "T05", "T", "T-1", "b", "BB", "T+3", ""] {
            assert!(bad.parse::<Place>().is_err(), "{bad}");
        }
    }
}
